#!/usr/bin/env bash
# Whole-process timing of the GaussMix authors' linear-regression script
# (omrilev1/GaussMix Code_LinearRegression.py, commit 746a96b; the team's
# notes, reference-code.md §1.2) on housing (Boston), wine and bike: the
# anchor of issue 37's row "authors' grid, whole process -j 1", against which
# experiments/timing/gaussmix_authors_{boston,wine,bike}.toml are compared.
#
# Nothing of the authors' code is kept in this repository: the script takes a
# checkout of their repository, copies what the three datasets need into a
# temporary directory, and edits only the line that picks the datasets
# (datasets_run_list = ['tecator'] → ['housing'], ['wine'] or ['bike']); their
# grid is the one the timing specs copy (ε = logspace(−1.2, 1.5, 6), 250
# trials, k = 57, seed 50), and each run saves its PDF figure as the script does.
#
# Needs /usr/bin/python3 with NumPy, SciPy, scikit-learn, pandas, matplotlib
# and tqdm (Debian: apt-get install python3-numpy python3-scipy python3-sklearn
# python3-pandas python3-matplotlib python3-tqdm). utils_linear_mixing.py also
# imports ucimlrepo (not in Debian; only other datasets use it): a stub module
# that raises if called stands in for it.
#
# Usage: scripts/gaussmix_anchor.sh [-n N] [-d DPLAB] AUTHORS_CHECKOUT
# N interleaved rounds (housing, wine, bike in turn; default 3); prints each
# run and the median wall and CPU (user + system) per dataset, with the load.
# With -d, each script run is followed by the same dataset's timing panel
# (experiments/timing/gaussmix_authors_*.toml, run from the repository's
# root, DPLAB_DATA set) run by DPLAB at -j 1 and at -j 2, each into a fresh
# directory, so that both sides meet the same load; the summary then gives
# dplab's medians and the ratio script / dplab -j 1 of the medians.
set -euo pipefail
rounds=3 dplab=
while [ $# -gt 0 ]; do
	case "$1" in
	-n) rounds=$2; shift 2 ;;
	-d) dplab=$(realpath "$2"); shift 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 1 ]; then
	echo "usage: $0 [-n N] [-d DPLAB] AUTHORS_CHECKOUT (a checkout of github.com/omrilev1/GaussMix)" >&2
	exit 2
fi
if [ -n "$dplab" ] && [ ! -f experiments/timing/gaussmix_authors_boston.toml ]; then
	echo "-d: run from the repository's root (experiments/timing/ not found)" >&2
	exit 2
fi
src=$1
py=/usr/bin/python3
for f in Code_LinearRegression.py utils_linear_mixing.py datasets/housing.txt datasets/winequality-red.csv datasets/bike_train.csv; do
	if [ ! -f "$src/$f" ]; then
		echo "$src/$f is missing: give a checkout of github.com/omrilev1/GaussMix" >&2
		exit 2
	fi
done
"$py" -c 'import numpy, scipy, sklearn, pandas, matplotlib, tqdm' || {
	echo "$py lacks a module the script imports (see the packages above)" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/datasets" "$tmp/stub"
cp "$src/utils_linear_mixing.py" "$tmp/"
cp "$src/datasets/housing.txt" "$src/datasets/winequality-red.csv" "$src/datasets/bike_train.csv" "$tmp/datasets/"
printf 'def fetch_ucirepo(*args, **kwargs):\n    raise RuntimeError("ucimlrepo stub: not needed for housing, wine, bike")\n' >"$tmp/stub/ucimlrepo.py"
for d in housing wine bike; do
	sed "s/^datasets_run_list = \['tecator'\]/datasets_run_list = ['$d']/" "$src/Code_LinearRegression.py" >"$tmp/run_$d.py"
	grep -q "^datasets_run_list = \['$d'\]" "$tmp/run_$d.py" || {
		echo "could not set datasets_run_list in Code_LinearRegression.py (another revision?)" >&2
		exit 1
	}
done
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
: >"$tmp/times"
echo "| dataset | wall s | CPU s | load1 |"
echo "|---|---|---|---|"
for _ in $(seq "$rounds"); do
	for d in housing wine bike; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		start=$(date +%s.%N)
		(cd "$tmp" && PYTHONPATH="$tmp/stub" /usr/bin/env time -o "$tmp/t" -f "%U %S" "$py" "run_$d.py" >"$tmp/out" 2>&1) || {
			echo "run_$d.py failed:" >&2
			tail -n 20 "$tmp/out" >&2
			exit 1
		}
		end=$(date +%s.%N)
		read -r u s <"$tmp/t"
		line=$(awk -v d="$d" -v a="$start" -v b="$end" -v u="$u" -v s="$s" 'BEGIN { printf "%s %.2f %.2f", d, b - a, u + s }')
		echo "$line" >>"$tmp/times"
		echo "$line $load" | awk '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }'
		if [ -n "$dplab" ]; then
			spec=boston
			[ "$d" != housing ] && spec=$d
			for j in 1 2; do
				rm -rf "$tmp/dplab-out"
				start=$(date +%s.%N)
				/usr/bin/env time -o "$tmp/t" -f "%U %S" "$dplab" run "experiments/timing/gaussmix_authors_$spec.toml" --out "$tmp/dplab-out" -j "$j" >/dev/null 2>"$tmp/out" || {
					echo "dplab run failed:" >&2
					cat "$tmp/out" >&2
					exit 1
				}
				end=$(date +%s.%N)
				read -r u s <"$tmp/t"
				line=$(awk -v d="$d" -v j="$j" -v a="$start" -v b="$end" -v u="$u" -v s="$s" 'BEGIN { printf "%s-j%s %.3f %.2f", d, j, b - a, u + s }')
				echo "$line" >>"$tmp/times"
				echo "$line" | awk '{ printf "| dplab %s | %s | %s | |\n", $1, $2, $3 }'
			done
		fi
	done
done
for d in housing wine bike; do
	w=$(awk -v d="$d" '$1 == d { print $2 }' "$tmp/times" | median)
	printf '%s: median wall %s s, median CPU %s s (%d runs)' "$d" "$w" \
		"$(awk -v d="$d" '$1 == d { print $3 }' "$tmp/times" | median)" "$rounds"
	if [ -n "$dplab" ]; then
		w1=$(awk -v d="$d-j1" '$1 == d { print $2 }' "$tmp/times" | median)
		w2=$(awk -v d="$d-j2" '$1 == d { print $2 }' "$tmp/times" | median)
		awk -v w="$w" -v a="$w1" -v b="$w2" 'BEGIN { printf "; dplab -j 1 %.3f s, -j 2 %.3f s; ratio %.1fx at -j 1", a, b, w / a }'
	fi
	echo
done
echo "load: $(uptime)"
