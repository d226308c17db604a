"""``docs/results/own-corpora.md`` from the records of ``gfbgcn reproduce own-corpora``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from gfbgcn.core.io import atomic_write_text
from gfbgcn.reproduce.harness import Layout, invocations_markdown
from gfbgcn.reproduce.own_corpora.experiment import OWN_DATASETS
from gfbgcn.reproduce.stats import mean_std

COLUMNS = (("defaults", "(a) paper defaults"), ("auto", "(b) --auto"),
           ("baseline", "(c) linear baseline"), ("combined", "(d) combined"))


#: with (e), the pretrained-features candidate (absent where the embeddings extra was not installed)
ALL_COLUMNS = (*COLUMNS, ("features", "(e) pretrained features"))


def _column(recs: list[dict[str, Any]], key: str, metric: str) -> str:
    """A column's mean ± std over the records that have it (their count if not all do)."""
    values = [r[key][metric] for r in recs if r.get(key)]
    cell = _pct(values)
    return cell if len(values) in (0, len(recs)) else f"{cell} (n={len(values)})"


def _pct(values: Sequence[float]) -> str:
    m, s = mean_std([100 * v for v in values])
    return "–" if not values else (f"{m:.2f}" if len(values) == 1 else f"{m:.2f} ± {s:.2f}")


def _mean(values: Sequence[float]) -> float:
    return 100 * sum(values) / len(values)


def _choice(rec: dict[str, Any]) -> str:
    a = rec["auto_choice"]
    if a["predictor"] == "linear":
        return f"the linear baseline ({a.get('linear', '')})"
    model = a["model"] + (" fast" if a["fast_genvec"] else "") + \
        ("" if a.get("features", "onehot") == "onehot" else f" +{a['features']}")
    plus = f" + linear (w={a['weight']:.2f})" if a["predictor"] != "graph" else ""
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
    lines = ["# Own corpora: paper defaults, --auto, the linear baseline, the combined "
             "predictor and pretrained features", "",
             "(c) is the built-in word + char n-gram TF-IDF linear baseline (classifier chosen "
             "on validation, refitted on the whole training split); `docs/results/"
             "vs-linear.md` compares `--auto` with four simple n-gram baselines.", "",
             "Written by `gfbgcn reproduce own-corpora` from the records in "
             "`raw/own-corpora/` (one `--auto` search per data set and seed; see "
             "`gfbgcn.reproduce.own_corpora.experiment` for what each column is). Test accuracy "
             "and macro F1 in %, mean ± sample std over "
             "the seeds in column n.", "",
             "| data set | n | " + " | ".join(f"{t} acc" for _, t in ALL_COLUMNS) + " | "
             + " | ".join(f"{t} F1" for _, t in ALL_COLUMNS) + " | --auto wall s |",
             "|---|---|" + "---|" * (2 * len(ALL_COLUMNS) + 1)]
    for ds in order:
        recs = sorted(by_ds[ds], key=lambda r: r["seed"])
        accs = [_column(recs, k, "accuracy") for k, _ in ALL_COLUMNS]
        f1s = [_column(recs, k, "macro_f1") for k, _ in ALL_COLUMNS]
        wall = sum(r["wall_seconds"] for r in recs) / len(recs)
        lines.append(f"| {ds} | {len(recs)} | " + " | ".join(accs) + " | " + " | ".join(f1s)
                     + f" | {wall:.0f} |")
    lines += ["", "## The issue's targets (on the mean test accuracy, points)", "",
              "| data set | n | --auto ≥ linear baseline − 0.5 | --auto ≥ defaults − 0.5 | "
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
    lines += settings_section(by_ds, order)
    lines += features_section(by_ds, order)
    missing = [d for d in OWN_DATASETS if d not in by_ds]
    if missing:
        lines += ["", f"Not run yet: {', '.join(missing)}."]
    if notes:
        lines += ["", notes]
    return "\n".join(lines + [""] + list(commands))


def _setting(row: dict[str, Any]) -> str:
    return f"stop {row['stop_words']}, min_freq {row['min_freq']}"


def settings_section(by_ds: dict[str, list[dict[str, Any]]], order: list[str]) -> list[str]:
    """Stage 1 of every search: GFB-MaxVec on each graph setting, mean validation (and test)
    accuracy per data set -- the measurement behind the defaults of a user's file."""
    table: dict[str, dict[str, list[tuple[float, float, bool]]]] = {}
    for ds in order:
        for r in by_ds[ds]:
            for c in r.get("candidates", []):
                if (c["predictor"] == "graph" and c["model"] == "gfb-max"
                        and c.get("features", "onehot") == "onehot" and str(c["window"]) == "20"):
                    table.setdefault(_setting(c), {}).setdefault(ds, []).append(
                        (float(c["val_accuracy"]), c["test"]["accuracy"],
                         bool(c.get("stopped_at"))))
    if not table:
        return []
    lines = ["", "## Graph settings (stage 1: GFB-MaxVec, window 20)", "",
             "Validation accuracy (the search's choice) / test accuracy in %, mean over the "
             "seeds; a candidate stopped early by the search (at a rung, trailing the best one "
             "so far at the same epoch) counts with its best validated weights, and \"k "
             "stopped\" says how many seeds' were. The last columns average the data sets' "
             "means.", "",
             "| setting | " + " | ".join(order) + " | mean val | mean test |",
             "|---|" + "---|" * (len(order) + 2)]
    for setting, cells in table.items():
        means = {ds: (_mean([v for v, _, _ in cells[ds]]), _mean([t for _, t, _ in cells[ds]]))
                 for ds in order if ds in cells}
        stopped = {ds: sum(x for _, _, x in cells[ds]) for ds in means}
        row = [f"{means[ds][0]:.2f} / {means[ds][1]:.2f}"
               + (f" ({stopped[ds]} stopped)" if stopped[ds] else "") if ds in means else "–"
               for ds in order]
        mv = sum(v for v, _ in means.values()) / len(means)
        mt = sum(t for _, t in means.values()) / len(means)
        lines.append(f"| {setting} | " + " | ".join(row) + f" | {mv:.2f} | {mt:.2f} |")
    return lines


def features_section(by_ds: dict[str, list[dict[str, Any]]], order: list[str]) -> list[str]:
    """Column (e), pretrained word features, beside its one-hot twin (same model, graph and
    seed), from the records that have it (see
    :func:`gfbgcn.reproduce.own_corpora.experiment.own_run`)."""
    lines = ["", "## (e) Pretrained word features (WordLlama, 256-d) against one-hot input", "",
             "The search's best graph-only candidate trained again with `--features wordllama` "
             "(one-hot identity plus WordLlama vectors), beside the same model on the same "
             "graph and seed with one-hot input only. Δ: mean paired difference in points; "
             "\"stopped early\": seeds whose features candidate the search stopped at a rung "
             "(its accuracy is then that of an unfinished model).", "",
             "| data set | n | (e) pretrained features acc | one-hot acc | Δ acc | "
             "(e) pretrained features F1 | one-hot F1 | Δ F1 | wins (acc) | stopped early | "
             "model, graph |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    shown = 0
    for ds in order:
        recs = sorted((r for r in by_ds[ds] if r.get("features")), key=lambda r: r["seed"])
        if not recs:
            continue
        shown += 1
        e, one = [r["features"] for r in recs], [r["features"]["onehot"] for r in recs]
        cells = []
        for key in ("accuracy", "macro_f1"):
            diffs = [a[key] - b[key] for a, b in zip(e, one)]
            cells += [_pct([a[key] for a in e]), _pct([b[key] for b in one]), _pct(diffs)]
        wins = sum(a["accuracy"] > b["accuracy"] for a, b in zip(e, one))
        stopped = sum(_featured_stopped(r) for r in recs)
        models = Counter(f["model"] for f in e)
        lines.append(f"| {ds} | {len(recs)} | " + " | ".join(cells) + f" | {wins}/{len(recs)} | "
                     f"{stopped} | " + "; ".join(f"{m} ×{n}" for m, n in models.most_common())
                     + " |")
    return lines if shown else []


def _featured_stopped(record: dict[str, Any]) -> bool:
    """The record's WordLlama candidate was stopped early by the search."""
    return any(c["predictor"] == "graph" and c.get("features") == "wordllama"
               and c.get("stopped_at") for c in record.get("candidates", []))


def render_own_report(layout: Layout) -> None:
    records = list(layout.store().records())
    text = own_markdown(records, layout.read_notes(), invocations_markdown(layout))
    atomic_write_text(layout.report, text)
