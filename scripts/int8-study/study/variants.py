"""Variant names: MODE[+sqALPHA[@ops]][-skip:SPEC,...][+w7]
MODE: fp32 | w8only | s8_tensor | s8_token | u8_tensor | u8_token | s8_static | u8_static | mixed spec 'op=mode/op=mode'
skip SPEC: 'L.op' with L a layer or '*', op one of qkv, attn_out, ffn_in, ffn_out or '*'."""
import json
import numpy as np
import bert

CAL = json.load(open("/tmp/h37/study/calib.json"))

def parse_skip(spec):
    out = set()
    for part in spec.split(","):
        l, op = part.split(".")
        for li in (range(bert.L) if l == "*" else [int(l)]):
            for o in (bert.OPS if op == "*" else [op]): out.add((li, o))
    return out

def make(name, model):
    wbits = 8
    if name.endswith("+w7r"): name, wbits = name[:-4], "7r"
    elif name.endswith("+w7"): name, wbits = name[:-3], 7
    skip = set()
    if "-skip:" in name: name, s = name.split("-skip:"); skip = parse_skip(s)
    sq_alpha, sq_ops = None, bert.OPS
    if "+sq" in name:
        name, s = name.split("+sq")
        if "@" in s: s, ops = s.split("@"); sq_ops = ops.split(",")
        sq_alpha = float(s)
    if name == "fp32": return None
    modes = {}
    if "=" in name:
        for part in name.split("/"): op, m = part.split("="); modes[op] = m
    for op in bert.OPS: modes.setdefault(op, name)
    plan, static, smooth = {}, {}, {}
    for l in range(bert.L):
        for op in bert.OPS:
            if (l, op) in skip: continue
            m = modes[op]
            if m == "fp32": continue
            c = CAL[f"{l}:{op}"]
            if sq_alpha is not None and op in sq_ops:
                W = model.W[(l, op)][0]
                a = np.maximum(np.array(c["chan"], np.float32), 1e-5); w = np.maximum(np.abs(W).max(1), 1e-5)
                smooth[(l, op)] = (a ** sq_alpha / w ** (1 - sq_alpha)).astype(np.float32)
            if m == "w8only":
                plan[(l, op)] = "none"
            else:
                plan[(l, op)] = m
            if m == "s8_static":
                static[(l, op)] = c["amax"] if smooth.get((l, op)) is None else float(np.max(np.array(c["chan"]) / smooth[(l, op)]))
            if m == "u8_static":
                if smooth.get((l, op)) is not None: raise SystemExit("u8_static+sq not supported")
                static[(l, op)] = (c["lo"], c["hi"])
    lin = bert.Int8Linear(model, plan, static, smooth, wbits)
    return lin
