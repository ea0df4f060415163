#!/usr/bin/env bash
# The meaning step of a search in a process that searches again (the REPL, as the server does),
# beside ONNX Runtime embedding the same words: issue 37's aim is the whole step (embedding the
# query, comparing it with every comic's vector, fusing with the words) at or under ONNX Runtime
# int8's embedding alone. `make compare` runs it; figures in docs/int8.md.
#
# The REPL reads the same description ROUNDS × 300 times on a copy of the index, its -v log times
# each meaning step, and the last 200 of each round count (the first keep the vectors and the
# link counts, and pack the weights). Then `make anchor` times ONNX Runtime on the words the
# model read (the log says which: "a comic about" and such are not embedded).
#
# usage: scripts/compare-meaning.sh [index.sqlite]
#   default index: ~/.local/share/xkcd-search/index.sqlite (built by `make demo`)
#   XKCD_SEARCH_BIN  the binary (default: .build/release/xkcd-search of this checkout)
#   MEANING_QUERY    the description (default below: 12 words reach the model)
#   ROUNDS           default 3
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
db=${1:-$HOME/.local/share/xkcd-search/index.sqlite}
bin=${XKCD_SEARCH_BIN:-$root/.build/release/xkcd-search}
query=${MEANING_QUERY:-"a comic about a programmer who adds one more standard to replace all the competing ones"}
rounds=${ROUNDS:-3}
die() { echo "error: $*" >&2; exit 1; }
[ -f "$db" ] || die "no index at $db (run make demo, or pass one)"
[ -x "$bin" ] || die "no binary at $bin (run make build)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy, so that the REPL's history and the comic shown last touch nothing of the person's.
cp "$db" "$work/index.sqlite"
for _ in $(seq 300); do printf '%s\n' "$query"; done > "$work/queries"

embedded=""
echo "| round | meaning step p10 | p50 | p90 |"
echo "|---|--:|--:|--:|"
for round in $(seq "$rounds"); do
    XDG_STATE_HOME="$work/state" "$bin" --db "$work/index.sqlite" -v --no-pager --color never repl \
        < "$work/queries" > /dev/null 2> "$work/log" || die "the REPL failed: $(tail -n 1 "$work/log")"
    grep -q 'embedded and ranked with the words' "$work/log" \
        || die "the meaning was not asked for \"$query\" (the words settled it, or no model): see -v"
    embedded=$(grep -m 1 -o 'meaning: "[^"]*"' "$work/log" | sed 's/^meaning: "//; s/"$//')
    sed -n 's/.*embedded and ranked with the words in \([0-9.]*\) \{0,1\}ms.*/\1/p' "$work/log" | tail -n 200 \
        | sort -n | awk -v round="$round" '{ v[NR] = $1 } END {
            printf "| %d | %.2f ms | %.2f ms | %.2f ms |\n", round, v[int(NR * 0.1)], v[int(NR * 0.5)], v[int(NR * 0.9)] }'
done
echo
echo "words the model read ($(wc -w <<< "$embedded")): $embedded"
echo "$embedded" > "${MEANING_TEXT_FILE:-/dev/null}"
