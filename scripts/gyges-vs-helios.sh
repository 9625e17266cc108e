#!/bin/sh
# Gygès advanced bulk perft, zero against Helios, side by side: runs both whole programs in
# turn (zero, Helios, zero, Helios, ...), RUNS times each, and prints each run's depth-DEPTH
# line (leaves, seconds, leaves/s as the program reports them) with the process's user CPU
# seconds (all depths, start-up included), then the medians. On a shared machine the CPU
# seconds are the steadier figure: wall time counts the time others held the cores.
#
# Helios is not part of this repository: give the path of a perft driver built from its move
# generator as HELIOS; it must take the position and the depth as arguments and print
# "depth leaves seconds leaves/s" lines as zero perft does. ZERO defaults to a binary built
# from this tree.
#
#   HELIOS=/path/to/helios_perft scripts/gyges-vs-helios.sh
set -eu
cd "$(dirname "$0")/.."
pos=${POSITION:-"202110/000330/000000/000200/000100/030123 s"}
depth=${DEPTH:-3}
runs=${RUNS:-5}
: "${HELIOS:?set HELIOS to the Helios perft driver}"
tmp=$(mktemp -d)
if [ -z "${ZERO:-}" ]; then
	ZERO=$tmp/zero
	go build -o "$ZERO" ./cmd/zero
fi
grep -m1 "model name" /proc/cpuinfo
out=$tmp/runs
# one WHO COMMAND...: runs the command, appends "WHO leaves seconds leaves/s cpu-seconds".
one() {
	who=$1
	shift
	/usr/bin/time -f "%U" -o "$tmp/cpu" "$@" >"$tmp/out"
	awk -v d="$depth" -v who="$who" -v cpu="$(cat "$tmp/cpu")" \
		'$1 == d { print who, $2, $3, $4, cpu }' "$tmp/out" | tee -a "$out"
}
i=0
while [ $i -lt "$runs" ]; do
	one zero "$ZERO" perft --game gyges-advanced --position "$pos" --depth "$depth" --bulk
	one helios "$HELIOS" "$pos" "$depth"
	i=$((i + 1))
done
for who in zero helios; do
	for col in 3 4 5; do
		grep "^$who " "$out" | awk -v c=$col '{ print $c }' | sort -g |
			awk -v who=$who -v c=$col '{ v[NR] = $1 } END {
				m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				name = c == 3 ? "seconds" : c == 4 ? "leaves/s" : "cpu seconds"
				printf "%-6s median %-11s %s\n", who, name, m }'
	done
done
rm -rf "$tmp"
