#!/usr/bin/env python3
"""Fit the words `relevant` says its answer with ("fits well", "might fit", "a long shot"),
inside k-fold cross-validation by source (issue 38).

Reads the Relevance benchmark's `--dump` lines (one a passage: its source, kind, the right comic's
rank, the first two scores and the first's cosine) and fits a logistic regression of "the first
comic is the right one" on three features: the first score, its lead over the second, and the
first's cosine. For each fold it fits on the others and labels the held-out rows, and reports
how often each word's first comic was right there; then it fits on all rows and prints the
coefficients that SearchEngine+Relevant.swift's `RelevantConfidence` carries.

usage: Relevance --relevant --dump --set … | grep ^dump > dump.tsv
       scripts/relevance-confidence.py dump.tsv [--folds 5]
Pure Python: no package needed.
"""

import argparse
import math

BANDS = [(0.6, "fits well"), (0.3, "might fit"), (0.0, "a long shot")]


def fold_of(source, folds):
    parts = source.split("/")
    key = "/".join(parts[2:5]) if len(parts) > 4 and parts[2] == "github.com" else (parts[2] if len(parts) > 2 else source)
    value = 0xCBF29CE484222325
    for byte in key.lower().encode():
        value = ((value ^ byte) * 0x100000001B3) % (1 << 64)
    return value % folds


def features(row):
    first, second, cosine = float(row[5]), float(row[6]), float(row[7])
    return [1.0, first, first - second, cosine]


def fit(rows, steps=4000, rate=0.5, l2=1e-3):
    # Plain gradient descent on the log loss, features centred by their means for a stable fit.
    xs = [features(r) for r in rows]
    ys = [1.0 if r[4] == "1" else 0.0 for r in rows]
    means = [sum(x[i] for x in xs) / len(xs) for i in range(4)]
    means[0] = 0.0
    centred = [[x[i] - means[i] for i in range(4)] for x in xs]
    w = [0.0] * 4
    for _ in range(steps):
        grad = [0.0] * 4
        for x, y in zip(centred, ys):
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, x))))
            for i in range(4):
                grad[i] += (p - y) * x[i]
        w = [w[i] - rate * (grad[i] / len(xs) + (l2 * w[i] if i else 0)) for i in range(4)]
    # Back to raw features: w·(x - m) = (w0 - Σ wi mi) + Σ wi xi.
    return [w[0] - sum(w[i] * means[i] for i in range(1, 4))] + w[1:]


def probability(w, row):
    return 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, features(row)))))


def word(p):
    return next(name for bound, name in BANDS if p >= bound)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dump")
    parser.add_argument("--folds", type=int, default=5)
    options = parser.parse_args()
    rows = [line.rstrip("\n").split("\t") for line in open(options.dump) if line.startswith("dump\t")]
    tally = {name: [0, 0] for _, name in BANDS}
    per_fold = []
    for fold in range(options.folds):
        train = [r for r in rows if fold_of(r[2], options.folds) != fold]
        test = [r for r in rows if fold_of(r[2], options.folds) == fold]
        w = fit(train)
        fold_tally = {name: [0, 0] for _, name in BANDS}
        for r in test:
            name = word(probability(w, r))
            for t in (tally, fold_tally):
                t[name][0] += r[4] == "1"
                t[name][1] += 1
        per_fold.append(fold_tally)
    print(f"held-out folds ({options.folds}, by source), {len(rows)} passages:")
    for _, name in BANDS:
        right, count = tally[name]
        folds = " ".join(f"{t[name][0]}/{t[name][1]}" for t in per_fold)
        print(f"  {name:12} {count:4} passages ({count / len(rows):.0%}), first right {right / max(count, 1):.0%}   by fold {folds}")
    w = fit(rows)
    print("fitted on all rows: intercept %.4f, first score %.4f, lead %.4f, cosine %.4f" % tuple(w))


if __name__ == "__main__":
    main()
