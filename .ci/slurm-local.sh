#!/usr/bin/env bash
# A single-host Slurm cluster for dplab's integration test, without systemd:
# munged, slurmctld and slurmd on this machine, configured in WORKDIR
# (recipe and pitfalls: ../shared/research/slurm-local.md).
#
#   .ci/slurm-local.sh start WORKDIR   start (munged only if not running); clients then need
#                                      SLURM_CONF=WORKDIR/slurm.conf
#   .ci/slurm-local.sh stop WORKDIR    stop what start started
#
# Exit status 3: Slurm cannot run here (not installed, not root); the test
# skips with this script's message. Any other failure is an error.
set -euo pipefail
cmd=${1:-}
W=${2:-}
if [ -z "$cmd" ] || [ -z "$W" ]; then
	echo "usage: $0 start|stop WORKDIR" >&2
	exit 2
fi
W=$(cd "$W" && pwd)

unavailable() {
	echo "slurm-local: $*" >&2
	exit 3
}

stop() {
	# slurmd and slurmctld remove their pid files on a clean exit.
	for d in slurmd slurmctld; do
		if [ -f "$W/$d.pid" ]; then
			kill -TERM "$(cat "$W/$d.pid")" 2>/dev/null || true
		fi
	done
	for d in slurmd slurmctld; do
		for _ in $(seq 100); do
			[ -f "$W/$d.pid" ] || break
			sleep 0.1
		done
	done
	if [ -f "$W/munged.started" ] && [ -f /run/munge/munged.pid ]; then
		kill -TERM "$(cat /run/munge/munged.pid)" 2>/dev/null || true
		rm -f "$W/munged.started"
	fi
}

case "$cmd" in
stop)
	stop
	exit 0
	;;
start) ;;
*)
	echo "usage: $0 start|stop WORKDIR" >&2
	exit 2
	;;
esac

for b in munged munge slurmctld slurmd sbatch scontrol sinfo; do
	command -v "$b" >/dev/null 2>&1 || unavailable "$b not found: install the Debian packages slurm-wlm and munge (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || unavailable "must run as root (SlurmUser=root, munged as the munge user)"
id munge >/dev/null 2>&1 || unavailable "no munge user: the munge package is not installed properly"

mkdir -p "$W/state" "$W/spool" "$W/log"

# munge: reuse a running munged, else start one (pitfalls 1 and 2: the key
# must be owned by munge, /run/munge must exist).
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	if [ ! -s /etc/munge/munge.key ]; then
		mungekey --create --force
	fi
	chown munge:munge /etc/munge/munge.key
	chmod 0400 /etc/munge/munge.key
	install -d -o munge -g munge -m 0755 /run/munge
	runuser -u munge -- /usr/sbin/munged
	touch "$W/munged.started"
	for _ in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.1
	done
	munge -n | unmunge >/dev/null
fi

eval "$(slurmd -C | head -1 | tr ' ' '\n' | grep -E '^(CPUs|RealMemory)=')"
cat >"$W/slurm.conf" <<CONF
ClusterName=dplabci
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerParameters=batch_sched_delay=0
NodeName=localhost CPUs=$CPUs RealMemory=$RealMemory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$W/slurm.conf"

# Daemonized (no -D): they write the pid files stop waits on.
slurmctld
slurmd -N localhost
for _ in $(seq 300); do
	if [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; then
		echo "slurm-local: cluster up (SLURM_CONF=$SLURM_CONF)"
		exit 0
	fi
	sleep 0.1
done
echo "slurm-local: node not idle after 30 s; sinfo: $(sinfo 2>&1 || true)" >&2
tail -20 "$W/log/slurmctld.log" "$W/log/slurmd.log" >&2 || true
stop
exit 1
