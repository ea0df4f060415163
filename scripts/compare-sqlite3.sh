#!/usr/bin/env bash
# Whole-process time of `xkcd-search search …` against the sqlite3 CLI running the equivalent raw
# FTS5 bm25 query on the same index file, side by side, plus the peak RSS of one search process.
#
# usage: scripts/compare-sqlite3.sh [index.sqlite]
#   default index: ~/.local/share/xkcd-search/index.sqlite (built by `make demo`)
#   XKCD_SEARCH_BIN  the binary to time (default: .build/release/xkcd-search of this checkout)
#   FLOOR_BIN        Benchmarks/StartupFloor, built as the release build is (`make compare` does):
#                    a Swift process with Foundation, GRDB and ArgumentParser that runs only the
#                    raw query, timed too when it exists (default: .build-floor/release/StartupFloor)
#   SQLITE_FLOOR_BIN Benchmarks/SQLiteFloor: the same without GRDB and Foundation, SQLite alone,
#                    timed too when it exists (default: .build-floor/release/SQLiteFloor)
#   RUNS             runs per command (default: 50)
#   ROUNDS           the commands take turns in this many rounds of RUNS/ROUNDS runs (default: 5)
#   HYPERFINE=0      time with the date loop even when hyperfine is installed
#
# Needs sqlite3, python3 and GNU time (/usr/bin/time, Debian package `time`); uses hyperfine when
# installed, else a loop over `date +%s%N` and the median.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
db=${1:-$HOME/.local/share/xkcd-search/index.sqlite}
bin=${XKCD_SEARCH_BIN:-$root/.build/release/xkcd-search}
floor=${FLOOR_BIN:-$root/.build-floor/release/StartupFloor}
sqlite_floor=${SQLITE_FLOOR_BIN:-$root/.build-floor/release/SQLiteFloor}
runs=${RUNS:-50}
use_hyperfine=0
[ "${HYPERFINE:-1}" != 0 ] && command -v hyperfine >/dev/null && use_hyperfine=1

die() { echo "error: $*" >&2; exit 1; }
[ -x "$bin" ] || die "no executable at $bin (run \`make build\` or set XKCD_SEARCH_BIN)"
[ -f "$db" ] || die "no index at $db (run \`make demo\` or pass the index file)"
command -v sqlite3 >/dev/null || die "sqlite3 is not installed (Debian package sqlite3)"
command -v python3 >/dev/null || die "python3 is not installed (Debian package python3)"
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (Debian package time)"

# label | CLI query | FTS5 MATCH expression
queries=(
  '2 words|nebraska dependency|"nebraska" "dependency"'
  '5 words|correct horse battery staple password|"correct" "horse" "battery" "staple" "password"'
  'phrase|"little bobby tables"|"little bobby tables"'
  'describe|the one where the neural net learned the wrong thing|"neural" OR "net" OR "learned" OR "wrong" OR "thing"'
)

sql_for() {
  local match=${1//\'/\'\'}
  echo "SELECT c.id, c.title, c.date FROM comicSearch s JOIN comic c ON c.id = s.rowid" \
    "WHERE comicSearch MATCH '$match' ORDER BY bm25(comicSearch, 10, 5, 2, 1) LIMIT 10;"
}

# Median wall-clock milliseconds of each command, run $runs times. The commands take turns, in
# rounds of a few runs each, so that a change in the machine's load over the minute the timing
# takes weighs on all of them alike.
medians_ms() {
  local rounds=${ROUNDS:-5} round
  local per_round=$(((runs + rounds - 1) / rounds))
  local samples
  samples=$(mktemp)
  if [ "$use_hyperfine" = 1 ]; then
    local json
    json=$(mktemp)
    for ((round = 0; round < rounds; round++)); do
      hyperfine --shell=none --warmup 2 --runs "$per_round" --style none --export-json "$json" -- "$@" >/dev/null 2>&1
      # One line per command: its index, then its times in seconds.
      python3 -c 'import json, sys
for i, r in enumerate(json.load(open(sys.argv[1]))["results"]): print(i, *r["times"])' "$json" >>"$samples"
    done
    rm -f "$json"
  else
    local i start end index
    for ((i = 0; i < per_round * rounds; i++)); do
      index=0
      for command in "$@"; do
        start=$(date +%s%N)
        eval "$command" >/dev/null 2>&1
        end=$(date +%s%N)
        echo "$index $(awk -v n=$((end - start)) 'BEGIN { print n / 1e9 }')" >>"$samples"
        index=$((index + 1))
      done
    done
  fi
  python3 -c 'import statistics, sys
times = {}
for line in open(sys.argv[1]):
    index, *values = line.split()
    times.setdefault(int(index), []).extend(float(v) for v in values)
print(" ".join("%.2f" % (statistics.median(times[i]) * 1000) for i in sorted(times)))' "$samples"
  rm -f "$samples"
}

quote() { printf '%q' "$1"; }

echo "index:   $db"
echo "binary:  $bin"
echo "runs:    $runs each, taking turns in ${ROUNDS:-5} rounds ($([ "$use_hyperfine" = 1 ] && echo hyperfine || echo 'date loop'), median), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
[ -x "$floor" ] || floor=""
[ -x "$sqlite_floor" ] || sqlite_floor=""
# Ratios are to the sqlite3 shell's time; "floor" is StartupFloor's, "sqlite" SQLiteFloor's.
ratio_to_shell() { [ "$1" = - ] && echo - || awk -v a="$1" -v b="$raw_ms" 'BEGIN { printf "%.1fx", a / b }'; }
printf '%-8s %-40s %9s %9s %9s %11s %7s %7s %7s\n' \
  "query" "xkcd-search search" "cli ms" "floor ms" "sqlite ms" "sqlite3 ms" "ratio" "floor" "sqlite"
for entry in "${queries[@]}"; do
  IFS='|' read -r label query match <<<"$entry"
  cli="$(quote "$bin") search --db $(quote "$db") --color never $(quote "$query")"
  raw="sqlite3 -readonly $(quote "$db") $(quote "$(sql_for "$match")")"
  # Both must work before they are timed.
  bash -c "$cli" >/dev/null || die "failed: $cli"
  bash -c "$raw" >/dev/null || die "failed: $raw"
  commands=("$cli" "$raw")
  [ -n "$floor" ] && commands+=("$(quote "$floor") $(quote "$db") $(quote "$match")")
  [ -n "$sqlite_floor" ] && commands+=("$(quote "$sqlite_floor") $(quote "$db") $(quote "$match")")
  read -r -a medians < <(medians_ms "${commands[@]}")
  cli_ms=${medians[0]} raw_ms=${medians[1]} floor_ms=- sqlite_ms=-
  next=2
  if [ -n "$floor" ]; then floor_ms=${medians[$next]}; next=$((next + 1)); fi
  if [ -n "$sqlite_floor" ]; then sqlite_ms=${medians[$next]}; fi
  printf '%-8s %-40s %9s %9s %9s %11s %7s %7s %7s\n' "$label" "$query" "$cli_ms" "$floor_ms" "$sqlite_ms" "$raw_ms" \
    "$(ratio_to_shell "$cli_ms")" "$(ratio_to_shell "$floor_ms")" "$(ratio_to_shell "$sqlite_ms")"
done

echo
# Peak RSS of a search by words alone and of one that loads the sentence model (a description
# whose words alone do not settle it, so that the model is asked).
for entry in "${queries[0]}" "${queries[3]}"; do
  query=${entry#*|}
  query=${query%%|*}
  rss=$(/usr/bin/time -v "$bin" search --db "$db" --color never "$query" 2>&1 >/dev/null |
    sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): *//p')
  echo "peak RSS of \`xkcd-search search $query\`: $rss KB ($(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') MB)"
done
