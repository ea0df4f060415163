#!/usr/bin/env python3
"""Choose `relevant`'s constants inside k-fold cross-validation (issue 38).

Runs the Relevance benchmark (Benchmarks/Relevance) once for every setting of a grid over all
the passage sets, with `--folds K`, and then, for each fold in turn, picks the setting with the
best MRR@10 on the other folds and reports what it scores on the fold held out. The mean and
spread of those held-out scores are the figure to quote: no fold's score was used to choose its
own setting. It also prints the settings chosen, so that one that wins in every fold can become
the default.

usage: scripts/relevance-folds.py RELEVANCE_BINARY [--folds 5] [--jobs 2] [--grid small|written]
  XKCD_SEARCH_MODEL and --db as for the benchmark (the environment is passed on).
"""

import argparse
import glob
import itertools
import os
import re
import statistics
import subprocess
from concurrent.futures import ThreadPoolExecutor

SETS = ",".join(sorted(glob.glob("Benchmarks/Relevance/situations*.tsv")))
GRIDS = {
    "small": {"--passage-words": [12, 20, 30], "--passage-weight": [0.2, 0.3, 0.45],
              "--title-weight": [0.1, 0.2, 0.3], "--link-weight": [0.0, 0.15, 0.3]},
    # The situations written for every comic (docs/ranking.md): their weight and threshold.
    "written": {"--written-weight": [0.5, 1, 1.5, 2, 3], "--written-threshold": [0.2, 0.25, 0.3, 0.4]},
}
# Each grid's point that is the shipped setting (RelevantSettings), reported beside the choice.
DEFAULTS = {
    "small": {"--passage-words": 20, "--passage-weight": 0.3, "--title-weight": 0.2, "--link-weight": 0.15},
    "written": {"--written-weight": 2, "--written-threshold": 0.3},
}


def run(binary, folds, setting):
    arguments = [binary, "--relevant", "--folds", str(folds), "--set", SETS]
    for name, value in setting:
        arguments += [name, str(value)]
    out = subprocess.run(arguments, capture_output=True, text=True, check=True).stdout
    scores = {}
    for kind in ("situation", "descriptio", "all"):
        line = next(l for l in out.splitlines() if l.startswith(kind) and "mean" in l)
        values = [float(x) for x in line.split("mean")[0].split()[1:]]
        counts = [int(x) for x in re.search(r"rows \[([^\]]*)\]", line).group(1).split(",")]
        scores[kind] = (values, counts)
    return setting, scores


def pooled(values, counts, keep):
    return sum(values[i] * counts[i] for i in keep) / max(sum(counts[i] for i in keep), 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--grid", default="small")
    parser.add_argument("--kind", default="all", help="what a setting is chosen on: all or situation")
    options = parser.parse_args()
    grid = GRIDS[options.grid]
    settings = [tuple(zip(grid, values)) for values in itertools.product(*grid.values())]
    with ThreadPoolExecutor(options.jobs) as pool:
        results = list(pool.map(lambda s: run(options.binary, options.folds, s), settings))
    default = next(r for r in results if dict(r[0]) == DEFAULTS[options.grid])
    for kind in ("situation", "descriptio", "all"):
        held = []
        for fold in range(options.folds):
            others = [i for i in range(options.folds) if i != fold]
            best = max(results, key=lambda r: pooled(*r[1][options.kind], others))
            values, counts = best[1][kind]
            held.append(values[fold])
            if kind == "all":
                print(f"fold {fold}: chosen {dict(best[0])}")
        values, counts = default[1][kind]
        print(f"{kind:10} held-out folds {' '.join(f'{v:.3f}' for v in held)}  mean {statistics.mean(held):.3f} "
              f"sd {statistics.stdev(held):.3f}   the default setting: mean {statistics.mean(values):.3f} "
              f"sd {statistics.stdev(values):.3f}")


if __name__ == "__main__":
    main()
