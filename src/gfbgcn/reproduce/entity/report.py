"""Markdown report of the entity-classification reproduction (``docs/results/entity.md``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gfbgcn.core.device import device_label
from gfbgcn.reproduce.paper import paper_table
from gfbgcn.reproduce.stats import format_mean_std

MODEL_LABELS = {"rgcn": "R-GCN", "gfb-rgcn": "GFB-R-GCN"}


@dataclass
class DatasetOutcome:
    """What happened for one data set: either ``unavailable`` or per-model results."""

    name: str
    unavailable: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    majority_acc: float | None = None
    # model -> {"config": EntityConfig dict/tag, "selection": [...], "test": summary}
    models: dict[str, dict[str, Any]] = field(default_factory=dict)


def _value(value: float | None, digits: int = 2, signed: bool = False) -> str:
    """One number (the paper's, or a difference), ``-`` when there is none."""
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _results_table(outcomes: list[DatasetOutcome], models: list[str],
                   paper: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The main table's rows, and the ``dataset/model`` cells more than 2 std from the paper."""
    rows: list[str] = []
    flagged: list[str] = []
    for out in outcomes:
        for model in models:
            ref = paper["models"].get(model, {}).get(out.name)
            label = MODEL_LABELS.get(model, model)
            if out.unavailable is not None or model not in out.models:
                rows.append(f"| {out.name.upper()} | {label} | not run: data unavailable offline "
                            f"| {_value(ref)} | | | 0 | | | |")
                continue
            res = out.models[model]
            test = res["test"]
            delta = test["acc_mean"] - ref if ref is not None else None
            ratio = delta / test["acc_std"] if delta is not None and test["acc_std"] > 0 else None
            if ratio is not None and abs(ratio) > 2:
                flagged.append(f"{out.name}/{model}")
            rows.append(
                f"| {out.name.upper()} | {label} | "
                f"{format_mean_std(test['acc_mean'], test['acc_std'], digits=2)} | "
                f"{_value(ref)} | {_value(delta, 2, signed=True)} | "
                f"{_value(ratio, 1, signed=True)} | {test['runs']} | "
                f"`{res['tag']}` | {test['sec_per_epoch']:.3f} | {test['peak_rss_mib']:.0f} |"
            )
    return rows, flagged


def _data_section(outcomes: list[DatasetOutcome]) -> list[str]:
    lines = ["", "## Data", "",
             "| data set | nodes | edges | relations | classes | train | test | "
             "majority-class test acc % | status |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for out in outcomes:
        if out.unavailable is not None:
            lines.append(f"| {out.name.upper()} | | | | | | | | not run: data unavailable "
                         f"offline |")
            continue
        st = out.stats
        lines.append(
            f"| {out.name.upper()} | {st['num_nodes']:,} | {st['num_edges']:,} | "
            f"{st['num_relations']} | {st['num_classes']} | {st['train']} | {st['test']} | "
            f"{_value(out.majority_acc)} | {st.get('note', 'loaded')} |"
        )
    unavailable = [o for o in outcomes if o.unavailable is not None]
    if unavailable:
        lines += ["", "Why data sets were not run:", ""]
        lines += [f"- {o.name.upper()}: {o.unavailable}" for o in unavailable]
    return lines


def _selection_section(outcomes: list[DatasetOutcome], models: list[str]) -> list[str]:
    lines = ["", "## Validation-based choices", "",
             "Each candidate was trained on 80% of the benchmark training nodes (stratified, "
             "split seed = model seed = s for s in 0..S-1) and scored on the held-out 20%; the "
             "highest mean validation accuracy wins (ties: lower mean validation "
             "cross-entropy, then the earlier row). Tags: `h` hidden size, `full`/`bN` no basis "
             "decomposition / N bases, `wd` Adam weight decay (all parameters), `lr`, `e` "
             "epochs, then for GFB-R-GCN the summarizer and `lam` the initial λ of both layers.",
             ""]
    for out in outcomes:
        for model in models:
            res = out.models.get(model)
            if not res or not res.get("selection"):
                continue
            lines += [f"**{out.name.upper()} / {MODEL_LABELS.get(model, model)}**", "",
                      "| config | runs | val acc % (mean ± std) | val loss | chosen |",
                      "| --- | --- | --- | --- | --- |"]
            for row in res["selection"]:
                lines.append(
                    f"| `{row['tag']}` | {row['runs']} | {100 * row['val_acc_mean']:.2f} ± "
                    f"{100 * row['val_acc_std']:.2f} | {row['val_loss_mean']:.4f} | "
                    f"{'**yes**' if row['chosen'] else ''} |"
                )
            lines.append("")
    return lines


def _per_run_section(outcomes: list[DatasetOutcome], models: list[str]) -> list[str]:
    lines = ["## Per-run test accuracies", ""]
    for out in outcomes:
        for model in models:
            res = out.models.get(model)
            if not res:
                continue
            accs = ", ".join(f"{a:.2f}" for a in res["test"]["acc"])
            extra = ""
            if res["test"]["lambdas_mean"]:
                lam = ", ".join(f"{v:.3f}" for v in res["test"]["lambdas_mean"])
                extra = f"; learned λ per layer (mean over runs): {lam}"
            lines.append(f"- {out.name.upper()} / {MODEL_LABELS.get(model, model)}: {accs}"
                         f" ({res['test']['num_parameters']:,} parameters{extra})")
    return lines


def render(
    outcomes: list[DatasetOutcome],
    models: list[str],
    command: str,
    devices: list[str],
    raw_dir: str,
    notes: str = "",
    commands: list[str] | None = None,
) -> str:
    """The whole markdown page (``notes``: the hand-written ``entity_notes.md``; ``commands``:
    markdown lines listing the commands that produced the records)."""
    rows, flagged = _results_table(outcomes, models, paper_table("entity"))
    lines = [
        "# Entity classification (supplement, Table \"Entity classification results\")",
        "",
        "Generated by `gfbgcn reproduce entity`; do not edit by hand (notes live in "
        "`entity_notes.md` beside this file).",
        "",
        "Command:",
        "",
        "```",
        command,
        "```",
        "",
        "Test accuracy (%) on the benchmark train/test splits, mean ± sample std over the runs "
        "(seeds 0..n-1). Paper: the table's value (averaged over 10 runs, no std given), read "
        "from `src/gfbgcn/reproduce/paper_tables/entity.json`. Δ = ours − paper in percentage "
        "points; "
        "Δ/std in units of our std. s/epoch: mean wall time of one training epoch "
        "(forward, backward, Adam step); peak RSS: the largest per-run peak resident memory "
        "of the process (includes the Python/torch baseline).",
        "",
        "| data set | model | ours (test acc %) | paper | Δ | Δ/std | runs | config (chosen on "
        f"validation) | s/epoch ({device_label(devices)}) | peak RSS MiB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
    ]
    lines += _data_section(outcomes)
    lines += _selection_section(outcomes, models)
    lines += _per_run_section(outcomes, models)
    lines += ["", "## Notes", ""]
    if flagged:
        lines += ["Rows more than 2 std away from the paper: " + ", ".join(flagged)
                  + " (see below).", ""]
    lines += [notes.strip(), ""]
    lines += commands or []
    lines += [
        "## Environment",
        "",
        "- machines shared with other jobs, so times are indicative only; records made on: "
        + ", ".join(devices),
        f"- raw per-run records (seed, config, machine, versions, metrics): `{raw_dir}`",
        "",
    ]
    return "\n".join(lines)
