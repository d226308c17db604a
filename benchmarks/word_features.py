"""Cost of ``--features wordllama``: embedding a vocabulary, and the training epoch against
one-hot input.

1. :func:`gfbgcn.text.train.features.wordllama.word_vectors` on the ``--words`` most frequent
   distinct tokens of the 20NG corpus (``textgcn`` tokenizer): loading WordLlama from its
   wheel, then one vector per word (median of ``--repeats``);
2. the median training epoch of ``--models`` on ``--dataset`` with one-hot input and with
   WordLlama features (``Â (W1 + F W2)``: one more ``[N, 256] x [256, 200]`` product per
   epoch), and the time to build ``F`` for that graph.

Writes the "Pretrained word features" section of docs/benchmarks.md.

    python benchmarks/word_features.py [--words 60000] [--dataset r8] [--threads 1]
"""

from __future__ import annotations

import argparse
from collections import Counter

import torch

from _report import command_line, machine_line, median_seconds, update_section
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.tokenize.clean import textgcn_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.features import wordllama as features
from gfbgcn.text.train.features.inputs import node_features
from gfbgcn.text.train.run import train_text


def frequent_words(count: int) -> list[str]:
    """The ``count`` most frequent distinct tokens of 20NG (all of them if fewer)."""
    counts: Counter[str] = Counter()
    for text in load_benchmark("20ng").texts:
        counts.update(textgcn_tokenize(text))
    return [w for w, _ in counts.most_common(count)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--words", type=int, default=60000)
    p.add_argument("--dataset", default="r8")
    p.add_argument("--models", nargs="+", default=["gfb-max", "gcn"])
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)

    features.load_wordllama.cache_clear()
    load = median_seconds(
        lambda: (features.load_wordllama.cache_clear(), features.load_wordllama()), 1)
    words = frequent_words(args.words)
    embed = median_seconds(lambda: features.word_vectors(words), args.repeats)
    print(f"load {load:.2f} s; {len(words):,} words in {embed:.2f} s", flush=True)

    graph = build_text_graph(load_benchmark(args.dataset))
    node = median_seconds(lambda: node_features(graph, "wordllama"), args.repeats)
    rows = []
    for model in args.models:
        per = {}
        for kind in ("onehot", "wordllama"):
            config = TrainConfig(model=model, epochs=args.epochs, patience=args.epochs,
                                 features=kind)
            per[kind] = train_text(graph, config, progress=False).seconds_per_epoch
        rows.append((model, per["onehot"], per["wordllama"]))
        print(f"{model}: {per['onehot'] * 1000:.0f} ms/epoch one-hot, "
              f"{per['wordllama'] * 1000:.0f} ms/epoch wordllama", flush=True)
    body = [
        "## Pretrained word features (`--features wordllama`)",
        "",
        f"Loading WordLlama ({features.WORDLLAMA_CONFIG}, {features.WORDLLAMA_DIM}-d) from its "
        f"wheel: {load:.2f} s. Embedding the {len(words):,} most frequent distinct 20NG tokens "
        f"(one vector per word, WordLlama's batched `embed`, then unit length): "
        f"{embed:.2f} s ({len(words) / embed:,.0f} words/s, median of {args.repeats}).",
        "",
        f"{args.dataset.upper()} ({graph.num_docs:,} documents, {graph.num_words:,} words): "
        f"building `F` (words and TF-IDF-weighted document means) takes {node:.2f} s. Median "
        f"training epoch over {args.epochs} epochs (forward, backward, validation, step):",
        "",
        "| model | one-hot ms/epoch | wordllama ms/epoch | ratio |",
        "|---|---|---|---|",
        *[f"| {m} | {a * 1000:.0f} | {b * 1000:.0f} | {b / a:.2f} |" for m, a, b in rows],
        "",
        f"Command: `{command_line()}`. Machine: {machine_line(args.threads)}.",
    ]
    if not args.no_write:
        update_section("word-features", "\n".join(body))
    print("\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
