#!/usr/bin/env bash
# Whole-process timing of two dplab builds, interleaved (issue 17): for each
# spec, N rounds of "OLD run SPEC -j J" then "NEW run SPEC -j J", each into a
# fresh result directory, and the median wall and CPU (user + system) time
# of each build. Process start, spec loading, data loading and checksum
# checks, the trials, the store and the rendering are all included.
# Usage: scripts/timewhole.sh [-n N] [-j J] OLD_DPLAB NEW_DPLAB SPEC.toml...
# (needs DPLAB_DATA for file datasets; N defaults to 3, J to 1).
set -euo pipefail
rounds=3 jobs=1
while [ $# -gt 0 ]; do
	case "$1" in
	-n) rounds=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 3 ]; then
	echo "usage: $0 [-n N] [-j J] OLD_DPLAB NEW_DPLAB SPEC.toml..." >&2
	exit 2
fi
old=$1 new=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# one BIN SPEC OUT: runs once and appends "wall cpu" (seconds) to OUT.
one() {
	local start end rc=0
	rm -rf "$tmp/out"
	start=$(date +%s.%N)
	/usr/bin/env time -f "%U %S" "$1" run "$2" --out "$tmp/out" -j "$jobs" >/dev/null 2>"$tmp/err" || rc=$?
	end=$(date +%s.%N)
	# time(1) still prints the times after a failed command, so the exit
	# status, not the last line, decides whether the run counts.
	if [ "$rc" -ne 0 ] || ! tail -n 1 "$tmp/err" | grep -Eq "^[0-9.]+ [0-9.]+$"; then
		echo "run failed: $1 run $2" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	read -r u s < <(tail -n 1 "$tmp/err")
	awk -v a="$start" -v b="$end" -v u="$u" -v s="$s" 'BEGIN { printf "%.3f %.2f\n", b - a, u + s }' >>"$3"
}
printf '| spec | build | wall s (median of %d) | CPU s (median) | walls |\n|---|---|---|---|---|\n' "$rounds"
for spec in "$@"; do
	: >"$tmp/old" && : >"$tmp/new"
	for _ in $(seq "$rounds"); do
		one "$old" "$spec" "$tmp/old"
		one "$new" "$spec" "$tmp/new"
	done
	for b in old new; do
		bin=$old
		[ $b = new ] && bin=$new
		printf '| %s | %s | %s | %s | %s |\n' "$(basename "$spec" .toml)" "$bin" \
			"$(cut -d' ' -f1 "$tmp/$b" | median)" "$(cut -d' ' -f2 "$tmp/$b" | median)" "$(cut -d' ' -f1 "$tmp/$b" | tr '\n' ' ')"
	done
done
echo "load: $(uptime)"
