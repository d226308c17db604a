"""Write the first N documents of ``benchmarks/scale.py``'s corpus as a JSONL corpus file
(``text``, ``label``, ``split``), to run ``gfbgcn train`` on it as a user would.

    python benchmarks/scale_jsonl.py 382998 big.jsonl
"""

from __future__ import annotations

import argparse
import json
import os

import scale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("documents", type=int)
    parser.add_argument("path")
    args = parser.parse_args()
    os.environ.setdefault("SCALE_MAX_GIB", "64")  # scale.COMMON's address-space guard
    names: dict = {}
    exec(scale.COMMON, names)  # the corpus definition the scale benchmark runs in its processes
    corpus = names["scale_corpus"](args.documents)
    with open(args.path, "w", encoding="utf-8") as fh:
        for text, label, train in zip(corpus.texts, corpus.labels, corpus.is_train):
            record = {"text": text, "label": label, "split": "train" if train else "test"}
            fh.write(json.dumps(record) + "\n")
    print(f"wrote {len(corpus.texts):,} documents to {args.path}")


if __name__ == "__main__":
    main()
