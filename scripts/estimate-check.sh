#!/usr/bin/env bash
# Checks "dplab plan --estimate" against the run it predicts (issue 37): for
# each spec line and each -j, runs "plan SPEC ARGS --estimate -j J" and then
# "run SPEC ARGS -j J" into a fresh result directory, and prints one row:
# the predicted wall time, the run's measured wall time, their ratio, the
# estimate's own wall time as a share of the run's, the 1-minute load
# average before the estimate and after the run, and the estimate's parts
# (start-up, datasets, trials, store writes, syncs and rendering) beside the
# run's: its CPU user+sys, its own elapsed time (its report: the datasets,
# trials, store and rendering, not the process's start) and the fits' wall
# time summed over its stored trials (wall_s); and the CPUs the estimate
# assumed its trials get against those the run got (its CPU time over its
# wall time), with the ratio the estimate would have had at the run's CPUs
# (ratio × assumed / got): on a shared host the load moves between the
# estimate and the run, and this separates that from the model's error
# (it holds for CPU-bound trials, the bulk of a run).
# plan stores the trials it timed in the result directory and the run runs
# the rest (-d: plan --keep=false, the run runs all; a build before
# --keep stores none): kept counts them,
# saved_s is what they saved the run (their wall_s summed × the run's wall
# time over its own trials' wall_s summed), and net_share the estimate's
# wall time less saved_s over the run's wall time plus saved_s: its cost
# as a share of the run it would have been without it.
#
# Usage: scripts/estimate-check.sh [-b DPLAB] [-j "1 2"] [-d] [SPECS_FILE]
# SPECS_FILE holds one spec a line, a path then the arguments plan and run
# both take (--set, --only, --trials); "#" starts a comment. Without it the
# default list below is used. Needs DPLAB_DATA for file datasets; DPLAB
# defaults to a build of this tree. Output: a tab-separated table on stdout,
# each plan's full output under $ESTIMATE_CHECK_LOGS (default a temporary
# directory, kept and named on stderr).
set -euo pipefail
bin="" jobs="1 2" keep=""
while [ $# -gt 0 ]; do
	case "$1" in
	-b) bin=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	-d) keep=--keep=false; shift ;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs=${ESTIMATE_CHECK_LOGS:-$(mktemp -d -t estimate-check-XXXX)}
mkdir -p "$logs"
echo "plan outputs in $logs" >&2
if [ -z "$bin" ]; then
	bin=$tmp/dplab
	(cd "$root" && go build -o "$bin" .)
fi
specs=$tmp/specs
if [ $# -ge 1 ]; then
	cp "$1" "$specs"
else
	cat >"$specs" <<'EOF'
experiments/gaussmix_fig3.toml
experiments/timing/gaussmix_authors_wine.toml --trials 2500
experiments/objpert_fig2.toml --only dataset=adult --trials 1
experiments/rgm_fig1.toml
experiments/preprocessing_fig3.toml --trials 1
EOF
fi
load() { cut -d' ' -f1 /proc/loadavg; }
# secs DURATION: a Go duration ("1m2.5s", "350ms") in seconds.
secs() {
	awk -v d="$1" 'BEGIN {
		s = 0
		while (match(d, /^[0-9.]+(h|ms|µs|us|ns|m|s)/)) {
			t = substr(d, 1, RLENGTH); d = substr(d, RLENGTH + 1)
			match(t, /[0-9.]+/); v = substr(t, RSTART, RLENGTH); u = substr(t, RLENGTH + 1)
			if (u == "h") s += v * 3600; else if (u == "m") s += v * 60; else if (u == "s") s += v
			else if (u == "ms") s += v / 1000; else if (u == "µs" || u == "us") s += v / 1e6; else s += v / 1e9
		}
		printf "%.3f", s }'
}
# part NAME FILE: the seconds of one part of plan's estimate.
part() { secs "$(grep -E "^  $1 " "$2" | head -1 | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+(h|ms|µs|m|s)/) { print $i; exit } }')"; }
printf "spec\targs\tj\tpredicted_s\tactual_s\tratio\test_cost_s\test_share\tload_before\tload_after\tCPUs\tslowdown\tdilation\tparts_pred(startup/data/trials/writes/sync+render)\trun_cpu_s\trun_elapsed_s\trun_fits_sum_s\tCPUs_assumed\tCPUs_run_got\tratio_at_run_CPUs\tkept\tsaved_s\tnet_share\n"
n=0
while read -r spec args; do
	case "$spec" in "" | "#"*) continue ;; esac
	for j in $jobs; do
		n=$((n + 1))
		out=$tmp/out-$n
		plan=$logs/plan-$n.txt
		l0=$(load)
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086 # args are the spec line's words
		(cd "$root" && "$bin" plan "$spec" $args --estimate $keep -j "$j" --out "$out") >"$plan" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		t1=$(date +%s.%N)
		# wallsum FILE: the wall_s of its records summed.
		wallsum() { { grep -ho '"wall_s":[0-9.e+-]*' "$1" 2>/dev/null || true; } | awk -F: '{ s += $2 } END { printf "%.3f", s }'; }
		kept=$({ grep -c . "$out/trials.jsonl" 2>/dev/null || true; } | head -1)
		keptfits=$(wallsum "$out/trials.jsonl")
		# shellcheck disable=SC2086
		(cd "$root" && /usr/bin/env time -f "%U %S" "$bin" run "$spec" $args -j "$j" --out "$out") >"$logs/run-$n.txt" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		t2=$(date +%s.%N)
		l1=$(load)
		# The fits' wall time summed over the stored trials (their wall_s),
		# and the run's own elapsed time (its report), both in seconds.
		fits=$(awk -v a="$(wallsum "$out/trials.jsonl")" -v b="$keptfits" 'BEGIN { printf "%.2f", a - b }')
		elapsed=$(grep -Eo '\(([0-9.]+)s\)' "$logs/run-$n.txt" | tail -1 | tr -d '()s')
		rm -rf "$out"
		cpu=$(tail -n 1 "$tmp/err" | awk '{ print $1 + $2 }')
		head=$(grep -E '^estimated wall time on' "$plan")
		pred=$(secs "$(echo "$head" | sed -E 's/.*trial\(s\): ([^ ,]+).*/\1/')")
		ncpu=$(echo "$head" | sed -E 's/.* on ([0-9]+) CPUs.*/\1/')
		dil=$(echo "$head" | sed -E 's/.*takes ([0-9.]+) s here now.*/\1/')
		slow=$(grep -Eo 'each [0-9.]+× as long' "$plan" | grep -Eo '[0-9.]+' | head -1 || true)
		# The CPUs the estimate assumed its trials get (j / (slowdown ×
		# dilation)), against those the run got (its CPU time over its wall).
		assumed=$(echo "$head" | sed -nE 's/.*assumed to get ([0-9.]+) CPUs.*/\1/p')
		parts="$(part start-up "$plan")/$(part datasets "$plan")/$(part trials "$plan")/$(part "store writes" "$plan")/$(part "syncs, rendering" "$plan")"
		awk -v s="$spec" -v a="${args:--}" -v j="$j" -v p="$pred" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
			-v l0="$l0" -v l1="$l1" -v c="$ncpu" -v sl="${slow:-1}" -v d="$dil" -v parts="$parts" -v cpu="$cpu" -v el="${elapsed:-NaN}" -v fits="$fits" -v as="$assumed" -v kept="${kept:-0}" -v kf="$keptfits" 'BEGIN {
			est = t1 - t0; act = t2 - t1
			if (as == "") as = j / (sl * d)
			got = cpu / act
			saved = fits > 0 ? kf * act / fits : 0
			printf "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f%%\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%.2f\t%.2f\t%.2f\t%d\t%.2f\t%.1f%%\n", s, a, j, p, act, p / act, est, 100 * est / act, l0, l1, c, sl, d, parts, cpu, el, fits, as, got, p / act * as / got, kept, saved, 100 * (est - saved) / (act + saved) }'
	done
done <"$specs"
