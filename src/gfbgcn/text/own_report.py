"""``docs/results/own-corpora.md`` from the records of ``gfbgcn reproduce own-corpora``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from gfbgcn.core.harness import Layout, invocations_markdown
from gfbgcn.core.io import atomic_write_text
from gfbgcn.core.stats import mean_std
from gfbgcn.text.own_experiment import OWN_DATASETS

COLUMNS = (("defaults", "(a) paper defaults"), ("auto", "(b) --auto"),
           ("baseline", "(c) TF-IDF + LR"), ("combined", "(d) combined"))


def _pct(values: Sequence[float]) -> str:
    m, s = mean_std([100 * v for v in values])
    return "–" if not values else (f"{m:.2f}" if len(values) == 1 else f"{m:.2f} ± {s:.2f}")


def _mean(values: Sequence[float]) -> float:
    return 100 * sum(values) / len(values)


def _choice(rec: dict[str, Any]) -> str:
    a = rec["auto_choice"]
    model = a["model"] + (" fast" if a["fast_genvec"] else "")
    plus = f" + LR (w={a['weight']:.2f})" if a["predictor"] != "graph" else ""
    return f"{model}{plus}, stop {a['stop_words'] or 'none'}, min_freq {a['min_freq']}, " \
           f"window {a['window']}"


def _targets(recs: list[dict[str, Any]]) -> tuple[str, str, str]:
    """The issue's three targets on the means: auto vs baseline, auto vs defaults, combined vs
    the better of its parts (points of accuracy)."""
    acc = {k: _mean([r[k]["accuracy"] for r in recs]) for k, _ in COLUMNS}
    part = max(_mean([r["combined"]["graph_part"]["accuracy"] for r in recs]), acc["baseline"])

    def verdict(diff: float, margin: float) -> str:
        return f"{'met' if diff >= -margin else 'MISSED'} ({diff:+.2f})"

    return (verdict(acc["auto"] - acc["baseline"], 0.5),
            verdict(acc["auto"] - acc["defaults"], 0.5),
            verdict(acc["combined"] - part, 0.3))


def own_markdown(records: list[dict[str, Any]], notes: str = "",
                 commands: Sequence[str] = ()) -> str:
    by_ds: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_ds.setdefault(r["dataset"], []).append(r)
    order = [d for d in OWN_DATASETS if d in by_ds]
    lines = ["# Own corpora: paper defaults, --auto, TF-IDF + LR and the combined predictor", "",
             "Written by `gfbgcn reproduce own-corpora` from the records in "
             "`raw/own-corpora/` (one `--auto` search per data set and seed; see "
             "`gfbgcn.text.own_experiment` for what each column is). Test accuracy and macro F1 "
             "in %, mean ± sample std over the seeds in column n.", "",
             "| data set | n | " + " | ".join(f"{t} acc" for _, t in COLUMNS) + " | "
             + " | ".join(f"{t} F1" for _, t in COLUMNS) + " | --auto wall s |",
             "|---|---|" + "---|" * (2 * len(COLUMNS) + 1)]
    for ds in order:
        recs = sorted(by_ds[ds], key=lambda r: r["seed"])
        accs = [_pct([r[k]["accuracy"] for r in recs]) for k, _ in COLUMNS]
        f1s = [_pct([r[k]["macro_f1"] for r in recs]) for k, _ in COLUMNS]
        wall = sum(r["wall_seconds"] for r in recs) / len(recs)
        lines.append(f"| {ds} | {len(recs)} | " + " | ".join(accs) + " | " + " | ".join(f1s)
                     + f" | {wall:.0f} |")
    lines += ["", "## The issue's targets (on the mean test accuracy, points)", "",
              "| data set | n | --auto ≥ TF-IDF + LR − 0.5 | --auto ≥ defaults − 0.5 | "
              "combined ≥ better part − 0.3 |", "|---|---|---|---|---|"]
    for ds in order:
        recs = by_ds[ds]
        lines.append(f"| {ds} | {len(recs)} | " + " | ".join(_targets(recs)) + " |")
    lines += ["", "## What --auto chose (per seed)", ""]
    for ds in order:
        counts = Counter(_choice(r) for r in by_ds[ds])
        lines.append(f"- **{ds}**: " + "; ".join(f"{c} ×{n}" for c, n in counts.most_common()))
    lines += ["", "## Combined predictor: its graph part (best graph-only candidate on "
              "validation)", ""]
    for ds in order:
        parts = Counter(r["combined"]["graph_part_model"] for r in by_ds[ds])
        weights = [r["combined"]["weight"] for r in by_ds[ds]]
        lines.append(f"- **{ds}**: graph part test accuracy "
                     f"{_pct([r['combined']['graph_part']['accuracy'] for r in by_ds[ds]])}; "
                     f"graph weights {', '.join(f'{w:.2f}' for w in weights)}; "
                     + "; ".join(f"{c} ×{n}" for c, n in parts.most_common()))
    missing = [d for d in OWN_DATASETS if d not in by_ds]
    if missing:
        lines += ["", f"Not run yet: {', '.join(missing)}."]
    if notes:
        lines += ["", notes]
    return "\n".join(lines + [""] + list(commands))


def render_own_report(layout: Layout) -> None:
    records = list(layout.store().records())
    text = own_markdown(records, layout.read_notes(), invocations_markdown(layout))
    atomic_write_text(layout.report, text)
