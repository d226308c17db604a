"""Why the encoder-features graph candidate of ``--auto --encoder`` failed on long documents:
the graph model trained alone on the search's graph, at feature scale 1 (the library's until
2026-11-28) and 0.1 (its scale since, ``encoder-choices.md`` part 3), validation documents
only.

In the searches of ``docs/results/vs-linear.md`` at scale 1 (now under
``raw/archive/vs-linear-auto-encoder-v1``) the candidate with the encoder's embeddings as
document features (:func:`gfbgcn.text.train.features.encoder.encoder_input`) reached 18 %
validation accuracy on Ohsumed and 64 % on R52, where the one-hot graphs reached 69 % and
97 %. This script trains that candidate as the search does (its graph setting and model, read
from the seed's ``*_auto-encoder.json`` record; the library's training defaults; early stopping
on the validation loss) at the given feature scales and GenVec forms, and prints validation
accuracy, the epochs run and the best epoch. Test documents are not scored::

    python benchmarks/encoder_graph_scale.py --encoder ../shared/models/all-MiniLM-L6-v2 \\
        --report docs/results/encoder-graph-scale.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from _report import command_line, machine_line, print_or_write
from vs_linear import corpus_embeddings, load_corpus

#: The searches at scale 1, whose candidate this explains.
ARCHIVE = (Path(__file__).resolve().parent.parent / "docs" / "results" / "raw" / "archive"
           / "vs-linear-auto-encoder-v1")
#: (data set, scales, GenVec forms): the three paper benchmarks of the searches.
RUNS = (("ohsumed", (1.0, 0.1), (True, False)), ("r52", (1.0, 0.1), (True,)),
        ("r8", (1.0, 0.1), (True,)))


def search_setting(dataset: str, seed: int) -> dict:
    """The encoder-features graph candidate's row in the seed's search record."""
    rec = json.loads((ARCHIVE / f"{dataset}_seed{seed}_auto-encoder.json").read_text())
    return next(c for c in rec["candidates"]
                if c["features"] == "encoder" and c["predictor"] == "graph")


def run(dataset: str, seed: int, encoder: str, scales, forms) -> list[dict]:
    from gfbgcn import TextGCNClassifier
    from gfbgcn.text.train.features.encoder import encoder_input
    from gfbgcn.text.train.run import train_text

    row = search_setting(dataset, seed)
    corpus = load_corpus(dataset)
    settings = TextGCNClassifier(random_state=seed, min_freq=int(row["min_freq"]),
                                 stop_words=row["stop_words"], window=int(row["window"])
                                 ).resolve_settings(True)
    graph = settings.build_graph(corpus)
    embedded = corpus_embeddings(corpus, encoder)
    out = []
    for exact in forms:
        for scale in scales:
            inputs = encoder_input(embedded, graph, scale=scale)
            config = replace(settings.train, model=row["model"], features="encoder",
                             layer_options={"exact": exact})
            start = time.perf_counter()
            result = train_text(graph, config, progress=False, device="cpu", doc_input=inputs)
            out.append({"dataset": dataset, "model": row["model"], "exact": exact,
                        "scale": scale, "search_val": float(row["val_accuracy"]),
                        "val": result.val["accuracy"], "val_loss": result.val.get("loss"),
                        "epochs": result.epochs_run, "best": result.best_epoch,
                        "seconds": time.perf_counter() - start,
                        "graph": f"stop={row['stop_words']} min_freq={row['min_freq']}"})
            print(out[-1], flush=True)
    return out


def render(rows: list[dict], seed: int) -> str:
    lines = ["# The encoder-features graph candidate on long documents", "",
             "Written by `benchmarks/encoder_graph_scale.py` (its docstring gives the protocol). "
             f"Validation accuracy in %, seed {seed}; test documents are not scored.", "",
             f"Command: `{command_line()}`  ", f"Machine: {machine_line(1)}", "",
             "| data set | graph (the search's) | model | GenVec | feature scale | val accuracy "
             "| in the search | epochs (best) | s |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['graph']} | {r['model']} | "
                     f"{'exact' if r['exact'] else 'fast'} | {r['scale']:g} | "
                     f"{100 * r['val']:.2f} | {100 * r['search_val']:.2f} | "
                     f"{r['epochs']} ({r['best']}) | {r['seconds']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoder", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    rows = [r for ds, scales, forms in RUNS
            for r in run(ds, args.seed, args.encoder, scales, forms)]
    print_or_write(render(rows, args.seed), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
