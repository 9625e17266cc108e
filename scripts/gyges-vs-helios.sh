#!/bin/sh
# Gygès advanced bulk perft, zero against Helios, side by side: runs both whole programs in
# turn (zero, Helios, zero, Helios, ...), RUNS times each, and prints each run's depth-3 line
# and the medians of depth-3 seconds and leaves/s. Helios is not part of this repository: give
# the path of a perft driver built from its move generator as HELIOS (it must take the position
# and the depth as arguments and print "depth leaves seconds leaves/s" lines like zero perft).
# ZERO defaults to a binary built from this tree.
#
#   HELIOS=/path/to/helios_perft scripts/gyges-vs-helios.sh
set -eu
cd "$(dirname "$0")/.."
pos=${POSITION:-"202110/000330/000000/000200/000100/030123 s"}
depth=${DEPTH:-3}
runs=${RUNS:-5}
: "${HELIOS:?set HELIOS to the Helios perft driver}"
if [ -z "${ZERO:-}" ]; then
	ZERO=$(mktemp -d)/zero
	go build -o "$ZERO" ./cmd/zero
fi
grep -m1 "model name" /proc/cpuinfo
out=$(mktemp)
i=0
while [ $i -lt "$runs" ]; do
	"$ZERO" perft --game gyges-advanced --position "$pos" --depth "$depth" --bulk |
		awk -v d="$depth" '$1 == d { print "zero", $2, $3, $4 }' | tee -a "$out"
	"$HELIOS" "$pos" "$depth" |
		awk -v d="$depth" '$1 == d { print "helios", $2, $3, $4 }' | tee -a "$out"
	i=$((i + 1))
done
for who in zero helios; do
	for col in 3 4; do
		grep "^$who " "$out" | awk -v c=$col '{ print $c }' | sort -g |
			awk -v who=$who -v c=$col '{ v[NR] = $1 } END {
				m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%-6s median %s: %s\n", who, c == 3 ? "seconds " : "leaves/s", m }'
	done
done
rm -f "$out"
