#!/bin/sh
# Builds gemm-bench.c once per library and runs each on one thread (docs/semantic-search.md,
# "Matrix library"). Needs libopenblas-dev, libblis-dev, libxsmm-dev and libdnnl-dev.
# usage: Benchmarks/GEMM/run.sh [TOKENS]    (7, 14, 27 or 40; all four when omitted)
set -e
source=$(dirname "$0")/gemm-bench.c
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -march=native -DUSE_OPENBLAS -I/usr/include/x86_64-linux-gnu/openblas-pthread "$source" -o "$out/openblas" \
  /usr/lib/x86_64-linux-gnu/libopenblas.a -lpthread -lm
cc -O2 -march=native -DUSE_BLIS -I/usr/include/x86_64-linux-gnu/blis-openmp "$source" -o "$out/blis" -lblis -lm
cc -O2 -march=native -DUSE_XSMM "$source" -o "$out/xsmm" /usr/lib/libxsmm.a /usr/lib/libxsmmnoblas.a -lpthread -lm -ldl
cc -O2 -march=native -DUSE_DNNL "$source" -o "$out/dnnl" -ldnnl -lm
cc -O2 -march=native -DUSE_DNNL_INT8 "$source" -o "$out/dnnl8" -ldnnl -lm
export OMP_NUM_THREADS=1 BLIS_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
uptime
"$out/openblas" "$@"; WEIGHTS=ab "$out/openblas" "$@"
"$out/blis" "$@"
"$out/xsmm" "$@"
"$out/dnnl" "$@"; WEIGHTS=ab "$out/dnnl" "$@"; WEIGHTS=ba "$out/dnnl" "$@"
"$out/dnnl8" "$@"; WEIGHTS=ba "$out/dnnl8" "$@"
