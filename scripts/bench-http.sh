#!/usr/bin/env bash
# Requests/s and p50/p99 latency of `xkcd-search serve` under wrk, at 1, 8 and 64 connections, for
# a two-word search, a 12-word description (the encoder's cost), a comic and a suggestion; beside
# it Datasette serving the same index file immutable (`datasette -i`), answering the same ranked
# FTS5 query as JSON. Ends with each server's peak RSS. `make bench-http` runs it.
#
# usage: scripts/bench-http.sh index.sqlite datasette-venv
#   XKCD_SEARCH_BIN  the release build to serve with (default: .build/release/xkcd-search)
#   DURATION         each wrk run (default: 10s), after a 2 s warm-up of the same request
#   CONNECTIONS      (default: "1 8 64"); wrk runs min(connections, 2) threads
#
# Everything runs on this machine over loopback, wrk included: on a 2-core machine wrk takes CPU
# from the server, for both servers alike.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
db=${1:?usage: scripts/bench-http.sh index.sqlite datasette-venv}
venv=${2:?usage: scripts/bench-http.sh index.sqlite datasette-venv}
bin=${XKCD_SEARCH_BIN:-$root/.build/release/xkcd-search}
duration=${DURATION:-10s}
connections=${CONNECTIONS:-1 8 64}

die() { echo "error: $*" >&2; exit 1; }
[ -x "$bin" ] || die "no executable at $bin (run \`make build\`)"
[ -f "$db" ] || die "no index at $db (run \`make demo\` or pass DB=)"
[ -x "$venv/bin/datasette" ] || die "no datasette in $venv"
command -v wrk >/dev/null || die "wrk is not installed (Debian package wrk)"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits for a line matching $2 in file $1 (what the server prints once it listens); gives up after
# two minutes, saying what did not start.
wait_for_line() {
  local tries=1200
  until grep -q "$2" "$1" 2>/dev/null; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || die "$3 did not start: $(tail -n 3 "$1" "$1.err" 2>/dev/null)"
    sleep 0.1
  done
}

# The access log is part of the server as it runs; it goes to a file, as a service manager's would.
"$bin" serve --db "$db" --port 0 --read-only >"$work/xkcd.out" 2>"$work/xkcd.out.err" &
pids+=($!)
xkcd_pid=$!
wait_for_line "$work/xkcd.out" '^serving http' "xkcd-search serve"
xkcd=$(sed -n 's/^serving \(http[^ ]*\)\/$/\1/p' "$work/xkcd.out" | head -n 1)

# Datasette's database name is the file's name without its extension; immutable (-i): no locking,
# no change counting, as for a file that is published and not written.
name=$(basename "$db"); name=${name%.*}
port=$("$venv/bin/python3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$venv/bin/datasette" serve -i "$db" --host 127.0.0.1 --port "$port" --setting sql_time_limit_ms 10000 \
  >"$work/datasette.out" 2>&1 &
pids+=($!)
datasette_pid=$!
wait_for_line "$work/datasette.out" 'Uvicorn running' "datasette"
datasette="http://127.0.0.1:$port"

# The ranked FTS5 query of scripts/compare-sqlite3.sh, with a snippet a result as the API gives.
sql() {
  "$venv/bin/python3" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' \
    "SELECT c.id, c.title, c.date, snippet(comicSearch, -1, '', '', '…', 12) AS snippet FROM comicSearch s JOIN comic c ON c.id = s.rowid WHERE comicSearch MATCH '$1' ORDER BY bm25(comicSearch, 10, 5, 2, 1) LIMIT 10"
}

words='bobby tables'
description='the one where the neural net learned the wrong thing from data'
encode() { "$venv/bin/python3" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1"; }

# label | URL
requests=(
  "xkcd-search: two words|$xkcd/api/search?q=$(encode "$words")"
  "Datasette: two words|$datasette/$name.json?sql=$(sql '"bobby" "tables"')"
  "xkcd-search: 12-word description|$xkcd/api/search?q=$(encode "$description")"
  "xkcd-search: a comic|$xkcd/api/comics/327"
  "Datasette: a comic|$datasette/$name.json?sql=$(encode 'SELECT id, title, date, alt, transcript FROM comic WHERE id = 327')"
  "xkcd-search: a suggestion|$xkcd/api/suggest?q=$(encode 'bobby tab')"
)

# Milliseconds of a wrk latency figure (`812.00us`, `1.52ms`, `2.01s`).
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); printf "%.2f", v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.2f", v }
    else if (v ~ /m$/) { sub(/m$/, "", v); printf "%.0f", v * 60000 }
    else { sub(/s$/, "", v); printf "%.0f", v * 1000 } }'
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; wrk $duration a run"
for request in "${requests[@]}"; do
  label=${request%%|*}
  url=${request#*|}
  status=$(curl -s -o "$work/answer" -w '%{http_code}' "$url" || true)
  [ "$status" = 200 ] || die "$label: HTTP $status for $url: $(head -c 300 "$work/answer")"
  wrk -t 1 -c 1 -d 2s "$url" >/dev/null
  for c in $connections; do
    threads=$((c < 2 ? c : 2))
    wrk -t "$threads" -c "$c" -d "$duration" --latency "$url" >"$work/wrk" 2>&1
    rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$work/wrk")
    p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$work/wrk")")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$work/wrk")")
    errors=$(awk '/Non-2xx|Socket errors/ { print }' "$work/wrk" | tr '\n' ' ')
    printf '| %s | %s | %s | %s ms | %s ms | %s\n' "$label" "$c" "$rps" "$p50" "$p99" "${errors:-}"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

peak() { awk '/^VmHWM/ { printf "%.1f MB", $2 / 1024 }' "/proc/$1/status"; }
# Datasette's server is the python process `datasette` started (uvicorn in it, no workers).
echo "peak RSS: xkcd-search serve $(peak "$xkcd_pid"); Datasette $(peak "$datasette_pid")"
