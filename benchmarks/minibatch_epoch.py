"""Mini-batch against full-batch epoch time in one process, and where an epoch's time goes.

Every configuration trains ``--epochs`` epochs with ``train_text`` (early stopping off) in the
same process and on the same number of torch threads, interleaved round by round
(``--rounds``), so the ratios compare like with like on a shared machine; a cell is the median
epoch (training steps and validation) over all rounds.  The phase table times the parts of one
epoch of each configuration with the trainer's own pieces: for mini-batch the epoch's layer-1
sample (``presample``), each step's rows (``batch_rows`` + row gathers), forward, backward and
optimiser step; for full batch the forward (``Â W1`` and the second layer on the training and
validation rows), backward and step.  Writes the "minibatch-epoch-time" section of
docs/benchmarks.md.

    python benchmarks/minibatch_epoch.py --dataset 20ng --models gcn gfb-max \\
        --batch-sizes 512 1024 2048 --optimizers adam sparse-adam --threads 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict

import torch

from _report import command_line, machine_line, update_section


def _timed(times: dict[str, float], name: str, fn):
    start = time.perf_counter()
    out = fn()
    times[name] += time.perf_counter() - start
    return out


def minibatch_phases(graph, config) -> dict[str, float]:
    """Seconds of one mini-batch epoch's phases (the trainer's pieces, one process)."""
    import torch.nn.functional as F

    from gfbgcn.text.train.minibatch import (
        _adjacency,
        _Loop,
        _step_module,
        epoch_batches,
    )
    from gfbgcn.text.train.sampler import SubgraphSampler
    from gfbgcn.text.train.setup import prepare_run

    cpu = torch.device("cpu")
    adj = _adjacency(graph, None)
    s = prepare_run(graph, config, adj, None, cpu, row_adj=False)
    sparse = config.optimizer == "sparse-adam"
    loop = _Loop(_step_module(s.model, sparse, cpu, None, 1), s.model,
                 SubgraphSampler(adj, config.fanout, config.seed), s.optimizer, s.targets, cpu,
                 sparse, row_budget=config.row_budget)
    times: dict[str, float] = defaultdict(float)
    layer1 = _timed(times, "sample (epoch's layer 1)", lambda: loop.sampler.presample(1))
    for step, batch in enumerate(epoch_batches(s.train_idx, config.batch_size, config.seed, 1)):
        # The loop's values bound as defaults: the closures must not see a later iteration's.
        inputs = _timed(times, "batch rows",
                        lambda b=batch, t=step: loop.inputs(b, layer1, 1, t))
        s.optimizer.zero_grad(set_to_none=True)
        loss = _timed(times, "forward", lambda b=batch, x=inputs: F.cross_entropy(
            loop.step_fn(*x), s.targets[b], reduction="sum") / len(b))
        _timed(times, "backward", loss.backward)
        _timed(times, "optimiser step", s.optimizer.step)
    return dict(times)


def fullbatch_phases(graph, config) -> dict[str, float]:
    """Seconds of one full-batch epoch's phases."""
    from gfbgcn.text.train.full_batch import _logits, _losses
    from gfbgcn.text.train.setup import prepare_run

    s = prepare_run(graph, config, None, None, torch.device("cpu"))
    times: dict[str, float] = defaultdict(float)
    s.optimizer.zero_grad(set_to_none=True)
    loss, _ = _timed(times, "forward", lambda: _losses(s, *_logits(s)))
    _timed(times, "backward", loss.backward)
    _timed(times, "optimiser step", s.optimizer.step)
    return dict(times)


def _configs(args: argparse.Namespace) -> list[tuple[str, int, str]]:
    out = []
    for model in args.models:
        out.append((model, 0, "adam"))
        out += [(model, b, o) for b in args.batch_sizes for o in args.optimizers]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", default="20ng")
    parser.add_argument("--models", nargs="+", default=["gcn", "gfb-max"])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[512, 1024, 2048])
    parser.add_argument("--optimizers", nargs="+", default=["adam"])
    parser.add_argument("--fanout", type=int, default=32)
    parser.add_argument("--row-budget", type=int, default=0,
                        help="--row-budget of every mini-batch configuration (0: none)")
    parser.add_argument("--section", default="minibatch-epoch-time")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per configuration a round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--note", default="", help="a sentence on the conditions")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from gfbgcn.text.corpus.benchmarks import load_benchmark
    from gfbgcn.text.graph.text_graph import build_text_graph
    from gfbgcn.text.train.config import TrainConfig
    from gfbgcn.text.train.run import train_text

    graph = build_text_graph(load_benchmark(args.dataset))
    seconds: dict[tuple, list[float]] = defaultdict(list)
    phases: dict[tuple, dict[str, float]] = {}
    for _ in range(args.rounds):
        for model, batch, optimizer in _configs(args):
            cfg = TrainConfig(model=model, epochs=args.epochs, patience=10**6, batch_size=batch,
                              fanout=args.fanout, optimizer=optimizer,
                              row_budget=args.row_budget if batch else 0)
            result = train_text(graph, cfg, progress=False, device="cpu")
            seconds[(model, batch, optimizer)] += [h["seconds"] for h in result.history]
            key = (model, batch, optimizer)
            if key not in phases:
                phases[key] = (minibatch_phases if batch else fullbatch_phases)(graph, cfg)
            print(key, seconds[key], phases[key], flush=True)
    update_section(args.section, _body(args, seconds, phases))
    return 0


def _body(args, seconds, phases) -> str:
    names = ["sample (epoch's layer 1)", "batch rows", "forward", "backward", "optimiser step"]
    rows = []
    for model, batch, optimizer in _configs(args):
        key = (model, batch, optimizer)
        full = statistics.median(seconds[(model, 0, "adam")])
        own = statistics.median(seconds[key])
        cells = [f"{phases[key].get(n, 0.0):.2f}" if n in phases[key] else "–" for n in names]
        label = f"batch {batch:,}, {optimizer}" if batch else "full batch"
        rows.append(f"| {model} | {label} | {own:.2f} | {own / full:.2f}× | "
                    + " | ".join(cells) + " |")
    return "\n".join([
        f"## Mini-batch against full-batch epoch time ({args.dataset}"
        + (f", row budget {args.row_budget:,}" if args.row_budget else "") + ")",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(args.threads)}" + (f"; {args.note}" if args.note else ""),
        "",
        f"One process, {args.threads} torch thread(s); every configuration trains "
        f"{args.epochs} epochs per round, {args.rounds} rounds interleaved; *s/epoch*: median "
        "epoch (steps and validation); *ratio*: to the full-batch epoch of the same model in "
        f"this run. Mini-batch: fanout {args.fanout}, one layer-1 sample per epoch"
        + (f", row budget {args.row_budget:,}" if args.row_budget else "") + ". Phase "
        "columns: seconds of one further epoch timed piece by piece (see the script's "
        "docstring); full batch has no sampling.",
        "",
        "| model | training | s/epoch | ratio | sample | batch rows | forward | backward | "
        "optimiser step |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
    ])


if __name__ == "__main__":
    sys.exit(main())
