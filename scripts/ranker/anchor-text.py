#!/usr/bin/env python3
"""Anchor text as a signal for `relevant` (docs/ranking.md, "Anchor text"): measured, not built.

For each link from one comic's explanation or trivia (the mirror's wikitext) to another comic,
the sentence holding it is taken as words about the linked comic. Each passage's 20 most
distinctive words are ranked by BM25 over those sentences, and the result is added to the
engine's fused scores of its first 50 (`Relevance --relevant --candidates --folds 5`), weight by
weight, MRR@10 by the 5 folds by source of scripts/ranker/eval.py.

    python3 scripts/ranker/anchor-text.py CANDIDATES [CORPUS]

CANDIDATES: the runner's output over Benchmarks/Relevance/situations*.tsv; CORPUS: the offline
mirror (default ../shared/corpus). Needs numpy (eval.py's venv).
"""
import collections
import importlib.util
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CANDIDATES = sys.argv[1]
CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared", "corpus")
WIKITEXT = os.path.join(CORPUS, "explainxkcd", "wikitext")
SETS = os.path.join(ROOT, "Benchmarks", "Relevance")
LINK = re.compile(r"\[\[\s*(\d{1,4})(?::[^|\]]*)?(?:\|([^\]]*))?\]\]")
STOP = set(
    "a an the and or of to in on for is are was were be been it its this that with as at by from i you he she we "
    "they my your our their me us them not no but if so do does did have has had will would can could should "
    "just than then there here what which who whom how why when where all any some more most other into out up "
    "down over about also only very too s t".split()
)


def plain(sentence):
    """The sentence's words without wiki markup (links as their shown text)."""
    s = re.sub(r"\[\[\s*\d{1,4}(?::[^|\]]*)?\|([^\]]*)\]\]", r"\1", sentence)
    s = re.sub(r"\[\[\s*\d{1,4}:\s*([^|\]]*)\]\]", r"\1", s)
    s = re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]", r"\1", s)
    s = re.sub(r"\[https?://\S+\s*([^\]]*)\]", r"\1", s)
    s = re.sub(r"\{\{[^}]*\}\}|<[^>]+>|'{2,}", " ", s)
    return re.sub(r"\s+", " ", s).strip()


def anchor_sentences():
    """Comic number → the sentences of other comics' explanations and trivia that link to it."""
    anchors = collections.defaultdict(list)
    for name in os.listdir(WIKITEXT):
        number = int(name.split(".")[0])
        text = open(os.path.join(WIKITEXT, name), encoding="utf-8", errors="replace").read()
        transcript = re.search(r"==\s*Transcript\s*==", text)
        body = text[: transcript.start()] if transcript else text
        trivia = re.search(r"==\s*Trivia\s*==", text)
        if trivia:
            body += "\n" + text[trivia.end() :]
        for paragraph in body.split("\n"):
            if "[[" not in paragraph:
                continue
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z\[\"'(])", paragraph):
                for link in LINK.finditer(sentence):
                    target = int(link.group(1))
                    words = plain(sentence)
                    if target != number and len(words) > 10:
                        anchors[target].append(words)
    return anchors


def stem(word):
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def words(text):
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP]


def main():
    anchors = anchor_sentences()
    print(len(anchors), "comics with anchor sentences;", sum(map(len, anchors.values())), "sentences")
    docs = {c: collections.Counter(words(" ".join(v))) for c, v in anchors.items()}
    df = collections.Counter(w for tf in docs.values() for w in tf)
    lengths = {c: sum(tf.values()) for c, tf in docs.items()}
    average = sum(lengths.values()) / len(lengths)

    def idf(w):
        return math.log(1 + (len(docs) - df[w] + 0.5) / (df[w] + 0.5))

    def bm25(query, k1=1.2, b=0.75):
        scores = {}
        for c, tf in docs.items():
            s = sum(
                idf(w) * tf[w] * (k1 + 1) / (tf[w] + k1 * (1 - b + b * lengths[c] / average)) for w in query if w in tf
            )
            if s > 0:
                scores[c] = s
        return scores

    texts = {}
    for name in sorted(n for n in os.listdir(SETS) if n.startswith("situations") and n.endswith(".tsv")):
        lines = open(os.path.join(SETS, name), encoding="utf-8").read().split("\n")
        head = lines[0].split("\t")
        for number, line in enumerate(lines[1:], start=2):
            if line.strip():
                row = dict(zip(head, line.split("\t")))
                texts[(str(number), row["source"])] = (row["query"], row["relevant"])

    sys.argv = [sys.argv[0], CANDIDATES]
    spec = importlib.util.spec_from_file_location("folds", os.path.join(ROOT, "scripts", "ranker", "eval.py"))
    folds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(folds)
    passages = folds.load()
    for p in passages:
        query, relevant = texts[(p["line"], p["source"])]
        p["relevant"] = {int(x) for x in re.findall(r"\d+", relevant)}
        tf = collections.Counter(words(query))
        p["anchor"] = bm25(sorted(tf, key=lambda w: -tf[w] * (idf(w) if w in df else 0))[:20])

    def reciprocal_rank(order, relevant):
        return next((1 / (i + 1) for i, c in enumerate(order[:10]) if c in relevant), 0.0)

    def by_anchor(p):
        return sorted(p["anchor"], key=lambda c: -p["anchor"][c])

    alone = [reciprocal_rank(by_anchor(p), p["relevant"]) for p in passages]
    print("anchor sentences alone, MRR@10 %.3f" % (sum(alone) / len(alone)))
    missing = [p for p in passages if not any(r["rel"] for r in p["rows"])]
    recovered = sum(1 for p in missing if p["relevant"] & set(by_anchor(p)[:50]))
    print(len(missing), "passages without their comic in the engine's first 50; the anchors' first 50 hold", recovered)
    for fill in ("lowest of the 50", "zero"):
        for weight in (0, 0.05, 0.1, 0.15, 0.2, 0.3):
            per_fold = collections.defaultdict(list)
            for p in passages:
                fused = {r["comic"]: r["score"] for r in p["rows"]}
                floor = min(fused.values()) if fill != "zero" and fused else 0.0
                best = max(p["anchor"].values(), default=1)
                for c in by_anchor(p)[:20]:
                    fused.setdefault(c, floor)
                order = sorted(fused, key=lambda c: -(fused[c] + weight * p["anchor"].get(c, 0) / best))
                per_fold[p["fold"]].append(reciprocal_rank(order, p["relevant"]))
            means = [sum(v) / len(v) for _, v in sorted(per_fold.items())]
            print(f"newcomers at {fill}, w {weight}:", " ".join("%.3f" % m for m in means), "mean %.3f" % (sum(means) / 5))


if __name__ == "__main__":
    main()
