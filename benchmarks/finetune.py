"""Fine-tuning the encoder jointly with the graph model (``--encoder-finetune``, BertGCN's
training) on the paper's benchmarks, beside the frozen encoder's ``--auto --encoder`` and
BertGCN's published numbers.

Each run is what ``gfbgcn train --dataset X --encoder MODEL --encoder-finetune --device D
--seed S`` trains: the benchmark's graph with the CLI's defaults, then
:func:`gfbgcn.text.train.finetune.train_finetune` with the estimator's training settings,
except ``--epochs`` and ``--patience``, which bound the time of a run (a GPU is lent for
minutes).  A record holds the test accuracy of the mixture and of its two parts (the graph
model alone, the encoder's linear head alone), the epochs, the time estimate printed before
training and the time taken.  It also holds, for every weight ``w`` of
:data:`~gfbgcn.text.mixture.WEIGHT_GRID`, the validation accuracy and log-loss and the test
accuracy of ``w p_graph + (1 - w) p_head`` from the same run, and the weight of lowest
validation log-loss (:func:`~gfbgcn.text.mixture.choose_weight`).  The report reads the
mixture at the trained ``w`` (0.7, BertGCN's) and at the weight chosen on validation from that
table, so records of runs that predicted with the trained ``w`` (before
``--encoder-finetune`` chose it on validation) and of later runs read alike::

    python benchmarks/finetune.py --datasets r8 r52 ohsumed 20ng --seeds 3 \\
        --encoder ../shared/models/all-MiniLM-L6-v2 --device cuda --budget 540 \\
        --out docs/results/raw/finetune --report docs/results/finetune.md

Runs go seed by seed (every data set's seed 0 first); a run whose data set took longer last
time than the budget has left is skipped, and a record already written is kept (the command
resumes).  ``--report-only`` renders the report from the records.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from _report import command_line, print_or_write
from vs_linear import BERTGCN, load_corpus

RAW = Path(__file__).resolve().parent.parent / "docs" / "results" / "raw"


def _accuracy(probs: np.ndarray, y: np.ndarray, rows: np.ndarray) -> float:
    return float((probs[rows].argmax(axis=1) == y[rows]).mean())


def weight_table(p_graph: np.ndarray, p_head: np.ndarray, y: np.ndarray, val: np.ndarray,
                 test: np.ndarray) -> dict[str, Any]:
    """The mixture at every weight of the grid (validation accuracy and log-loss, test
    accuracy) and at the weight chosen on the validation rows ``val`` alone."""
    from gfbgcn.core.metrics import mean_log_loss
    from gfbgcn.text.mixture import WEIGHT_GRID, choose_weight, mix

    rows: dict[str, list[float]] = {"weight": [], "val_accuracy": [], "val_log_loss": [],
                                    "test_accuracy": []}
    for w in WEIGHT_GRID:
        p = mix(p_graph, p_head, float(w))
        rows["weight"].append(float(w))
        rows["val_accuracy"].append(_accuracy(p, y, val))
        rows["val_log_loss"].append(mean_log_loss(y[val], p[val]))
        rows["test_accuracy"].append(_accuracy(p, y, test))
    w, val_acc, val_loss = choose_weight(p_graph[val], p_head[val], y[val])
    chosen = {"weight": w, "val_accuracy": val_acc, "val_log_loss": val_loss,
              "test_accuracy": _accuracy(mix(p_graph, p_head, w), y, test)}
    return {"grid": rows, "on_validation": chosen}


def run_one(dataset: str, seed: int, encoder: str, device: str, epochs: int, patience: int
            ) -> dict[str, Any]:
    """One fine-tuning run on ``dataset`` with ``seed``: its record."""
    from gfbgcn import TextGCNClassifier
    from gfbgcn.text.encoder import load_encoder
    from gfbgcn.text.train.finetune import train_finetune

    wall = time.perf_counter()
    corpus = load_corpus(dataset)
    settings = TextGCNClassifier(random_state=seed, cache=False, encoder=encoder,
                                 encoder_finetune=True, device=device, epochs=epochs,
                                 patience=patience).resolve_settings(corpus.benchmark is not None)
    graph = settings.build_graph(corpus)
    graph_seconds = time.perf_counter() - wall
    lines: list[str] = []
    run = train_finetune(graph, corpus.texts, load_encoder(encoder, device=settings.device),
                         settings.train, device=settings.device, log=lines.append)
    y = np.asarray(graph.labels)
    test = np.flatnonzero(~np.asarray(graph.is_train))
    record = run.record()
    name = record["finetune"]["encoder"]["name"]  # no machine path in a committed record
    record["finetune"]["encoder"]["name"] = Path(name).name
    return {
        "dataset": dataset, "seed": seed, "record": record, "estimate_line": lines,
        "graph_seconds": graph_seconds, "wall_seconds": time.perf_counter() - wall,
        "test_accuracy": {"mixture": _accuracy(run.probabilities, y, test),
                          "graph": _accuracy(run.graph_probabilities, y, test),
                          "head": _accuracy(run.head_probabilities, y, test)},
        "weights": weight_table(run.graph_probabilities, run.head_probabilities, y,
                                run.val_idx, test),
        "test_docs": int(len(test)),
        "predictions": run.probabilities[test].argmax(axis=1).tolist(),
        "test_labels": y[test].tolist(),
    }


def _path(out: Path, dataset: str, seed: int) -> Path:
    return out / f"{dataset}_seed{seed}.json"


def run_all(datasets: list[str], seeds: int, encoder: str, device: str, epochs: int,
            patience: int, out: Path, budget: float, seed_from: int = 0) -> None:
    """Every (seed, data set) not yet recorded, seeds ``seed_from`` to ``seeds - 1`` one by
    one, within ``budget`` seconds."""
    from gfbgcn.core.io import atomic_write_json

    start, took = time.perf_counter(), {}
    out.mkdir(parents=True, exist_ok=True)
    for seed in range(seed_from, seeds):
        for dataset in datasets:
            path = _path(out, dataset, seed)
            if path.exists():
                took[dataset] = json.loads(path.read_text())["wall_seconds"]
                continue
            left = budget - (time.perf_counter() - start)
            if took.get(dataset, 0.0) > left:
                print(f"skipped {dataset} seed {seed}: took {took[dataset]:.0f} s, "
                      f"{left:.0f} s left", flush=True)
                continue
            rec = run_one(dataset, seed, encoder, device, epochs, patience)
            rec["command"] = command_line()
            atomic_write_json(path, rec)
            took[dataset] = rec["wall_seconds"]
            acc = rec["test_accuracy"]
            print(f"{dataset} seed {seed}: mixture {acc['mixture']:.4f} graph "
                  f"{acc['graph']:.4f} head {acc['head']:.4f}, "
                  f"{rec['record']['epochs_run']} epochs, {rec['wall_seconds']:.0f} s "
                  f"({rec['estimate_line'][0] if rec['estimate_line'] else ''})", flush=True)


def _pm(values: list[float]) -> str:
    if not values:
        return "–"
    v = 100 * np.asarray(values)
    return f"{v.mean():.2f}" if len(v) == 1 else f"{v.mean():.2f} ± {v.std(ddof=1):.2f}"


def _frozen(dataset: str, seeds: list[int], part: str) -> list[float]:
    """The frozen encoder's test accuracy on the same seeds, from vs-linear's records:
    ``part`` "auto-encoder" (``--auto --encoder``) or "e" (embeddings + LR)."""
    out = []
    for s in seeds:
        name = "auto-encoder" if part == "auto-encoder" else "encoders"
        p = RAW / "vs-linear" / f"{dataset}_seed{s}_{name}.json"
        if p.is_file():
            rec = json.loads(p.read_text())
            out.append((rec["auto"] if part == "auto-encoder" else rec["baselines"][part])
                       ["test"]["accuracy"])
    return out


def _train_weight(record: dict[str, Any]) -> float:
    """The ``w`` of the training loss (records before ``train_weight``: ``weight``)."""
    ft = record["record"]["finetune"]
    return float(ft.get("train_weight", ft["weight"]))


def _on_validation(records: list[dict[str, Any]]) -> str:
    """The mixture with ``w`` chosen on validation: mean ± std and the weights, or "–"
    when a record predates the weight table."""
    if any("weights" not in r for r in records):
        return "–"
    chosen = [r["weights"]["on_validation"] for r in records]
    weights = ", ".join(f"{c['weight']:g}" for c in chosen)
    return f"{_pm([c['test_accuracy'] for c in chosen])} ({weights})"


def _at_train_weight(records: list[dict[str, Any]]) -> str:
    """The mixture at the trained ``w``, from the weight table (a record without it
    predicted with that ``w``)."""
    out = []
    for r in records:
        if "weights" not in r:
            out.append(r["test_accuracy"]["mixture"])
            continue
        grid = r["weights"]["grid"]
        k = int(np.argmin(np.abs(np.asarray(grid["weight"]) - _train_weight(r))))
        out.append(grid["test_accuracy"][k])
    return _pm(out)


def render(out: Path, datasets: list[str], note: str = "") -> str:
    recs: dict[str, list[dict[str, Any]]] = {}
    for d in datasets:
        recs[d] = [json.loads(p.read_text()) for p in sorted(out.glob(f"{d}_seed*.json"))]
    first = next((r for rs in recs.values() for r in rs), None)
    lines = ["# Fine-tuning the encoder with the graph (`--encoder-finetune`)", "",
             "Written by `benchmarks/finetune.py` (its docstring gives the protocol) from the "
             f"records in `docs/results/raw/{out.name}/`.", ""]
    if first is None:
        return "\n".join(lines + ["No record yet."]) + "\n"
    r0 = first["record"]
    cfg, ft = r0["config"], r0["finetune"]
    commands = list(dict.fromkeys(r["command"] for rs in recs.values() for r in rs))
    lines += [
        ("Command: " if len(commands) == 1 else "Commands: ")
        + "; ".join(f"`{c}`" for c in commands) + "  ",
        f"Device: {r0['device']}; torch {r0['versions'].get('torch')}.  ",
        f"Encoder `{Path(ft['encoder']['name']).name}`, {ft['max_length']} tokens a document, "
        f"{ft['batch_docs']} documents a step, encoder learning rate {ft['encoder_lr']:g}, "
        f"graph weight in the training loss w = {_train_weight(first):g}; graph model "
        f"{cfg['model']} (hidden {cfg['hidden']}, lr {cfg['lr']:g}), at most {cfg['epochs']} "
        f"epochs, patience {cfg['patience']} on the validation loss of the mixture"
        + (f". {note}" if note else "."),
        "",
        "Test accuracy in %, mean ± std over the seeds in column n. *Mixture, w on "
        "validation*: `w p_graph + (1 - w) p_head` with the weight of lowest validation "
        "log-loss on the grid 0, 0.05, ..., 1, chosen after training (the weights chosen per "
        "seed in brackets), what `--encoder-finetune` predicts; *at the trained w*: the same "
        "run's two parts mixed with the w of the training loss; *graph part*, "
        "*head part*: each of its two classifiers alone, from the same run. *Frozen*, on the "
        "same seeds (`vs-linear.md`): the encoder's embeddings + logistic regression (e), "
        "the model the head part fine-tunes, and `--auto --encoder`. "
        "BertGCN / RoBERTaGCN: published (Lin et al. 2021; BERT-base and RoBERTa-base, "
        "110 M and 125 M parameters, against this encoder's 22.7 M).", "",
        "| data set | n | mixture, w on validation | at the trained w | graph part "
        "| head part | frozen (e) "
        "| frozen `--auto --encoder` | BertGCN | RoBERTaGCN | epochs (best) | s / epoch "
        "| run, s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for d, rs in recs.items():
        if not rs:
            continue
        acc = {k: [r["test_accuracy"][k] for r in rs] for k in ("graph", "head")}
        bert = BERTGCN.get(d, ("–", "–"))
        ep = "; ".join(f"{r['record']['epochs_run']} ({r['record']['best_epoch']})" for r in rs)
        spe = np.median([r["record"]["seconds_per_epoch"] for r in rs])
        run_s = np.median([r["wall_seconds"] for r in rs])
        seeds = [r["seed"] for r in rs]
        lines.append(f"| {d} | {len(rs)} | {_on_validation(rs)} | {_at_train_weight(rs)} | "
                     f"{_pm(acc['graph'])} | "
                     f"{_pm(acc['head'])} | {_pm(_frozen(d, seeds, 'e'))} | "
                     f"{_pm(_frozen(d, seeds, 'auto-encoder'))} | "
                     f"{bert[0]} | {bert[1]} | {ep} | {spe:.1f} | {run_s:.0f} |")
    lines += ["", "*Run, s*: the whole run (graph build, tokenization, the estimate's timed "
              "steps, training, the final pass), median over the seeds.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["r8", "r52", "ohsumed", "20ng"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seed-from", type=int, default=0,
                        help="the first seed to run (the report reads every record)")
    parser.add_argument("--encoder", help="the sentence encoder to fine-tune (a directory)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--patience", type=int, default=5)
    parser.add_argument("--budget", type=float, default=float("inf"),
                        help="seconds: start no run expected to end after it")
    parser.add_argument("--out", type=Path, default=RAW / "finetune")
    parser.add_argument("--report", type=Path)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--note", default="", help="a sentence the report adds to its setup")
    args = parser.parse_args(argv)
    if not args.report_only:
        if args.encoder is None:
            parser.error("--encoder is needed unless --report-only")
        run_all(args.datasets, args.seeds, args.encoder, args.device, args.epochs,
                args.patience, args.out, args.budget, args.seed_from)
    print_or_write(render(args.out, args.datasets, args.note), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
