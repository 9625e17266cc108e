#!/bin/bash
# Runs YINSH perft to depth 5 from the docs/BENCHMARKS.md position (40 plies into a random game,
# 9,967,378 leaves, every node made) with zero and with yngine (temhelk/yngine, C++),
# interleaved (zero, yngine, zero, yngine, ...), each run a whole process, and prints each
# one's median depth-5 rate (as the program reports it), median whole-process wall time and
# median whole-process CPU time (user+sys: less disturbed than wall time when other processes
# share the cores), and the best of each.
#
# Needs yngine built outside this repository, with a perft driver that takes zero's notation:
# /work/ext/yngine/yngine-perft by default (YNGINE=path to change it; /work/ext/yngine/build.sh
# builds it). No yngine code is in this repository. ZERO=path uses a built zero binary instead
# of building one from this checkout. RUNS=n sets the runs per program (default 5).
set -eu
cd "$(dirname "$0")/.."
YNGINE=${YNGINE:-/work/ext/yngine/yngine-perft}
RUNS=${RUNS:-5}
if [ ! -x "$YNGINE" ]; then
	echo "bench-yinsh-vs-yngine: no yngine perft driver at $YNGINE (set YNGINE)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${ZERO:-}" ]; then
	go build -o "$tmp/bin/zero" ./cmd/zero
	ZERO=$tmp/bin/zero
fi
moves="place k7;place a3;place h9;place c3;place d3;place d9;place i6;place c7;place f2;place g3;move h9-f9;move c3-c2;move d3-d1;move c7-f10;move i6-d6;move d9-d8;move f9-g10;move c2-e2;move k7-i7;move g3-b3;move d1-e1;move d8-b6;move g10-g11;move b3-c4;move i7-e7;move e2-f3;move g11-g9;move a3-a5;move d6-c5;move f3-h3;move e7-e4;move h3-g2;move e4-b1;move b6-b7;move c5-b5;move c4-c1;move g9-i11;move g2-g4;move f2-d2;move c1-c6"

# run NAME CMD...: one whole-process run; appends "rate wall cpu" to $tmp/NAME.
run() {
	local name=$1
	shift
	local t0 t1 out line wall cpu
	t0=$(date +%s.%N)
	out=$(/usr/bin/time -f "cpu %U %S" -o "$tmp/time" "$@" --depth 5 --moves "$moves")
	t1=$(date +%s.%N)
	line=$(echo "$out" | awk '$1 == 5 { print $2, $4 }')
	set -- $line
	if [ "${1:-}" != 9967378 ]; then
		echo "bench-yinsh-vs-yngine: $name did not count 9967378 leaves at depth 5:" >&2
		echo "$out" >&2
		exit 1
	fi
	wall=$(echo "$t1 - $t0" | bc)
	cpu=$(awk '$1 == "cpu" { print $2 + $3 }' "$tmp/time")
	echo "$2 $wall $cpu" >>"$tmp/$name"
	printf '%-7s %12.0f leaves/s %7.3f s wall %7.3f s cpu\n' "$name" "$2" "$wall" "$cpu"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

grep -m1 "model name" /proc/cpuinfo || true
for i in $(seq "$RUNS"); do
	run zero "$ZERO" perft
	run yngine "$YNGINE"
done
for name in zero yngine; do
	rate=$(cut -d' ' -f1 "$tmp/$name" | median)
	wall=$(cut -d' ' -f2 "$tmp/$name" | median)
	cpu=$(cut -d' ' -f3 "$tmp/$name" | median)
	printf 'median %-7s %12.0f leaves/s %7.3f s wall %7.3f s cpu\n' "$name" "$rate" "$wall" "$cpu"
	printf 'best   %-7s %12.0f leaves/s %7.3f s wall %7.3f s cpu\n' "$name" \
		"$(cut -d' ' -f1 "$tmp/$name" | sort -g | tail -1)" \
		"$(cut -d' ' -f2 "$tmp/$name" | sort -g | head -1)" \
		"$(cut -d' ' -f3 "$tmp/$name" | sort -g | head -1)"
	eval "${name}_rate=$rate ${name}_wall=$wall ${name}_cpu=$cpu"
done
echo "zero/yngine (medians): rate $(echo "scale=2; $zero_rate / $yngine_rate" | bc)x;" \
	"yngine/zero: wall time $(echo "scale=2; $yngine_wall / $zero_wall" | bc)x, cpu time $(echo "scale=2; $yngine_cpu / $zero_cpu" | bc)x"
