#!/bin/sh
# Sets up and runs zero's main job: training GAME (default yinsh-blitz) from its preset in
# runs/GAME, resuming the run if the folder holds one. Extra arguments go to `zero train`
# (e.g. --for 1h). Builds with the fastest backends it has or can install (Debian/Ubuntu as
# root): oneDNN (libdnnl-dev: the network on oneDNN's primitives, about 2x the OpenBLAS engine
# on AVX-512, more in bfloat16 on AMX) and OpenBLAS (libopenblas-dev: the BLAS of training and
# of the fallback engine), else gonum's pure-Go BLAS (about 8x slower).
set -eu
cd "$(dirname "$0")/.."
game=${1:-yinsh-blitz}
[ $# -gt 0 ] && shift
have_lib() { # have_lib NAME: libNAME.so is installed
	for f in /usr/lib/lib$1.so /usr/lib/*/lib$1.so /usr/local/lib/lib$1.so; do
		[ -e "$f" ] && return 0
	done
	return 1
}
have_openblas() { have_lib openblas; }
have_dnnl() { have_lib dnnl && [ -e /usr/include/oneapi/dnnl/dnnl.h ]; }
if ! { have_openblas && have_dnnl; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	apt-get update -qq || true
	have_openblas || apt-get install -y -qq libopenblas-dev >/dev/null || true
	have_dnnl || apt-get install -y -qq libdnnl-dev >/dev/null || true
fi
tags=""
have_openblas && tags="openblas"
have_dnnl && tags="${tags:+$tags,}dnnl"
have_openblas || echo "train.sh: OpenBLAS not found: training on pure-Go BLAS (apt-get install libopenblas-dev for ~8x faster)" >&2
have_dnnl || echo "train.sh: oneDNN not found: the network runs on the BLAS engine (apt-get install libdnnl-dev for ~2x faster self-play)" >&2
mkdir -p bin
go build ${tags:+-tags "$tags"} -o bin/zero ./cmd/zero
exec bin/zero train --game "$game" "$@"
