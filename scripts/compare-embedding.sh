#!/bin/sh
# Embedding a query in process, this project's encoder beside ONNX Runtime on this machine
# (`make compare` runs it after the whole-process comparison): Benchmarks/EmbedOnce embeds each of
# the three queries of scripts/onnx-anchor.py 500 times after opening the model, in int8 where the
# processor has VNNI (the weights packed from the second pass on, as in the REPL and the server)
# and with the weights widened to float32 (DNNL_MAX_CPU_ISA=AVX512_CORE: what a processor without
# VNNI runs); then `make anchor` times ONNX Runtime fp32 and int8 on the same queries. One thread
# each. Figures in docs/int8.md.
#
# usage: scripts/compare-embedding.sh EMBEDONCE    (XKCD_SEARCH_MODEL: the model directory)
set -eu
embed=$1
# The queries of scripts/onnx-anchor.py, by their number of words.
q5="nebraska dependency fragile internet infrastructure"
q12="the comic where a programmer is attacked by a dinosaur for using goto"
q25="there is that one about a huge stack of blocks that is modern digital infrastructure and it all rests on one tiny project some random person has been thanklessly maintaining"

time_of() {
    # EmbedOnce prints "tokens N p50 S seconds p99 S seconds" on its last line.
    "$@" | tail -n 1 | awk '{ printf "p50 %.2f ms, p99 %.2f ms (%d tokens)", $4 * 1000, $7 * 1000, $2 }'
}

echo "| query | xkcd-search int8 | xkcd-search, weights widened to float32 |"
echo "|---|---|---|"
for words in 5 12 25; do
    eval "text=\$q$words"
    int8=$(time_of "$embed" "$text" 500)
    widened=$(DNNL_MAX_CPU_ISA=AVX512_CORE time_of "$embed" "$text" 500)
    echo "| $words words | $int8 | $widened |"
done
