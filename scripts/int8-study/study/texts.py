"""Collects 1,000 real texts for the quantisation study (deterministic)."""
import csv, glob, json, random, re, sys

def queries():
    out = []
    for path in ["/work/shared/eval/dev.tsv"] + sorted(glob.glob("/work/main/Benchmarks/Relevance/*.tsv")):
        with open(path, newline="") as f:
            rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
        out += [r[0] for r in rows[1:] if r and r[0].strip()]
    return out

def comics():
    out = {}
    for path in glob.glob("/work/shared/corpus/xkcd/*/info.0.json"):
        d = json.load(open(path)); out[d["num"]] = d
    return out

def wiki_explanation(n):
    try: t = open(f"/work/shared/corpus/explainxkcd/wikitext/{n}.wiki").read()
    except OSError: return None
    m = re.search(r"==\s*Explanation\s*==(.*?)(\n==[^=]|\Z)", t, re.S)
    if not m: return None
    t = m.group(1)
    t = re.sub(r"\{\{[^{}]*\}\}", "", t)
    t = re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]", r"\1", t)
    t = re.sub(r"\[https?://\S+ ([^\]]*)\]", r"\1", t)
    t = re.sub(r"<[^>]+>", "", t); t = re.sub(r"'{2,}", "", t)
    t = re.sub(r"^[=*:;#]+", "", t, flags=re.M)
    return " ".join(t.split())

def collect(n=1000, seed=37):
    rng = random.Random(seed)
    q = queries()
    c = comics(); nums = sorted(c); rng.shuffle(nums)
    texts, kinds = [], []
    def add(t, k):
        t = t.strip()
        if t and t not in texts: texts.append(t); kinds.append(k)
    for t in q: add(t, "query")
    i = 0
    for k in nums[:150]: add(c[k]["title"], "title")
    for k in nums[150:300]: add(c[k]["alt"], "alt")
    tr = [k for k in nums[300:] if len(c[k].get("transcript", "")) > 80][:100]
    for k in tr:
        t = c[k]["transcript"]; words = t.split(); s = rng.randrange(max(1, len(words) - 60))
        add(" ".join(words[s:s + rng.randrange(15, 60)]), "transcript")
    # Index heads as VectorIndexer.passages makes them: "title. alt\ntranscript\nexplanation".
    ex = json.load(open("/work/shared/corpus/explainxkcd/text/xkcd_explanations_2927-3006.json"))
    for e in ex:
        num = int(e["URL"].rsplit("/", 1)[1]); d = c.get(num)
        if d: add(f'{d["title"]}. {d["alt"]}\n{d.get("transcript","")}\n{e["Explanation"]}', "head")
    k2 = [k for k in nums if k < 2900]
    j = 0
    while len(texts) < n and j < len(k2):
        k = k2[j]; j += 1
        e = wiki_explanation(k)
        if not e or len(e) < 200: continue
        if j % 2: add(f'{c[k]["title"]}. {c[k]["alt"]}\n{c[k].get("transcript","")}\n{e}', "head")
        else:
            w = e.split(); s = rng.randrange(max(1, len(w) - 160)); add(" ".join(w[s:s + 160]), "explanation")
    return texts[:n], kinds[:n]

if __name__ == "__main__":
    t, k = collect()
    from collections import Counter
    print(len(t), Counter(k))
