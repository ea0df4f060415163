"""The `int8-dense` layout of scripts/convert-model.py: every encoder layer's dense weights as int8,
with what XKCDEmbed needs to run them through oneDNN's int8 matrix product.

The recipe is the one docs/int8-study.md chose by measuring (cosine to the float32 model over
1,000 real texts: min 0.9959, none below 0.99):
- weights: symmetric int8, one scale per output column (`<name>.weight_scale`, float32);
- activations: symmetric int8, one scale per token (row), computed at run time by XKCDEmbed;
- SmoothQuant (alpha 0.75) on the inputs of Q/K/V, the attention output and the FFN's first
  product: per input channel j, s_j = a_j^0.75 / w_j^0.25 (a_j the largest |activation| of that
  channel over the calibration texts, w_j the largest |weight| of its row); the weights' row j is
  multiplied by s_j before it is quantised and the activations' channel j is multiplied by
  1/s_j (`<name>.input_scale`, float32) as they are quantised. It moves the few outlier channels
  that LayerNorm's outputs carry (magnitudes of 30 beside 3-5) into the weights, which have a
  scale per column to absorb them. The FFN's second product gets input scales of 1: its input is
  GELU's output, which has no such channels, and smoothing it measured worse.

Q, K and V are stored as one product, `attention.qkv`, `[384, 1152]` (they read the same input).

The calibration texts are comics of the shipped snapshot (its corpus.tar.xz): 100 titles and alt
texts and 100 long texts made as the indexer makes a comic's first passage (title, alt text,
transcript and explanation), chosen by number, so the same snapshot gives the same scales. A
small WordPiece tokenizer here reads them (BERT's basic tokenizer and greedy longest match): the
maxima it feeds are not sensitive to a rare difference from XKCDEmbed's tokenizer.
"""

import json
import math
import re
import tarfile
import unicodedata

import numpy as np

ALPHA = 0.75
# What `__metadata__`'s `quantization` says; XKCDEmbed refuses any other value, so a model
# quantised another way is converted again rather than misread.
QUANTIZATION = "s8-per-output-column-weights/s8-per-token-activations/smoothquant-0.75"
MAXIMUM_TOKENS = 256
SMOOTHED = ("qkv", "attn_out", "ffn_in")


# --- Tokenizing the calibration texts -----------------------------------------------------------


def _is_punctuation(character):
    code = ord(character)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(character).startswith("P")


def _is_cjk(code):
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def tokenize(text, vocabulary):
    """BERT's uncased tokenizer: [CLS] pieces [SEP], at most MAXIMUM_TOKENS."""
    words = []
    for word in text.split():
        word = unicodedata.normalize("NFD", word.lower())
        word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        current = ""
        for character in word:
            if _is_punctuation(character) or _is_cjk(ord(character)):
                if current:
                    words.append(current)
                words.append(character)
                current = ""
            else:
                current += character
        if current:
            words.append(current)
    ids = [vocabulary["[CLS]"]]
    for word in words:
        if len(word) > 100:
            ids.append(vocabulary["[UNK]"])
            continue
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocabulary:
                    break
                end -= 1
            if end == start:
                pieces = [vocabulary["[UNK]"]]
                break
            pieces.append(vocabulary[piece])
            start = end
        ids.extend(pieces)
    return ids[: MAXIMUM_TOKENS - 1] + [vocabulary["[SEP]"]]


def calibration_texts(corpus_path):
    """200 texts of the snapshot's comics, chosen by number (see the module's note)."""
    comics, explanations = {}, {}
    with tarfile.open(corpus_path, "r:xz") as archive:
        for member in archive:
            match = re.fullmatch(r"xkcd/(\d+)/info\.0\.json", member.name)
            if match and int(match.group(1)) % 16 == 3:
                comics[int(match.group(1))] = json.load(archive.extractfile(member))
            match = re.fullmatch(r"explainxkcd/api/(\d+)\.json", member.name)
            if match and int(match.group(1)) % 16 == 3:
                page = json.load(archive.extractfile(member))
                html = page.get("parse", {}).get("text", {})
                html = html.get("*", "") if isinstance(html, dict) else html
                explanations[int(match.group(1))] = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    numbers = sorted(comics)
    texts = []
    for number in numbers[:50]:
        texts += [comics[number]["safe_title"], comics[number]["alt"]]
    for number in numbers[50:]:
        if len(texts) == 200:
            break
        if len(explanations.get(number, "")) > 300:
            comic = comics[number]
            texts.append(f"{comic['safe_title']}. {comic['alt']}\n{comic.get('transcript', '')}\n{explanations[number]}")
    if len(texts) < 200:
        raise SystemExit(f"error: {corpus_path} gives only {len(texts)} calibration texts, expected 200")
    return texts


# --- The float forward pass, watching each dense product's input ----------------------------------


def _erf(x):
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7): only the calibration maxima use it.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1 / (1 + 0.3275911 * x)
    polynomial = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1 - polynomial * np.exp(-x * x))


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


def dense_products(tensors, layer, dtype=np.float64):
    """The four products of `layer` as (weights [inputs, outputs], bias)."""
    p = f"encoder.layer.{layer}."

    def get(name):
        return tensors[p + name + ".weight"].astype(dtype).T, tensors[p + name + ".bias"].astype(dtype)

    parts = [get(f"attention.self.{part}") for part in ("query", "key", "value")]
    return {
        "qkv": (np.concatenate([w for w, _ in parts], 1), np.concatenate([b for _, b in parts])),
        "attn_out": get("attention.output.dense"),
        "ffn_in": get("intermediate.dense"),
        "ffn_out": get("output.dense"),
    }


def input_maxima(tensors, config, token_lists):
    """The largest |value| of each input channel of every dense product, over the texts (in
    float32: maxima need no more, and it takes half the time)."""
    t = {name: array.astype(np.float32) for name, array in tensors.items() if array.dtype.kind == "f"}
    eps, heads, layers = config["layer_norm_eps"], config["num_attention_heads"], config["num_hidden_layers"]
    products = [dense_products(tensors, layer, np.float32) for layer in range(layers)]
    maxima = {}

    def run(layer, name, x):
        key = (layer, name)
        maxima[key] = np.maximum(maxima.get(key, 0), np.abs(x).max(0))
        weights, bias = products[layer][name]
        return x @ weights + bias

    for ids in token_lists:
        n = len(ids)
        x = (
            t["embeddings.word_embeddings.weight"][ids]
            + t["embeddings.position_embeddings.weight"][:n]
            + t["embeddings.token_type_embeddings.weight"][0]
        )
        x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
        for layer in range(layers):
            p = f"encoder.layer.{layer}."
            qkv = run(layer, "qkv", x)
            hidden = x.shape[1]
            q, k, v = (qkv[:, i * hidden : (i + 1) * hidden].reshape(n, heads, -1).transpose(1, 0, 2) for i in range(3))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            weights /= weights.sum(-1, keepdims=True)
            context = (weights @ v).transpose(1, 0, 2).reshape(n, hidden)
            x = layer_norm(
                run(layer, "attn_out", context) + x,
                t[p + "attention.output.LayerNorm.weight"],
                t[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            h = run(layer, "ffn_in", x)
            h = 0.5 * h * (1 + _erf(h / math.sqrt(2)))
            x = layer_norm(run(layer, "ffn_out", h) + x, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps)
    return maxima


# --- Quantizing -----------------------------------------------------------------------------------

# The stored name of each product (XKCDEmbed's BertEncoder reads these).
STORED_NAMES = {
    "qkv": "attention.qkv",
    "attn_out": "attention.output.dense",
    "ffn_in": "intermediate.dense",
    "ffn_out": "output.dense",
}


def quantized_products(tensors, config, corpus_path, vocabulary_bytes):
    """The int8 tensors replacing every layer's dense weights and biases, by stored name."""
    vocabulary = {word: index for index, word in enumerate(vocabulary_bytes.decode().split("\n"))}
    token_lists = [tokenize(text, vocabulary) for text in calibration_texts(corpus_path)]
    maxima = input_maxima(tensors, config, token_lists)
    stored = {}
    for layer in range(config["num_hidden_layers"]):
        for name, (weights, bias) in dense_products(tensors, layer).items():
            if name in SMOOTHED:
                activation = np.maximum(maxima[(layer, name)], 1e-5)
                row = np.maximum(np.abs(weights).max(1), 1e-5)
                smoothing = activation**ALPHA / row ** (1 - ALPHA)
            else:
                smoothing = np.ones(weights.shape[0])
            smoothed = weights * smoothing[:, None]
            scales = np.abs(smoothed).max(0) / 127
            scales[scales == 0] = 1
            values = np.clip(np.rint(smoothed / scales), -127, 127).astype(np.int8)
            prefix = f"encoder.layer.{layer}.{STORED_NAMES[name]}"
            stored[prefix + ".weight"] = values
            stored[prefix + ".weight_scale"] = scales.astype(np.float32)
            stored[prefix + ".input_scale"] = (1 / smoothing).astype(np.float32)
            stored[prefix + ".bias"] = bias.astype(np.float32)
    return stored


def is_replaced(name):
    """Whether the original tensor `name` is one `quantized_products` replaces."""
    return name.startswith("encoder.layer.") and any(
        part in name for part in ("attention.self.", "attention.output.dense.", "intermediate.dense.", "output.dense.")
    )
