#!/bin/bash
# `identify` on the development set (scripts/make-identify-set.py): how often the right comic
# comes first, MRR@5, and each image's whole-process wall time (the release build, one image a
# process: OCR, hashing, ranking and start-up included), median and 95th percentile.
#
# usage: scripts/bench-identify.sh SET_DIR index.sqlite
#   XKCD_SEARCH_BIN  the executable to time (default: .build/release/xkcd-search)
# The index's image hashes come from `xkcd-search index --images` over an image cache holding the
# comics' images (make bench-identify puts the shared images there).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
set_dir=${1:?usage: scripts/bench-identify.sh SET_DIR index.sqlite}
db=${2:?usage: scripts/bench-identify.sh SET_DIR index.sqlite}
bin=${XKCD_SEARCH_BIN:-$root/.build/release/xkcd-search}
python3 - "$bin" "$set_dir" "$db" <<'PYTHON'
import json, statistics, subprocess, sys, time, collections
binary, set_dir, db = sys.argv[1:4]
rows = [line.rstrip("\n").split("\t") for line in open(f"{set_dir}/manifest.tsv")][1:]
first, reciprocal, times = 0, 0.0, []
by_kind = collections.defaultdict(lambda: [0, 0])
for row in rows:
    name, comic = row[0], int(row[1])
    kind = row[2] if len(row) > 2 else "original"
    start = time.monotonic()
    done = subprocess.run([binary, "identify", "--db", db, "--json", "--limit", "5", f"{set_dir}/{name}"],
                          capture_output=True, text=True)
    times.append(time.monotonic() - start)
    try:
        found = [result["num"] for result in json.loads(done.stdout)["results"]]
    except ValueError:
        found = []
    rank = found.index(comic) + 1 if comic in found else 0
    first += rank == 1
    reciprocal += 1 / rank if rank else 0
    by_kind[kind][0] += rank == 1
    by_kind[kind][1] += 1
times.sort()
print(f"images {len(rows)}: top-1 {first}/{len(rows)} = {first / len(rows):.1%}, MRR@5 {reciprocal / len(rows):.3f}")
print("top-1 by kind: " + ", ".join(f"{kind} {hit}/{count}" for kind, (hit, count) in sorted(by_kind.items())))
print(f"wall time a process: median {statistics.median(times):.2f} s, p95 {times[int(0.95 * (len(times) - 1))]:.2f} s")
PYTHON
