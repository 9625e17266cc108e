#!/bin/sh
# Sets up and runs zero's main job: training GAME (default yinsh-blitz) from its preset in
# runs/GAME, resuming the run if the folder holds one. Extra arguments go to `zero train`
# (e.g. --for 1h). Builds with OpenBLAS when it is installed or can be installed (Debian/Ubuntu
# as root), else with gonum's pure-Go BLAS (about 8x slower).
set -eu
cd "$(dirname "$0")/.."
game=${1:-yinsh-blitz}
[ $# -gt 0 ] && shift
have_openblas() {
	for f in /usr/lib/libopenblas.so /usr/lib/*/libopenblas.so /usr/local/lib/libopenblas.so; do
		[ -e "$f" ] && return 0
	done
	return 1
}
if ! have_openblas && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq libopenblas-dev >/dev/null || true
fi
mkdir -p bin
if have_openblas; then
	go build -tags openblas -o bin/zero ./cmd/zero
else
	echo "train.sh: OpenBLAS not found: building with pure-Go BLAS (apt-get install libopenblas-dev for ~8x faster networks)" >&2
	go build -o bin/zero ./cmd/zero
fi
exec bin/zero train --game "$game" "$@"
