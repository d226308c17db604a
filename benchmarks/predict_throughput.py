"""Throughput of inductive prediction (documents/second) -> docs/benchmarks.md.

A model is trained briefly on the R8 training documents only (``--epochs``, default 5: the
weights' quality does not change the cost, only the shapes do: vocabulary, hidden size,
classes), saved and loaded back, then the R8 test documents are classified in batches of
several sizes.  Reported: the median over ``--repeats`` of the end-to-end time (tokenising,
TF-IDF, both layers, softmax) and of the tokenising + TF-IDF part alone.

    python benchmarks/predict_throughput.py --threads 1
"""

from __future__ import annotations

import argparse
import sys
import tempfile

import numpy as np
import torch

from _report import command_line, machine_line, median_seconds, publish
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.saved import load_model, save_model
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="r8")
    p.add_argument("--models", nargs="+", default=["gfb-max", "gcn"])
    p.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 32, 256, 2048])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    corpus = load_benchmark(args.dataset)
    graph = build_text_graph(corpus.subset(np.flatnonzero(corpus.is_train),
                                           name=f"{args.dataset}-train"))
    texts = [corpus.texts[i] for i in np.flatnonzero(~corpus.is_train)]
    chars = sum(len(t) for t in texts) / len(texts)
    rows = []
    for model_name in args.models:
        result = train_text(graph, TrainConfig(model=model_name, epochs=args.epochs),
                            progress=False)
        with tempfile.TemporaryDirectory() as tmp:
            save_model(tmp, InductiveTextGCN.from_trained(result.model, graph, model_name),
                       layer_options=result.config.layer_options)
            model = load_model(tmp)
        model.predict(texts[:64])  # warm-up
        for bs in args.batch_sizes:
            n = len(texts) if bs > 1 else min(len(texts), 200)
            docs = texts[:n]
            # The loop's values bound as defaults: the closures must not see a later iteration's.
            total = median_seconds(lambda m=model, d=docs, b=bs: m.predict(d, batch_size=b),
                                   args.repeats)
            prep = median_seconds(lambda m=model, d=docs, b=bs, n=n: [
                m.doc_word_weights(d[i:i + b]) for i in range(0, n, b)], args.repeats)
            rows.append((model_name, bs, n, n / total, prep / total))
            print(f"{model_name} batch {bs}: {n / total:,.0f} docs/s "
                  f"(tokenising + TF-IDF {prep / total:.0%} of the time)", flush=True)
    body = [
        "## Inductive prediction throughput",
        "",
        f"`gfbgcn predict` / `model.predict` on the {len(texts):,} {args.dataset.upper()} test "
        f"documents (mean {chars:,.0f} characters) with a model saved from a graph of the "
        f"training documents only ({graph.num_words:,} words, hidden 200, "
        f"{len(graph.label_names)} classes), loaded back from disk. End to end: tokenising, "
        "TF-IDF with the training IDF, both layers, softmax. Batch size 1 uses the first 200 "
        "documents. Median of "
        f"{args.repeats} runs. The tokenising + TF-IDF share is the ratio of two separately "
        "timed medians; on this shared, loaded machine it is noisy (it can exceed 100 %). "
        "Tokenising (Python regex cleaning) dominates: the two network layers are a small part.",
        "",
        "| model | batch size | documents/s | share of time in tokenising + TF-IDF |",
        "|---|---|---|---|",
    ]
    body += [f"| {m} | {bs} | {rate:,.0f} | {share:.0%} |" for m, bs, _, rate, share in rows]
    body += ["", f"Machine: {machine_line()}.", "", f"Command: `{command_line()}`"]
    text = "\n".join(body)
    publish("predict-throughput", text, args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
