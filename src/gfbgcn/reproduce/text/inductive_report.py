"""The inductive report ``inductive.md``: new documents against the transductive protocol.

Rendered from the records of ``gfbgcn reproduce inductive`` (also with ``--report-only``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gfbgcn.core.io import atomic_write_text
from gfbgcn.reproduce.harness import Layout, invocations_markdown
from gfbgcn.reproduce.record_schema import fraction, mapping, text, whole
from gfbgcn.reproduce.stats import mean_std

#: Every field of an inductive record this report reads (a record breaking it is left out).
RECORD_SCHEMA = {
    "dataset": text,
    "model": text,
    "seed": whole(0),
    "device": text,
    "transductive_accuracy": fraction,
    "inductive_zero_accuracy": fraction,
    "inductive_mean_accuracy": fraction,
    "transductive_best_epoch": whole(0),
    "inductive_best_epoch": whole(0),
    "test_docs_without_known_word": whole(0),
    "machine": mapping,
    "machine.cpu_count": whole(1),
    "machine.torch_threads": whole(1),
    "versions": mapping,
    "versions.torch": text,
}


def _pct(values: Sequence[float]) -> str:
    if not values:
        return "-"
    mean, std = mean_std([v * 100 for v in values])
    return f"{mean:.2f} ± {std:.2f}"


def _inductive_commands(records: list[dict[str, Any]]) -> list[str]:
    """One resumable command per dataset that covers its stored runs."""
    commands = []
    for dataset in dict.fromkeys(r["dataset"] for r in records):
        done = [r for r in records if r["dataset"] == dataset]
        models = " ".join(dict.fromkeys(r["model"] for r in done))
        seeds = max(r["seed"] for r in done) + 1
        commands.append(f"gfbgcn reproduce inductive --datasets {dataset} --models {models} "
                        f"--seeds {seeds}")
    return commands


def render_inductive_report(layout: Layout) -> None:
    """Write ``inductive.md`` from the records under ``layout`` (nothing if there are none)."""
    records = list(layout.store().records(RECORD_SCHEMA))
    if records:
        text = inductive_markdown(records, layout.read_notes())
        atomic_write_text(layout.report, "\n".join([text, *invocations_markdown(layout)]))


def inductive_markdown(records: list[dict[str, Any]], notes: str = "") -> str:
    lines = [
        "# Inductive prediction: accuracy on unseen documents",
        "",
        "Test accuracy (%) as mean ± sample std over seeds.  *Transductive*: the test documents "
        "are nodes of the training graph (the paper's protocol).  *Inductive*: the graph is built "
        "from the training documents only and the test documents are classified afterwards as "
        "new text ([docs/inductive.md](../inductive.md)); *zero* / *mean*: the new document's own "
        "first-layer embedding is taken as zero (the default) or as the mean training-document "
        "embedding.  Same seeds, same validation split, same protocol (hidden 200, dropout 0.5, "
        "Adam lr 0.02, ≤ 200 epochs, patience 10).",
        "",
        "| dataset | model | seeds | transductive | inductive (zero) | inductive (mean) | "
        "test docs with no known word |",
        "|---|---|---|---|---|---|---|",
    ]
    for dataset, model in sorted({(r["dataset"], r["model"]) for r in records}):
        rs = sorted((r for r in records if r["dataset"] == dataset and r["model"] == model),
                    key=lambda r: r["seed"])
        lines.append(
            f"| {dataset} | {model} | {','.join(str(r['seed']) for r in rs)} | "
            f"{_pct([r['transductive_accuracy'] for r in rs])} | "
            f"{_pct([r['inductive_zero_accuracy'] for r in rs])} | "
            f"{_pct([r['inductive_mean_accuracy'] for r in rs])} | "
            f"{rs[0]['test_docs_without_known_word']} |")
    lines += ["", "Per run:", "",
              "| dataset | model | seed | transductive | inductive (zero) | inductive (mean) | "
              "best epoch trans. / ind. |", "|---|---|---|---|---|---|---|"]
    for r in sorted(records, key=lambda r: (r["dataset"], r["model"], r["seed"])):
        lines.append(
            f"| {r['dataset']} | {r['model']} | {r['seed']} | "
            f"{r['transductive_accuracy'] * 100:.2f} | {r['inductive_zero_accuracy'] * 100:.2f} | "
            f"{r['inductive_mean_accuracy'] * 100:.2f} | "
            f"{r['transductive_best_epoch']} / {r['inductive_best_epoch']} |")
    m, v = records[0]["machine"], records[0]["versions"]
    if notes:
        lines += ["", notes]
    lines += [
        "",
        f"Machine: {m['cpu_count']} CPU cores (shared), torch {v['torch']} with "
        f"{m['torch_threads']} thread(s); records made on: "
        f"{', '.join(sorted({r['device'] for r in records}))}.",
        "",
        "Produced by (one command per dataset; stored runs are skipped, so each resumes):",
        "",
        "```bash",
        *_inductive_commands(records),
        "```",
        "",
    ]
    return "\n".join(lines)
