"""Throughput of a frozen sentence encoder on the CPU -> docs/benchmarks.md.

Documents per second of :meth:`gfbgcn.text.encoder.SentenceEncoder.embed` (no cache) for short
documents (sentences of the subjectivity corpus) and long ones (Ohsumed abstracts, about half
of them beyond a 256-token budget), in ``truncate`` and ``chunks`` mode, at each of
``--threads``; then the batch size at the largest thread count; then the whole subjectivity
corpus through :func:`gfbgcn.text.encoder.embed_documents` with a cold cache (everything
embedded and stored) and a warm one (everything read back), the figure the time target of an
``--auto`` search with an encoder depends on.  Medians of ``--repeats`` timed runs a row after
a warm-up batch, in one process: the machine is shared, so each row gives its CPU seconds and
the load average.

    python benchmarks/embed_throughput.py --model PATH [--threads 1 2] [--short 1000] [--long 200]

``--model`` defaults to ``models/all-MiniLM-L6-v2`` beside the data root (``$GFBGCN_DATA``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from _report import command_line, machine_line, update_section
from auto_time import dataset_arg
from gfbgcn.core.paths import data_root
from gfbgcn.text.corpus.benchmarks import load_corpus
from gfbgcn.text.encoder import (
    EmbeddingCache,
    SentenceEncoder,
    embed_documents,
    load_encoder,
)
from gfbgcn.text.encoder.windows import token_windows

BATCH_SIZES = [8, 16, 32, 64]


def sample(texts: list[str], n: int, seed: int = 0) -> list[str]:
    """``n`` texts drawn without replacement (all of them where fewer), in drawn order."""
    pick = np.random.default_rng(seed).permutation(len(texts))[:n]
    return [texts[i] for i in pick]


def windows_and_tokens(encoder: SentenceEncoder, texts: list[str]) -> tuple[int, int]:
    """Windows and tokens (special tokens included) the model runs on for ``texts``."""
    identity = encoder.identity
    keep = identity.max_chunks if identity.long_documents == "chunks" else 1
    windows, _ = token_windows(encoder.tokenizer, texts, identity.max_length, keep)
    return len(windows), sum(map(len, windows))


def timed_embed(encoder: SentenceEncoder, texts: list[str], batch_size: int, repeats: int
                ) -> tuple[float, float, float]:
    """Median wall and CPU seconds of embedding ``texts`` over ``repeats`` runs after a
    warm-up batch, and the highest 1-minute load average seen after a run."""
    encoder.embed(texts[:batch_size], batch_size=batch_size)
    walls, cpus, loads = [], [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        encoder.embed(texts, batch_size=batch_size)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        loads.append(os.getloadavg()[0])
    return statistics.median(walls), statistics.median(cpus), max(loads)


def throughput_rows(encoders: dict[str, SentenceEncoder], corpora: dict[str, list[str]],
                    threads: list[int], repeats: int) -> list[str]:
    lines = []
    for n_threads in threads:
        torch.set_num_threads(n_threads)
        for corpus, texts in corpora.items():
            for mode, encoder in encoders.items():
                windows, tokens = windows_and_tokens(encoder, texts)
                seconds, cpu, load = timed_embed(encoder, texts, 32, repeats)
                lines.append(f"| {corpus} | {len(texts):,} | {mode} | {n_threads} | "
                             f"{windows / len(texts):.2f} | {tokens / len(texts):.0f} | "
                             f"{seconds:.1f} | {cpu:.1f} | {load:.1f} | "
                             f"**{len(texts) / seconds:,.0f}** | {len(texts) / cpu:,.0f} | "
                             f"{tokens / seconds:,.0f} |")
                print(lines[-1], flush=True)
    return lines


def batch_rows(encoder: SentenceEncoder, corpora: dict[str, list[str]], repeats: int
               ) -> list[str]:
    lines = []
    for corpus, texts in corpora.items():
        cells = [f"{len(texts) / timed_embed(encoder, texts, b, repeats)[0]:,.0f}"
                 for b in BATCH_SIZES]
        lines.append(f"| {corpus} | {' | '.join(cells)} |")
        print(lines[-1], flush=True)
    return lines


def whole_corpus(encoder: SentenceEncoder, texts: list[str]) -> tuple[float, ...]:
    """Wall and CPU seconds of ``embed_documents`` over ``texts`` with a cold cache, the load
    average after it, and the wall seconds with the cache warm."""
    with tempfile.TemporaryDirectory() as root:
        cache = EmbeddingCache(encoder.identity, root)
        start, cpu = time.perf_counter(), time.process_time()
        cold = embed_documents(encoder, texts, cache=cache)
        middle, cpu, load = time.perf_counter(), time.process_time() - cpu, os.getloadavg()[0]
        warm = embed_documents(encoder, texts, cache=cache)
        end = time.perf_counter()
    assert np.array_equal(cold, warm)
    return middle - start, cpu, load, end - middle


def report(args: argparse.Namespace, load_s: float, lines: list[str], batches: list[str],
           whole: tuple[float, ...] | None, n_whole: int, encoder: SentenceEncoder) -> str:
    top = max(args.threads)
    identity = encoder.identity
    last = [] if whole is None else [
        "",
        f"The whole subjectivity corpus ({n_whole:,} sentences) through `embed_documents` at "
        f"{top} thread(s), truncate: **{whole[0]:.1f} s with a cold cache** (embedded and "
        f"stored, {n_whole / whole[0]:,.0f} documents/s; {whole[1]:.1f} CPU s; load average "
        f"{whole[2]:.1f} after it), {whole[3]:.2f} s with a warm one (every vector read back "
        "from the cache and checked).",
    ]
    return "\n".join([
        "## Sentence-encoder throughput (CPU)", "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(top)}", "",
        f"Model: `{Path(args.model).name}` ({identity.dim}-d, {identity.pooling} pooling, "
        f"normalised, budget {identity.max_length} tokens, chunks mode: at most "
        f"{identity.max_chunks} windows), loaded in {load_s:.1f} s (transformers' import and "
        "the files' digest included). Documents/s of `SentenceEncoder.embed` without a cache, "
        f"batches of 32 length-sorted windows, median of {args.repeats} timed runs a row after "
        "a warm-up batch. "
        "The machine is shared with other developers' jobs: \"CPU s\" is this process's CPU "
        "time and \"load\" the 1-minute load average after the row; on 2 cores, a load "
        "above 2 means the torch threads waited for each other (2 threads then run slower "
        "than 1), and at 1 thread documents per CPU second is about what an idle core gives. "
        "Short: a sample of subjectivity sentences, all within the budget, so `chunks` equals "
        "`truncate` there and is not run; long: a sample of Ohsumed abstracts.", "",
        "| documents | n | mode | threads | windows/doc | tokens/doc | s | CPU s | load "
        "| documents/s | documents/CPU s | tokens/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *lines, "",
        f"Batch size (windows a forward pass), documents/s at {top} thread(s), truncate "
        "(medians as above):", "",
        "| documents | " + " | ".join(f"batch {b}" for b in BATCH_SIZES) + " |",
        "|---|" + "---|" * len(BATCH_SIZES),
        *batches, *last,
    ])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default=str(data_root(None).parent / "models" / "all-MiniLM-L6-v2"))
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--short", type=int, default=1000, help="subjectivity sentences a row")
    p.add_argument("--long", type=int, default=200, help="Ohsumed documents a row")
    p.add_argument("--repeats", type=int, default=3, help="timed runs a row (median)")
    p.add_argument("--no-whole", action="store_true", help="skip the whole-corpus run")
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    torch.set_num_threads(max(args.threads))
    start = time.perf_counter()
    truncate = load_encoder(args.model)
    load_s = time.perf_counter() - start
    encoders = {"truncate": truncate, "chunks": load_encoder(args.model, long_documents="chunks")}
    subjectivity = load_corpus(dataset_arg("subjectivity")).texts
    short, long = sample(subjectivity, args.short), sample(load_corpus("ohsumed").texts, args.long)
    lines = throughput_rows({"truncate": truncate}, {"short (subjectivity)": short},
                            args.threads, args.repeats)
    lines += throughput_rows(encoders, {"long (Ohsumed)": long}, args.threads, args.repeats)
    torch.set_num_threads(max(args.threads))
    batches = batch_rows(truncate, {"short (subjectivity)": short, "long (Ohsumed)": long},
                         args.repeats)
    whole = None if args.no_whole else whole_corpus(truncate, list(subjectivity))
    body = report(args, load_s, lines, batches, whole, len(subjectivity), truncate)
    print(body)
    if not args.no_write:
        update_section("embed-throughput", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
