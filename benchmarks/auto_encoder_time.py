"""Wall time of one ``--auto --encoder`` search, with a cold and a warm embedding cache, and
the same time as a ratio to reference work measured in the same process -> docs/benchmarks.md.

The machines these run on differ up to ~5x in speed from one day to the next, so a bare wall
time says little; a ratio to work that every machine does alike says more.  Per corpus and seed
one fresh process (``--threads T``):

1. times the reference work: the built-in linear baseline fitted on the corpus's ``--auto``
   split (:func:`gfbgcn.text.linear.baseline.baseline_for_graph`) and one layer-1 product
   ``Â @ W1`` (200 columns) of the corpus's default graph;
2. runs the search as ``gfbgcn train --dataset X --auto --encoder MODEL`` does
   (:class:`gfbgcn.TextGCNClassifier` ``auto=True, encoder=MODEL``, graphs built anew) with an
   empty embedding cache (cold: every document embedded), then again with the cache it filled
   (warm: embeddings read back).

Targets (subjectivity, 10k sentences, the 2-core machine): 5 minutes cold, 2 minutes warm.

    python benchmarks/auto_encoder_time.py --encoder ../shared/models/all-MiniLM-L6-v2 \\
        --datasets subjectivity --seeds 0 --threads 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import command_line, machine_line, update_section

TARGETS = {"subjectivity": (300.0, 120.0)}


def _child(dataset: str, seed: int, encoder: str, threads: int) -> dict:
    """Steps 1 and 2 in this process (a fresh child of :func:`main`)."""
    import torch

    from gfbgcn import TextGCNClassifier
    from gfbgcn.text.graph.adjacency import graph_adjacency
    from gfbgcn.text.linear.baseline import baseline_for_graph
    from vs_linear import load_corpus

    torch.set_num_threads(threads)
    corpus = load_corpus(dataset)
    settings = TextGCNClassifier(random_state=seed, cache=False).resolve_settings(
        corpus.benchmark is not None)
    graph = settings.build_graph(corpus)
    start = time.perf_counter()
    baseline_for_graph(corpus, graph, 0.1, seed)
    baseline_s = time.perf_counter() - start
    adj = graph_adjacency(graph)
    w1 = torch.randn(graph.num_nodes, 200)
    adj @ w1  # warm-up
    start = time.perf_counter()
    adj @ w1
    product_s = time.perf_counter() - start
    row = {"dataset": dataset, "seed": seed, "baseline_s": baseline_s, "product_s": product_s,
           "docs": len(corpus)}
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GFBGCN_CACHE"] = cache  # the embedding cache only: graphs are built anew
        for kind in ("cold", "warm"):
            clf = TextGCNClassifier(auto=True, encoder=encoder, random_state=seed,
                                    device="cpu")
            start = time.perf_counter()
            clf.fit_corpus(corpus)
            row[f"{kind}_s"] = time.perf_counter() - start
            assert clf.auto_ is not None
            row[f"{kind}_chosen"] = clf.auto_.chosen.model_label
            row[f"{kind}_test"] = clf.auto_.chosen.test["accuracy"]
    return row


def render(rows: list[dict], threads: int, encoder: str) -> str:
    lines = ["## One `--auto --encoder` search: wall time, cold and warm embedding cache", "",
             f"Command: `{command_line()}`  ", f"Machine: {machine_line(threads)}", "",
             f"Encoder `{Path(encoder).name}`. One process per row (its own torch threads): "
             "the reference work first (the built-in baseline's fit on the search's split; "
             "one `Â @ W1`, 200 columns, of the default graph), then the search with an empty "
             "embedding cache (cold) and again with the cache it filled (warm), graphs built "
             "anew each time. Ratios: the search's seconds over the reference's, which a "
             "faster or slower machine changes alike.", "",
             "| corpus | seed | docs | cold s | warm s | target cold / warm s | baseline fit s | "
             "`Â @ W1` s | cold / baseline | warm / baseline | warm / `Â @ W1` | chose | "
             "test acc |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        target = TARGETS.get(r["dataset"])
        t = f"{target[0]:.0f} / {target[1]:.0f}" if target else "–"
        lines.append(
            f"| {r['dataset']} | {r['seed']} | {r['docs']:,} | {r['cold_s']:.1f} | "
            f"{r['warm_s']:.1f} | {t} | {r['baseline_s']:.2f} | {r['product_s']:.3f} | "
            f"{r['cold_s'] / r['baseline_s']:.1f} | {r['warm_s'] / r['baseline_s']:.1f} | "
            f"{r['warm_s'] / r['product_s']:.0f} | {r['warm_chosen']} | "
            f"{100 * r['warm_test']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--encoder", required=True)
    p.add_argument("--datasets", nargs="+", default=list(TARGETS))
    p.add_argument("--seeds", nargs="+", type=int, default=[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-write", action="store_true")
    p.add_argument("--child", nargs=2, metavar=("DATASET", "SEED"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        row = _child(args.child[0], int(args.child[1]), args.encoder, args.threads)
        print("ROW " + json.dumps(row), flush=True)
        return 0
    rows = []
    # the child runs in benchmarks/: a relative model path is resolved here, where it was given
    encoder = str(Path(args.encoder).resolve()) if Path(args.encoder).exists() else args.encoder
    for dataset in args.datasets:
        for seed in args.seeds:
            done = subprocess.run(
                [sys.executable, __file__, "--child", dataset, str(seed), "--encoder",
                 encoder, "--threads", str(args.threads)],
                capture_output=True, text=True, cwd=Path(__file__).parent)
            if done.returncode != 0:
                sys.stderr.write(done.stderr[-4000:])
                return done.returncode
            line = next(x for x in done.stdout.splitlines() if x.startswith("ROW "))
            rows.append(json.loads(line[4:]))
            print(rows[-1], flush=True)
    body = render(rows, args.threads, args.encoder)
    print(body)
    if not args.no_write:
        update_section("auto-encoder-wall", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
