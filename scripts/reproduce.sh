#!/usr/bin/env bash
# Regenerates every paper figure and table of experiments/*.toml (full size),
# one spec after another, and prints per spec the estimate of
# "dplab plan --estimate" beside the measured wall time, then the total.
# Usage: scripts/reproduce.sh [-j N] [SPEC.toml...]   (needs DPLAB_DATA)
# A spec whose run fails is reported and the others still run; the exit
# status is 1 if any failed. Rerunning resumes: stored trials are skipped.
# Then "dplab docs --refresh runs" makes the evidence of every spec the
# reproduction docs use from its run in runs/<spec>/ (dplab run's default
# result directory) and regenerates the
# docs' marked sections from it (what make docs does; docs/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=2
if [ "${1:-}" = "-j" ]; then jobs=$2; shift 2; fi
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then specs=(experiments/*.toml); fi
if [ -z "${DPLAB_DATA:-}" ]; then
	echo "reproduce: set DPLAB_DATA to the datasets directory (see docs/datasets.md)" >&2
	exit 2
fi
echo "building ./dplab"
# -buildvcs=auto: the manifests name the git revision even where GOFLAGS
# turns VCS stamping off.
go build -buildvcs=auto -o dplab . || exit 1
log=$(mktemp -d)
failed=0
start=$(date +%s.%N)
rows=()
for spec in "${specs[@]}"; do
	name=$(basename "$spec" .toml)
	# --keep=false: the docs' evidence is of runs alone (the estimate's
	# trials are timed one at a time, the run's -j at once).
	est=$(./dplab plan "$spec" --estimate --keep=false -j "$jobs" 2>"$log/$name.plan.err" |
		sed -n 's/^estimated wall time on [0-9]* concurrent trial(s): \([^ ,]*\)[ ,].*/\1/p')
	[ -n "$est" ] || est="-"
	t0=$(date +%s.%N)
	if ./dplab run "$spec" -j "$jobs" >"$log/$name.out" 2>"$log/$name.err"; then
		status=ok
	else
		status="FAILED (see $log/$name.err)"
		failed=1
	fi
	t1=$(date +%s.%N)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1fs", b - a }')
	rows+=("$name|$est|$wall|$status")
	printf '%-28s estimate %-10s measured %-9s %s\n' "$name" "$est" "$wall" "$status"
done
end=$(date +%s.%N)
echo
printf '| spec | plan --estimate -j %s | measured wall | status |\n|---|---|---|---|\n' "$jobs"
for r in "${rows[@]}"; do
	IFS='|' read -r n e w s <<<"$r"
	printf '| %s | %s | %s | %s |\n' "$n" "$e" "$w" "$s"
done
awk -v a="$start" -v b="$end" 'BEGIN { printf "\ntotal wall time: %.1f s (%.1f min) with -j '"$jobs"'\n", b - a, (b - a) / 60 }'
echo
echo "refreshing the docs' evidence from runs/ and regenerating the docs"
./dplab docs --refresh runs || failed=1
exit $failed
