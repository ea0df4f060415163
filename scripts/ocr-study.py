#!/usr/bin/env python3
"""OCR study for "Which xkcd is this?" (issue 36): the tesseract CLI on the
original comics (../shared/images) and the development set made by
make-identify-set.py, under several page-segmentation modes and preprocessing
steps. Results go to a JSON-lines cache (one line per image and setting, so a
stopped run resumes), and `--report` prints the tables for OCR-STUDY.md.

Measures per run: wall time of one `tesseract` process (OMP_THREAD_LIMIT=1,
nice 19; it includes process start and model load, measured separately as
"startup"), the text read, and stderr. Quality signals:
  match  = fraction of OCR tokens (lowercased [a-z]+, 3+ letters) found in the
           comic's own text (title, alt, API transcript, explainxkcd
           transcript); an image that reads no token counts 0;
  recall = fraction of the comic's distinct text tokens that were read;
  top1/top5 = the comic ranks first / in the first five when the OCR tokens
           are searched with a naive BM25 over all 3,281 comics' same text
           (a stand-in for the project's index, not the index itself).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
TOKEN = re.compile(r"[a-z]{3,}")
ENV = dict(os.environ, OMP_THREAD_LIMIT="1")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


# ---------------------------------------------------------------- corpus ---

def explain_transcript(number: int) -> str:
    path = CORPUS / "explainxkcd" / "wikitext" / f"{number}.wiki"
    if not path.exists():
        return ""
    text = path.read_text(encoding="utf-8", errors="replace")
    match = re.search(r"^==\s*Transcript\s*==\s*$(.*?)(?=^==[^=])", text + "\n== end ==",
                      re.M | re.S | re.I)
    return match.group(1) if match else ""


def comic_text(number: int) -> str:
    path = CORPUS / "xkcd" / str(number) / "info.0.json"
    if not path.exists():
        return ""
    info = json.loads(path.read_text(encoding="utf-8"))
    return " ".join([info.get("title", ""), info.get("alt", ""), info.get("transcript", ""),
                     explain_transcript(number)])


class BM25:
    def __init__(self):
        self.docs: dict[int, Counter] = {}
        for folder in (CORPUS / "xkcd").iterdir():
            if folder.is_dir() and folder.name.isdigit():
                self.docs[int(folder.name)] = Counter(tokens(comic_text(int(folder.name))))
        self.lengths = {n: sum(c.values()) for n, c in self.docs.items()}
        self.average = sum(self.lengths.values()) / len(self.docs)
        frequency = Counter()
        for counts in self.docs.values():
            frequency.update(counts.keys())
        total = len(self.docs)
        self.idf = {t: math.log(1 + (total - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}

    def rank(self, query: list[str], target: int, k1: float = 1.2, b: float = 0.75) -> int | None:
        terms = set(query) & self.idf.keys()
        if not terms:
            return None
        scores = {}
        for number, counts in self.docs.items():
            score = 0.0
            norm = k1 * (1 - b + b * self.lengths[number] / self.average)
            for term in terms:
                f = counts.get(term)
                if f:
                    score += self.idf[term] * f * (k1 + 1) / (f + norm)
            if score:
                scores[number] = score
        if target not in scores:
            return None
        mine = scores[target]
        return 1 + sum(1 for s in scores.values() if s > mine)


# --------------------------------------------------------- preprocessing ---

def otsu_threshold(grey: np.ndarray) -> int:
    histogram = np.bincount(grey.ravel(), minlength=256).astype(float)
    total = grey.size
    cumulative = np.cumsum(histogram)
    cumulative_mean = np.cumsum(histogram * np.arange(256))
    mean = cumulative_mean[-1] / total
    best, best_between = 0, -1.0
    for t in range(255):
        w0 = cumulative[t] / total
        w1 = 1 - w0
        if w0 == 0 or w1 == 0:
            continue
        m0 = cumulative_mean[t] / cumulative[t]
        m1 = (cumulative_mean[-1] - cumulative_mean[t]) / (total - cumulative[t])
        between = w0 * w1 * (m0 - m1) ** 2
        if between > best_between:
            best, best_between = t, between
    return best


def preprocess(path: Path, steps: list[str], out: Path) -> Path:
    with Image.open(path) as image:
        image.seek(0)
        rgba = image.convert("RGBA")
    flat = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    flat.alpha_composite(rgba)
    image = flat.convert("RGB")
    if "grey" in steps:
        image = image.convert("L")
    if "up2x" in steps and max(image.size) < 1500:
        image = image.resize((image.width * 2, image.height * 2), Image.Resampling.BICUBIC)
    if "otsu" in steps:
        grey = np.asarray(image.convert("L"))
        image = Image.fromarray(np.where(grey > otsu_threshold(grey), 255, 0).astype(np.uint8))
    image.save(out)
    return out


# -------------------------------------------------------------- settings ---

SETTINGS = {
    # name: (preprocessing steps, tesseract arguments)
    "psm3": ([], ["--psm", "3"]),
    "psm3-oem1": ([], ["--psm", "3", "--oem", "1"]),
    "psm6": ([], ["--psm", "6"]),
    "psm11": ([], ["--psm", "11"]),
    "psm3-grey": (["grey"], ["--psm", "3"]),
    "psm3-grey-up2x": (["grey", "up2x"], ["--psm", "3"]),
    "psm3-grey-up2x-otsu": (["grey", "up2x", "otsu"], ["--psm", "3"]),
    "psm11-grey-up2x": (["grey", "up2x"], ["--psm", "11"]),
    "psm6-grey-up2x": (["grey", "up2x"], ["--psm", "6"]),
    "psm11-grey": (["grey"], ["--psm", "11"]),
    "psm3-grey-up2x-sauvola": (["grey", "up2x"], ["--psm", "3", "-c", "thresholding_method=2"]),
}


def image_list(originals: Path, dev_set: Path) -> list[dict]:
    items = []
    for path in sorted(originals.iterdir()):
        match = re.match(r"(\d+)-", path.name)
        if match and path.suffix.lower() in {".png", ".gif", ".jpg", ".jpeg"}:
            items.append({"file": str(path), "comic": int(match.group(1)),
                          "transform": "original"})
    with open(dev_set / "manifest.tsv", encoding="utf-8") as manifest:
        next(manifest)
        for line in manifest:
            name, comic, transform = line.rstrip("\n").split("\t")[:3]
            items.append({"file": str(dev_set / name), "comic": int(comic),
                          "transform": transform})
    return items


def run_tesseract(path: Path, arguments: list[str]) -> tuple[float, str, str, int]:
    start = time.perf_counter()
    result = subprocess.run(["nice", "-n", "19", "tesseract", str(path), "stdout", *arguments],
                            capture_output=True, env=ENV, timeout=300)
    elapsed = time.perf_counter() - start
    return (elapsed, result.stdout.decode("utf-8", "replace"),
            result.stderr.decode("utf-8", "replace"), result.returncode)


def measure(args):
    items = image_list(args.images, args.set)
    done = set()
    if args.cache.exists():
        for line in args.cache.read_text().splitlines():
            row = json.loads(line)
            done.add((row["setting"], row["file"]))
    names = args.settings or list(SETTINGS)
    with open(args.cache, "a") as cache, tempfile.TemporaryDirectory() as work:
        for name in names:
            steps, arguments = SETTINGS[name]
            started = time.time()
            for item in items:
                if (name, item["file"]) in done:
                    continue
                path = Path(item["file"])
                if steps:
                    path = preprocess(path, steps, Path(work) / "input.png")
                elapsed, text, stderr, code = run_tesseract(path, arguments)
                row = dict(item, setting=name, seconds=round(elapsed, 4), text=text,
                           stderr=stderr, returncode=code)
                cache.write(json.dumps(row) + "\n")
                cache.flush()
            print(f"{name}: {time.time() - started:.0f} s", file=sys.stderr)


# ---------------------------------------------------------------- report ---

def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def report(args):
    rows = [json.loads(line) for line in args.cache.read_text().splitlines()]
    bm25 = BM25()
    own = {}
    by_setting: dict[str, list[dict]] = {}
    for row in rows:
        comic = row["comic"]
        if comic not in own:
            own[comic] = set(tokens(comic_text(comic)))
        read = tokens(row["text"])
        row["ntok"] = len(read)
        row["match"] = sum(t in own[comic] for t in read) / len(read) if read else 0.0
        row["recall"] = len(set(read) & own[comic]) / len(own[comic]) if own[comic] else 0.0
        row["rank"] = bm25.rank(read, comic)
        by_setting.setdefault(row["setting"], []).append(row)

    def summary(group: list[dict]) -> str:
        times = [r["seconds"] for r in group]
        empty = sum(1 for r in group if r["ntok"] == 0)
        top1 = sum(1 for r in group if r["rank"] == 1)
        top5 = sum(1 for r in group if r["rank"] is not None and r["rank"] <= 5)
        return (f"| {len(group)} | {statistics.median(times):.2f} | {percentile(times, 95):.2f} "
                f"| {statistics.mean(r['match'] for r in group):.2f} "
                f"| {statistics.mean(r['recall'] for r in group):.2f} "
                f"| {empty} | {100 * top1 / len(group):.0f} % | {100 * top5 / len(group):.0f} % |")

    header = ("| setting | images | median s | p95 s | match | recall | read nothing "
              "| BM25 top-1 | top-5 |\n|---|---|---|---|---|---|---|---|---|")
    for subset, keep in (("originals", lambda r: r["transform"] == "original"),
                         ("development set", lambda r: r["transform"] != "original")):
        print(f"\n### {subset}\n\n{header}")
        for name in SETTINGS:
            group = [r for r in by_setting.get(name, []) if keep(r)]
            if group:
                print(f"| {name} " + summary(group))

    transforms = ["original"] + sorted({r["transform"] for r in rows} - {"original"})
    print("\n### BM25 top-1 (and mean match) by transform\n")
    print("| setting | " + " | ".join(transforms) + " |")
    print("|---" * (len(transforms) + 1) + "|")
    for name in SETTINGS:
        group = by_setting.get(name, [])
        if not group:
            continue
        cells = []
        for transform in transforms:
            sub = [r for r in group if r["transform"] == transform]
            if sub:
                top1 = sum(1 for r in sub if r["rank"] == 1)
                cells.append(f"{top1}/{len(sub)} ({statistics.mean(r['match'] for r in sub):.2f})")
            else:
                cells.append("-")
        print(f"| {name} | " + " | ".join(cells) + " |")

    # Two settings run one after the other, their tokens pooled (cost: both times).
    print("\n### two settings pooled (development set; wordless 961, 2293, 1116 left out "
          "in the last two columns)\n")
    print("| settings | median s | p95 s | top-1 | top-5 | top-1 with words | top-5 with words |")
    print("|---|---|---|---|---|---|---|")
    wordless = {961, 2293, 1116}
    combos = [("psm3-grey", "psm11-grey"), ("psm3-grey", "psm11-grey-up2x"),
              ("psm6-grey-up2x", "psm11-grey-up2x"), ("psm11-grey", "psm11-grey-up2x")]
    singles = [(name,) for name in ("psm3", "psm11-grey", "psm6-grey-up2x", "psm11-grey-up2x")]
    for combo in singles + combos:
        if not all(name in by_setting for name in combo):
            continue
        per_file = {}
        for name in combo:
            for r in by_setting[name]:
                if r["transform"] == "original":
                    continue
                entry = per_file.setdefault(r["file"], {"comic": r["comic"], "text": "",
                                                        "seconds": 0.0})
                entry["text"] += "\n" + r["text"]
                entry["seconds"] += r["seconds"]
        ranks = {f: bm25.rank(tokens(e["text"]), e["comic"]) for f, e in per_file.items()}
        times = [e["seconds"] for e in per_file.values()]

        def rate(files, k):
            files = list(files)
            hits = sum(1 for f in files if ranks[f] is not None and ranks[f] <= k)
            return f"{100 * hits / len(files):.0f} %"
        with_words = [f for f, e in per_file.items() if e["comic"] not in wordless]
        print(f"| {' + '.join(combo)} | {statistics.median(times):.2f} "
              f"| {percentile(times, 95):.2f} | {rate(per_file, 1)} | {rate(per_file, 5)} "
              f"| {rate(with_words, 1)} | {rate(with_words, 5)} |")

    print("\n### read nothing (no 3+ letter token), per setting\n")
    for name in SETTINGS:
        empty = [Path(r["file"]).name for r in by_setting.get(name, []) if r["ntok"] == 0]
        if empty:
            print(f"- {name} ({len(empty)}): " + ", ".join(sorted(empty)))

    print("\n### not found in the top 5 by BM25, per setting\n")
    for name in SETTINGS:
        missed = [f"{Path(r['file']).name} (rank {r['rank']})" for r in by_setting.get(name, [])
                  if r["rank"] is None or r["rank"] > 5]
        if missed:
            print(f"- {name} ({len(missed)}): " + ", ".join(sorted(missed)))

    print("\n### stderr lines (numbers replaced by N), over all runs\n")
    lines = Counter()
    for row in rows:
        for line in row["stderr"].splitlines():
            lines[re.sub(r"\d+", "N", line.strip())] += 1
    for line, count in lines.most_common(20):
        print(f"- {count} x `{line}`")
    codes = Counter(r["returncode"] for r in rows)
    print(f"\nexit codes: {dict(codes)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=Path, default=Path(__file__).resolve().parent.parent.parent / "shared" / "images")
    # What scripts/make-identify-set.py wrote (its usage's --output), and the runs kept, in the
    # build folder, outside what git keeps.
    build = Path(__file__).resolve().parent.parent / ".build"
    parser.add_argument("--set", type=Path, default=build / "identify-set")
    parser.add_argument("--cache", type=Path, default=build / "ocr-runs.jsonl")
    parser.add_argument("--settings", nargs="*", choices=list(SETTINGS))
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    report(args) if args.report else measure(args)


if __name__ == "__main__":
    main()
