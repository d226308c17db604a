"""Render ``docs/results/graphs.md`` from the finished runs, beside the paper's numbers."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from gfbgcn.core.device import device_label
from gfbgcn.core.io import atomic_write_text
from gfbgcn.graph_classification.data import DATASETS
from gfbgcn.graph_classification.model import MODEL_LABELS, MODELS
from gfbgcn.reproduce.graphs.experiment import (
    HIDDEN_GRID,
    LAYERS_GRID,
    complete_folds,
    select_per_fold,
    summarize_folds,
)
from gfbgcn.reproduce.harness import Layout, invocations_markdown, thread_counts
from gfbgcn.reproduce.paper import paper_table
from gfbgcn.reproduce.record_schema import (
    finite,
    fraction,
    mapping,
    numbers,
    optional,
    text,
    whole,
)

PAPER_GRID_SIZE = len(HIDDEN_GRID) * len(LAYERS_GRID)


def _loss(value: Any) -> str | None:
    """A validation loss: any number (a diverged run's NaN only ranks it last, and its
    record still completes its fold's grid)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return None if ok else f"expected a number, got {value!r}"


#: Every field of a graph-classification record this report reads (a record breaking it is
#: left out with a warning naming the file and the field).
RECORD_SCHEMA = {
    "key.dataset": text,  # a record of another task lacks the grid's keys below
    "key.model": text,
    "key.hidden": whole(1),
    "key.layers": whole(1),
    "key.fold": whole(0),
    "num_folds": whole(1),
    "val_acc": fraction,
    "val_loss": _loss,
    "test_acc": fraction,
    "best_epoch": whole(0),
    "seconds": finite(0.0),
    "device": text,
    "train_config": mapping,
    **{f"train_config.{k}": whole(0) for k in ("epochs", "patience", "batch_size")},
    "train_config.lr": finite(0.0),
    "lambda": optional(numbers),
    "data": optional(mapping),
}

PROTOCOL_TEXT = """\
Protocol (`src/gfbgcn/graph_classification/train.py`): `StratifiedKFold(10, shuffle=True,
random_state=seed)` test folds; for test fold k one other fold, drawn with
`numpy.random.default_rng(seed + k)`, is the validation set, the remaining 8 folds train. Every
(hidden, layers) configuration is trained with Adam (lr 0.01, batch 64, no weight decay),
cross-entropy, early stopping on the validation loss (best weights restored); per test fold the
configuration with the best validation accuracy (ties: lower validation loss, then smaller) is
selected and its test accuracy counted. Model: `layers` × [conv → ReLU], global mean pooling,
Linear(h, h) → ReLU → dropout 0.5 → Linear(h, C). Convs: PyG `GCNConv` / `SAGEConv`;
GFB-GCN = `GFBConv(summarize="diag")`, GFB-GraphSAGE = `GFBSAGEConv(summarize="diag")` (both
exact DiagVec, eps = 1e-3, λ initialised to 1, one learnable λ per layer). The paper's full grid
is hidden {16, 32, 64, 128} × layers {1, ..., 5}; the "What was run" table says, per data set
and model, exactly which grid, folds and epoch budget were run here (reduced where it differs)."""


def _cell(mean: float, std: float, n: int, folds: int, configs: int = PAPER_GRID_SIZE) -> str:
    if n == 0:
        return "not run"
    cell = f"{mean:.1f} ± {std:.1f}"
    marks = [] if n == folds else [f"{n}/{folds} folds"]
    if configs != PAPER_GRID_SIZE:  # a reduced grid must not pass for the paper's protocol
        marks.append(f"{configs} of {PAPER_GRID_SIZE} configs")
    return f"{cell} ({', '.join(marks)})" if marks else cell


def _grid_text(recs: Sequence[dict[str, Any]]) -> str:
    hidden = sorted({r["key"]["hidden"] for r in recs})
    layers = sorted({r["key"]["layers"] for r in recs})
    configs = {(r["key"]["hidden"], r["key"]["layers"]) for r in recs}
    full = len(configs) == len(hidden) * len(layers)
    text = f"hidden {hidden} × layers {layers}"
    return text if full else f"{len(configs)} configs: " + ", ".join(
        f"{hidden}x{layers}" for hidden, layers in sorted(configs)
    )


def _by_dataset_model(recs: Sequence[dict[str, Any]]) -> dict[tuple[str, str], list[dict]]:
    by_dm: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in recs:
        by_dm[(r["key"]["dataset"], r["key"]["model"])].append(r)
    return by_dm


def _results_table(by_dm: dict[tuple[str, str], list[dict]], datasets: list[str]) -> list[str]:
    paper = paper_table("graphs")["results"]
    n_folds = {d: max((r["num_folds"] for (dd, _), rs in by_dm.items() if dd == d for r in rs),
                      default=10) for d in datasets}
    lines = ["| model | " + " | ".join(f"{d} ours | {d} paper" for d in datasets) + " |",
             "|---|" + "---|---|" * len(datasets)]
    for m in MODELS:
        cells = []
        for d in datasets:
            done = complete_folds(by_dm.get((d, m), []))
            mean, std, n = summarize_folds(select_per_fold(done))
            configs = len({(r["key"]["hidden"], r["key"]["layers"]) for r in done})
            p = paper.get(m, {}).get(d)
            cells += [_cell(mean, std, n, n_folds[d], configs),
                      f"{p[0]:.1f} ± {p[1]:.1f}" if p else "–"]
        lines.append(f"| {MODEL_LABELS[m]} | " + " | ".join(cells) + " |")
    return lines


def _what_was_run_row(d: str, m: str, rs: list[dict[str, Any]]) -> str:
    if not rs:
        return f"| {d} | {MODEL_LABELS[m]} | not run | 0 | 0 | | | | | |"
    sel = select_per_fold(complete_folds(rs))
    unfinished = len(rs) - len(complete_folds(rs))
    tc = rs[0]["train_config"]
    tcs = {json.dumps(r["train_config"], sort_keys=True) for r in rs}
    tc_text = f"{tc['epochs']} / {tc['patience']} / {tc['batch_size']} / {tc['lr']}"
    if len(tcs) > 1:
        tc_text += " (mixed!)"
    counts: dict[str, int] = defaultdict(int)
    for r in sel.values():
        counts[f"{r['key']['hidden']}x{r['key']['layers']}"] += 1
    lam_txt = ""
    lams = [r["lambda"] for r in sel.values() if r.get("lambda")]
    if lams:
        depth = min(len(x) for x in lams)
        lam_txt = ", ".join(f"{np.mean([x[i] for x in lams]):.2f}" for i in range(depth))
    return (
        f"| {d} | {MODEL_LABELS[m]} | {_grid_text(rs)} | "
        f"{len(sel)}/{rs[0]['num_folds']} | {len(rs)}"
        + (f" ({unfinished} in an unfinished fold, not counted)" if unfinished else "")
        + f" | {tc_text} | {np.mean([r['best_epoch'] for r in rs]):.1f} | "
        f"{sum(r['seconds'] for r in rs):.0f} | "
        + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
        + f" | {lam_txt} |"
    )


def _data_lines(recs: Sequence[dict[str, Any]]) -> list[str]:
    lines = []
    seen: set[str] = set()
    for r in recs:
        d = r["key"]["dataset"]
        if d in seen:
            continue
        seen.add(d)
        info = r.get("data", {})
        lines.append(
            f"- **{d}**: {info.get('source', '?')}; {info.get('num_graphs', '?')} graphs, "
            f"{info.get('num_nodes', '?')} nodes, {info.get('num_directed_edges', '?')} directed "
            f"edges; node features: {info.get('features', '?')}."
        )
    return lines


def _threads_line(layout: Layout) -> str:
    """How many torch threads each process had (from the invocation log: ``--threads``)."""
    counts = thread_counts(layout)
    threads = ("One torch thread" if counts in ([], [1]) else
               f"Torch threads {', '.join(map(str, counts))}")
    return f"{threads} per process; the commands below say how many processes (`--workers`) ran."


def render(records: Iterable[dict[str, Any]], layout: Layout) -> str:
    """Markdown report: our mean ± std test accuracy per (dataset, model) and the paper's."""
    recs = list(records)
    by_dm = _by_dataset_model(recs)
    extra = sorted({d for d, _ in by_dm} - set(DATASETS))  # users' own TU data sets
    datasets = list(DATASETS) + extra
    made_on = sorted({r["device"] for r in recs})
    lines = [
        "# Graph classification (supplement, Table \"Results for the problem of graph "
        "classification\")",
        "",
        "Generated by `gfbgcn reproduce graphs` (`src/gfbgcn/reproduce/graphs/`) from the run "
        "records in `raw/graphs/` beside this file; rewritten atomically while the grid runs. "
        "Records made on: " + ", ".join(made_on or ["-"]) + ".",
        "",
        "Each cell: mean ± std (population std over folds) of the test accuracy (%) of the "
        "configuration selected per fold on the validation fold. **ours** = measured here; "
        "**paper** = the number printed in the paper (copied from "
        "`src/gfbgcn/reproduce/paper_tables/graphs.json`, never used as a result). A cell with "
        "`(n/10 folds)` is averaged over the folds finished "
        "(a fold counts once every configuration of its grid has run); `(c of 20 configs)` marks a "
        "reduced grid, selected among c (hidden, layers) configurations instead of the paper's 20.",
        "",
        PROTOCOL_TEXT,
        _threads_line(layout),
        "",
        *_results_table(by_dm, datasets),
        "", "## What was run", "",
        "| data set | model | grid (hidden × layers) | folds done | runs | epochs (max) / "
        f"patience / batch / lr | mean best epoch | run time (s, sum, {device_label(made_on)}) "
        "| selected configs "
        "(hidden x layers: folds) | mean λ of selected (per layer) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_what_was_run_row(d, m, by_dm.get((d, m), [])) for d in datasets for m in MODELS]
    lines += ["", "## Data and features", "", *_data_lines(recs), ""]
    lines += invocations_markdown(layout) or ["(no command recorded)", ""]
    notes = layout.read_notes()
    if notes:
        lines += [notes, ""]
    return "\n".join(lines)


def write_report(layout: Layout) -> None:
    """Render the records under ``layout`` and atomically write ``graphs.md``."""
    atomic_write_text(layout.report, render(layout.store().records(RECORD_SCHEMA), layout))
