#!/usr/bin/env python3
"""Fold evaluation of learned re-rankers over the top-50 candidates of `relevant`.

Run in a virtual environment outside the repository holding lightgbm, numpy and scikit-learn (PyPI):
    python3 -m venv ~/.cache/xkcd-search-build/ranker-venv
    ~/.cache/xkcd-search-build/ranker-venv/bin/pip install lightgbm numpy scikit-learn
    ~/.cache/xkcd-search-build/ranker-venv/bin/python scripts/ranker/eval.py CANDIDATES [OUT_DIR] [--write-model]

Outer CV: 5 folds by source (FNV-1a 64 of the source key, mod 5).
Inner CV (hyper-parameter choice): leave-one-fold-out over the 4 training folds,
judged on MRR@10 of all inner held-out passages. The held-out fold is never seen.
"""
import json
import math
import sys
from collections import OrderedDict

import numpy as np
import lightgbm as lgb
from sklearn.linear_model import LogisticRegression

# Usage: python3 scripts/ranker/eval.py CANDIDATES [OUT_DIR] [--write-model], CANDIDATES being the output
# of `Relevance --relevant --candidates --folds 5 --set ...` (docs/ranking.md, "A learned re-ranker").
HERE = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else "."
SRC = sys.argv[1] if len(sys.argv) > 1 else "candidates.txt"

FEATURES = [
    "score",            # fused score
    "scoreRatio",       # score / top score of the passage
    "scoreGap",         # score - top score of the passage
    "rank",             # current 1-based rank
    "similarity",       # cosine passage/comic
    "simRank",          # 1-based rank of similarity within the passage (1 = highest)
    "simGap",           # similarity - max similarity of the passage
    "holdsTitle",       # 0/1
    "logLinkedFrom",    # log1p(linkedFrom)
    "wordsShared",      # count
    "wordsSharedFrac",  # wordsShared / passageWords (0 when passageWords == 0)
    "passageWords",     # distinct content words of the passage
    "sentence",         # 0/1
    "year",             # comic year
]


def fnv1a64(s):
    h = 0xcbf29ce484222325
    for b in s.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def fold_of(source):
    parts = source.split("/")
    if len(parts) > 3 and parts[2] == "github.com":
        key = "/".join(parts[2:5])
    else:
        key = parts[2]
    return fnv1a64(key.lower()) % 5


def load():
    passages = []  # list of dicts
    prev = None
    with open(SRC, encoding="utf-8") as f:
        for ln in f:
            if not ln.startswith("cand\t"):
                continue
            c = ln.rstrip("\n").split("\t")
            line, source, kind = c[1], c[2], c[3]
            if (line, source) != prev:
                passages.append(dict(line=line, source=source, kind=kind, rows=[]))
                prev = (line, source)
            p = passages[-1]
            assert p["kind"] == kind
            p["rows"].append(dict(
                rel=int(c[4]), rank=int(c[5]), score=float(c[6]), sim=float(c[7]),
                holdsTitle=int(c[8]), linkedFrom=int(c[9]), wordsShared=int(c[10]),
                passageWords=int(c[11]), sentence=int(c[12]), comic=int(c[13]), year=int(c[14])))
    for p in passages:
        p["rows"].sort(key=lambda r: r["rank"])
        p["fold"] = fold_of(p["source"])
        p["X"] = features(p["rows"])
        p["y"] = np.array([r["rel"] for r in p["rows"]], dtype=np.float64)
        p["base"] = -np.array([r["rank"] for r in p["rows"]], dtype=np.float64)
    return passages


def features(rows):
    score = np.array([r["score"] for r in rows])
    sim = np.array([r["sim"] for r in rows])
    top = score.max()
    maxsim = sim.max()
    # similarity rank: 1 + number of candidates with strictly higher similarity
    simrank = np.array([1 + int((sim > s).sum()) for s in sim], dtype=np.float64)
    out = []
    for i, r in enumerate(rows):
        pw = r["passageWords"]
        out.append([
            r["score"],
            r["score"] / top if top != 0 else 0.0,
            r["score"] - top,
            r["rank"],
            r["sim"],
            simrank[i],
            r["sim"] - maxsim,
            r["holdsTitle"],
            math.log1p(r["linkedFrom"]),
            r["wordsShared"],
            r["wordsShared"] / pw if pw > 0 else 0.0,
            pw,
            r["sentence"],
            r["year"],
        ])
    return np.array(out, dtype=np.float64)


def rr10(scores, y, ranks):
    """Reciprocal rank @10 of the relevant candidate when ordered by scores desc
    (ties broken by the current rank). 0 if absent or below 10."""
    if y.sum() == 0:
        return 0.0
    order = sorted(range(len(y)), key=lambda i: (-scores[i], ranks[i]))
    for pos, i in enumerate(order[:10]):
        if y[i] > 0:
            return 1.0 / (pos + 1)
    return 0.0


def mrr(ps, scorer):
    v = [rr10(scorer(p), p["y"], p["X"][:, 3]) for p in ps]
    return float(np.mean(v)) if v else float("nan"), v


def stack(ps):
    X = np.vstack([p["X"] for p in ps])
    y = np.concatenate([p["y"] for p in ps])
    g = [len(p["rows"]) for p in ps]
    return X, y, g


# ---------------- LightGBM lambdarank ----------------
LGB_GRID = [dict(num_leaves=nl, min_data_in_leaf=md) for nl in (3, 7, 15) for md in (20, 50, 100)]
LGB_TREES = (25, 50, 100, 150, 200)


def lgb_params(hp):
    return dict(objective="lambdarank", metric="ndcg", ndcg_eval_at=[10],
                learning_rate=0.05, num_leaves=hp["num_leaves"],
                min_data_in_leaf=hp["min_data_in_leaf"], num_threads=1,
                deterministic=True, force_row_wise=True, seed=1, verbose=-1,
                feature_pre_filter=False)


def lgb_fit(ps, hp, trees):
    X, y, g = stack(ps)
    ds = lgb.Dataset(X, y, group=g, feature_name=FEATURES, free_raw_data=False)
    return lgb.train(lgb_params(hp), ds, num_boost_round=trees)


def lgb_choose(train):
    folds = sorted(set(p["fold"] for p in train))
    res = {}
    for hp in LGB_GRID:
        per_t = {t: [] for t in LGB_TREES}
        for f in folds:
            tr = [p for p in train if p["fold"] != f]
            va = [p for p in train if p["fold"] == f]
            b = lgb_fit(tr, hp, max(LGB_TREES))
            for t in LGB_TREES:
                _, v = mrr(va, lambda p: b.predict(p["X"], num_iteration=t))
                per_t[t] += v
        for t in LGB_TREES:
            res[(hp["num_leaves"], hp["min_data_in_leaf"], t)] = float(np.mean(per_t[t]))
    best = max(res, key=lambda k: (res[k], -k[0], -k[2]))
    return dict(num_leaves=best[0], min_data_in_leaf=best[1]), best[2], res[best]


# ---------------- logistic regression ----------------
LR_C = (0.001, 0.01, 0.1, 1.0, 10.0)


def lr_fit(ps, C):
    X, y, _ = stack(ps)
    mu, sd = X.mean(0), X.std(0)
    sd[sd == 0] = 1
    m = LogisticRegression(C=C, max_iter=2000)
    m.fit((X - mu) / sd, y)
    return lambda Xn: m.decision_function((Xn - mu) / sd), m, mu, sd


def lr_choose(train):
    folds = sorted(set(p["fold"] for p in train))
    res = {}
    for C in LR_C:
        v = []
        for f in folds:
            tr = [p for p in train if p["fold"] != f]
            va = [p for p in train if p["fold"] == f]
            pred, *_ = lr_fit(tr, C)
            v += mrr(va, lambda p: pred(p["X"]))[1]
        res[C] = float(np.mean(v))
    best = max(res, key=lambda c: (res[c], -c))
    return best, res[best]


def summary(name, per_fold):
    """per_fold: dict kind -> list of 5 MRR values"""
    lines = []
    for k in ("situation", "description", "all"):
        v = np.array(per_fold[k])
        lines.append(f"{name:10s} {k:12s} " + " ".join(f"{x:.3f}" for x in v)
                     + f"   mean {v.mean():.3f} sd {v.std(ddof=1):.3f}")
    return lines


def main():
    ps = load()
    print(f"passages {len(ps)}  situations {sum(p['kind']=='situation' for p in ps)}"
          f"  descriptions {sum(p['kind']=='description' for p in ps)}"
          f"  with relevant in top50 {sum(p['y'].sum()>0 for p in ps)}")
    per = {m: {k: [] for k in ("situation", "description", "all")} for m in ("baseline", "lgb", "logreg")}
    rrs = {m: {} for m in per}  # passage index -> rr
    imps = np.zeros(len(FEATURES))
    chosen = []
    idx = {id(p): i for i, p in enumerate(ps)}
    for f in range(5):
        train = [p for p in ps if p["fold"] != f]
        test = [p for p in ps if p["fold"] == f]
        hp, trees, inner = lgb_choose(train)
        booster = lgb_fit(train, hp, trees)
        imps += booster.feature_importance("gain") / booster.feature_importance("gain").sum()
        C, inner_lr = lr_choose(train)
        lrpred, *_ = lr_fit(train, C)
        chosen.append(dict(fold=f, lgb=dict(hp, trees=trees, inner_mrr=round(inner, 4)),
                           logreg=dict(C=C, inner_mrr=round(inner_lr, 4))))
        scorers = dict(baseline=lambda p: p["base"],
                       lgb=lambda p: booster.predict(p["X"]),
                       logreg=lambda p: lrpred(p["X"]))
        for m, s in scorers.items():
            for p in test:
                rrs[m][idx[id(p)]] = rr10(s(p), p["y"], p["X"][:, 3])
            for k in ("situation", "description", "all"):
                sub = [idx[id(p)] for p in test if k == "all" or p["kind"] == k]
                per[m][k].append(float(np.mean([rrs[m][i] for i in sub])))
        print(f"fold {f}: n={len(test)} chosen {chosen[-1]}", flush=True)

    print()
    out = []
    for m in per:
        out += summary(m, per[m])
    print("\n".join(out))

    print("\nrows that move (held-out, per passage RR@10 vs baseline):")
    moves = {}
    for m in ("lgb", "logreg"):
        for k in ("situation", "description", "all"):
            ids = [i for i, p in enumerate(ps) if k == "all" or p["kind"] == k]
            up = sum(rrs[m][i] > rrs["baseline"][i] + 1e-12 for i in ids)
            dn = sum(rrs[m][i] < rrs["baseline"][i] - 1e-12 for i in ids)
            top1_gain = sum(rrs[m][i] == 1 and rrs["baseline"][i] < 1 for i in ids)
            top1_loss = sum(rrs[m][i] < 1 and rrs["baseline"][i] == 1 for i in ids)
            moves[(m, k)] = (up, dn, top1_gain, top1_loss)
            print(f"{m:7s} {k:12s} improve {up:3d} worsen {dn:3d}  unchanged {len(ids)-up-dn:3d}"
                  f"  newly@1 {top1_gain} lost@1 {top1_loss}")

    print("\nper-fold delta vs baseline, and paired bootstrap (10000 resamples of passages) of the pooled held-out MRR delta:")
    rng = np.random.default_rng(0)
    for m in ("lgb", "logreg"):
        for k in ("situation", "description", "all"):
            d = np.array(per[m][k]) - np.array(per["baseline"][k])
            ids = [i for i, p in enumerate(ps) if k == "all" or p["kind"] == k]
            diff = np.array([rrs[m][i] - rrs["baseline"][i] for i in ids])
            bs = diff[rng.integers(0, len(diff), (10000, len(diff)))].mean(1)
            lo, hi = np.percentile(bs, [2.5, 97.5])
            print(f"{m:7s} {k:12s} per-fold " + " ".join(f"{x:+.3f}" for x in d)
                  + f"  pooled {diff.mean():+.4f}  95% CI [{lo:+.4f}, {hi:+.4f}]  P(delta<=0) {np.mean(bs <= 0):.3f}")

    imps /= 5
    print("\nLightGBM gain importance (share, mean over outer folds):")
    for n, v in sorted(zip(FEATURES, imps), key=lambda t: -t[1]):
        print(f"  {n:16s} {v:.3f}")

    result = dict(per=per, chosen=chosen,
                  per_passage=[dict(line=p["line"], source=p["source"], kind=p["kind"], fold=p["fold"],
                                    **{m: rrs[m][i] for m in rrs}) for i, p in enumerate(ps)],
                  moves={f"{a}/{b}": v for (a, b), v in moves.items()},
                  importance=dict(zip(FEATURES, imps.tolist())))
    json.dump(result, open(HERE + "/eval_result.json", "w"), indent=1)

    # decision rule
    b = np.mean(per["baseline"]["all"]); bs = np.mean(per["baseline"]["situation"])
    for m in ("lgb", "logreg"):
        a = np.mean(per[m]["all"]); s = np.mean(per[m]["situation"])
        print(f"{m}: delta all {a-b:+.4f}  delta situation {s-bs:+.4f}  "
              f"-> {'PASS' if a - b >= 0.02 and s >= bs else 'fail'}")

    if "--write-model" in sys.argv:
        hp, trees, inner = lgb_choose(ps)  # inner CV over all 5 folds
        print(f"final hyper-parameters (5-fold CV on all data): {hp} trees={trees} cv_mrr={inner:.4f}")
        booster = lgb_fit(ps, hp, trees)
        json.dump(booster.dump_model(), open(HERE + "/model.json", "w"))
        booster.save_model(HERE + "/model.txt")
        # reference predictions for the Swift port to check against
        with open(HERE + "/model_check.tsv", "w") as fo:
            fo.write("passage\t" + "\t".join(FEATURES) + "\tprediction\n")
            for i, p in enumerate(ps[:5]):
                pr = booster.predict(p["X"])
                for x, v in zip(p["X"], pr):
                    fo.write(f"{i}\t" + "\t".join(repr(float(t)) for t in x) + f"\t{v!r}\n")
        print("wrote model.json model.txt model_check.tsv")


if __name__ == "__main__":
    main()
