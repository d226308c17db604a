"""``docs/results/fidelity.md``: per row of the fidelity table, every configuration tried, its
validation and test accuracy (mean ± std over its units), and the configuration chosen on
validation.  The tables come from the records; ``fidelity_notes.md`` (by hand) is appended.

A *unit* is one seed of a text configuration, or one (split seed, fold) of a graph
configuration, after the configuration's own choice among its grid points (on validation).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.io import atomic_write_text
from gfbgcn.reproduce.fidelity.experiment import ROWS, Config, Row
from gfbgcn.reproduce.fidelity.options import options_of
from gfbgcn.reproduce.harness import Layout, invocations_markdown
from gfbgcn.reproduce.paper import paper_table
from gfbgcn.reproduce.record_schema import RecordSchema, fraction, text, whole
from gfbgcn.reproduce.stats import format_mean_std, mean_std
from gfbgcn.reproduce.store import RunStore


@dataclass(frozen=True)
class Unit:
    """The validation and test accuracy of one unit, and what else a row's table shows.
    ``id``: (seed, fold) for graphs, (seed,) for text: what pairs units across configs."""

    val: float
    test: float
    extra: dict[str, Any]
    id: tuple[int, ...] = ()


@dataclass(frozen=True)
class Summary:
    config: Config
    units: list[Unit]
    expected: int = 0  # units of a finished configuration (0: not known)

    @property
    def complete(self) -> bool:
        return self.n > 0 and self.n >= self.expected

    @property
    def n(self) -> int:
        return len(self.units)

    def val(self) -> tuple[float, float]:
        return mean_std([u.val for u in self.units])

    def test(self) -> tuple[float, float]:
        return mean_std([u.test for u in self.units])


# ---- units from records ------------------------------------------------------------------


def graph_units(config: Config, records: Sequence[dict[str, Any]]) -> list[Unit]:
    """Per (seed, fold), the grid point chosen by the configuration's rule; only seeds whose
    folds all hold every grid point of the configuration count."""
    c = config.config
    grid = {(h, n) for h in c["hidden"] for n in c["layers"]}
    by_seed: dict[int, dict[int, dict[tuple[int, int], dict]]] = defaultdict(
        lambda: defaultdict(dict))
    for r in records:
        k = r["key"]
        by_seed[int(k["seed"])][int(k["fold"])][(k["hidden"], k["layers"])] = r
    units: list[Unit] = []
    for seed in sorted(by_seed):
        folds = by_seed[seed]
        complete = {f: pts for f, pts in folds.items() if set(pts) >= grid}
        if not complete:
            continue
        if c.get("select", "val-acc") == "val-loss-mean":
            mean_loss = {p: float(np.mean([complete[f][p]["val_loss"] for f in complete]))
                         for p in sorted(grid)}
            point = min(sorted(grid), key=lambda p: mean_loss[p])
            chosen = {f: complete[f][point] for f in complete}
        else:
            chosen = {f: min((pts[p] for p in sorted(grid)),
                             key=lambda r: (-r["val_acc"], r["val_loss"], r["key"]["hidden"],
                                            r["key"]["layers"]))
                      for f, pts in complete.items()}
        for f in sorted(chosen):
            r = chosen[f]
            units.append(Unit(100.0 * r["val_acc"], 100.0 * r["test_acc"], {
                "lambda": r.get("lambda") or [], "best_epoch": r["best_epoch"],
                "point": f"{r['key']['hidden']}x{r['key']['layers']}"}, (seed, f)))
    return units


def _lambdas(value: Any) -> list[float]:
    """A record's λ as a list per layer (text: one number; entity: one per layer)."""
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def text_units(records: Sequence[dict[str, Any]]) -> list[Unit]:
    units = []
    for r in sorted(records, key=lambda r: int(r["key"]["seed"])):
        units.append(Unit(r["val"]["accuracy"], r["test"]["accuracy"], {
            "lambda": _lambdas(r.get("lambda")), "gin_eps": r.get("gin_eps") or [],
            "best_epoch": r["best_epoch"], "macro_f1": r["test"].get("macro_f1"),
            **({"val_trace": r["val_acc_history"], "test_trace": r["test_acc_history"]}
               if r.get("test_acc_history") else {})},
            (int(r["key"]["seed"]),)))
    return units


ORACLE = "@test-oracle"


def oracle_summary(config: Config, summary: Summary) -> Summary:
    """The *test-oracle* line of a ``trace_test`` configuration: per seed, the epoch with the
    highest test accuracy.  No rule that picks an epoch (on validation or otherwise) can beat
    it with these runs' weights, so it bounds what a stopping rule could add; it is never a
    result and never chosen.  Paired with the oracle line of the configuration's ``versus``."""
    oracle = Config(
        config.name + ORACLE, "bound, not a result: each seed's epoch of highest test "
        "accuracy, the most any choice of epoch could reach with these runs",
        config.config, seeds=config.seeds, candidate=False,
        versus=config.versus + ORACLE if config.versus else "")
    units = []
    for u in summary.units:
        if "test_trace" not in u.extra:
            continue
        epoch = int(np.argmax(u.extra["test_trace"]))  # the first of equal maxima
        units.append(Unit(u.extra["val_trace"][epoch], u.extra["test_trace"][epoch],
                          {"best_epoch": epoch + 1, "lambda": [], "gin_eps": []}, u.id))
    return Summary(oracle, units, summary.expected)


def summaries(row: Row, records: Iterable[dict[str, Any]], out: Path) -> list[Summary]:
    """One :class:`Summary` per configuration of ``row`` (from its records)."""
    mine: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["key"].get("row") == row.id:
            mine[r["key"]["config"]].append(r)
    out_list = []
    for c in row.configs:
        if c.existing:
            recs = existing_records(c, out, row.task)
        else:
            recs = [r for r in mine.get(c.name, []) if int(r["key"]["seed"]) < c.seeds]
        units = graph_units(c, recs) if row.task == "graphs" else text_units(recs)
        # an existing configuration mirrors a main-table cell: finished with whatever seeds
        # that cell holds (up to its cap), not with a count declared here
        expected = len(units) if c.existing else \
            c.seeds * (row.folds if row.task == "graphs" else 1)
        out_list.append(Summary(c, units, expected))
        if options_of(c.config, row.task).trace_test:
            out_list.append(oracle_summary(c, out_list[-1]))
    return out_list


#: The fields this report reads from the records of ``reproduce text|graphs`` (a record that
#: breaks them is left out with a warning naming the file and the field).
_EXISTING_SCHEMA: dict[str, RecordSchema] = {
    "text": {"key.seed": whole(0), "val.accuracy": fraction, "test.accuracy": fraction,
             "best_epoch": whole(0)},
    "graphs": {"key.hidden": whole(1), "key.layers": whole(1), "key.fold": whole(0),
               "val_acc": fraction, "test_acc": fraction, "best_epoch": whole(0)},
}


def _existing_schema(task: str) -> RecordSchema:
    return _EXISTING_SCHEMA["graphs" if task == "graphs" else "text"]


def _own_schema(rows: Sequence[Row]) -> Callable[[dict[str, Any]], RecordSchema]:
    """The fields this report reads from one of its own records: its key, and the values of
    its row's task (graph rows: a grid point's; text and entity rows: a run's)."""
    task_of = {row.id: row.task for row in rows}

    def schema(record: dict[str, Any]) -> RecordSchema:
        key = record.get("key")
        task = task_of.get(str(key.get("row"))) if isinstance(key, dict) else None
        return {"key.row": text, "key.config": text, "key.seed": whole(0),
                **_existing_schema(task or "text")}

    return schema


def existing_records(config: Config, out: Path, task: str = "text") -> list[dict[str, Any]]:
    """The records of ``reproduce text|graphs`` a configuration stands for
    (``config["existing"]`` holds their key without the seed; a graph record, made from split
    seed 0, gets ``seed = 0``)."""
    want = config.config["existing"]
    recs = []
    for r in RunStore(out / "raw" / task).records(_existing_schema(task)):
        k = r["key"]
        if not all(k.get(name) == value for name, value in want.items()):
            continue
        if task == "graphs":
            if r.get("seed", 0) != 0:
                continue
            r = {**r, "key": {**k, "seed": 0}}
        if int(r["key"]["seed"]) < config.seeds:
            recs.append(r)
    return recs


def choose(sums: Sequence[Summary]) -> Summary | None:
    """The finished non-reference candidate configuration with the best mean validation
    accuracy (ties: the earlier one in the list).  Reads nothing but validation numbers."""
    best: Summary | None = None
    for s in sums:
        if s.config.reference or not s.config.candidate or not s.complete:
            continue
        if best is None or s.val()[0] > best.val()[0]:
            best = s
    return best


# ---- rendering ---------------------------------------------------------------------------


def _paper(row: Row) -> str:
    if row.task == "graphs":
        value = paper_table("graphs")["results"].get(row.model, {}).get(row.dataset)
        return f"{value[0]:.1f} ± {value[1]:.1f}" if value else "–"
    if row.task == "entity":  # in %, without std: as a fraction, like our entity units
        value = paper_table("entity")["models"].get(row.model, {}).get(row.dataset)
        return f"{value / 100:.4f} (no std given)" if value is not None else "–"
    value = paper_table("text")["accuracy"].get(row.model, {}).get(row.dataset)
    return f"{value[0]:.4f} ± {value[1]:.4f}" if value else "–"


def _paper_gain(row: Row) -> str:
    """The paper's gain of the row's model over ``row.paper_gain_over`` (text rows, in points
    as the paired column), or ``""``."""
    if not row.paper_gain_over or row.task != "text":
        return ""
    accuracy = paper_table("text")["accuracy"]
    ours = accuracy.get(row.model, {}).get(row.dataset)
    versus = accuracy.get(row.paper_gain_over, {}).get(row.dataset)
    if not (ours and versus):
        return ""
    return f", gain over {row.paper_gain_over} **{100 * (ours[0] - versus[0]):+.2f}**"


def paired(s: Summary, ref: Summary, points: float = 1.0) -> str:
    """Test accuracy minus the reference's on the units both have (times ``points``): mean ±
    std, and on how many units it is higher / lower."""
    theirs = {u.id: u.test for u in ref.units}
    diff = [points * (u.test - theirs[u.id]) for u in s.units if u.id in theirs]
    if not diff or s is ref:
        return ""
    m, sd = mean_std(diff)
    up, down = sum(d > 0 for d in diff), sum(d < 0 for d in diff)
    return f"{m:+.2f} ± {sd:.2f} vs `{ref.config.name}` ({up} up, {down} down of {len(diff)})"


def _extra(s: Summary) -> str:
    if not s.units:
        return ""
    parts = [f"best epoch {np.mean([u.extra['best_epoch'] for u in s.units]):.0f}"]
    lams = [u.extra["lambda"] for u in s.units if u.extra.get("lambda")]
    if lams:
        depth = min(len(x) for x in lams)
        parts.append("λ " + ", ".join(f"{np.mean([x[i] for x in lams]):.2f}"
                                       for i in range(depth)))
    eps = [u.extra["gin_eps"] for u in s.units if u.extra.get("gin_eps")]
    if eps:
        depth = min(len(x) for x in eps)
        parts.append("GIN ε " + ", ".join(f"{np.mean([x[i] for x in eps]):.2f}"
                                          for i in range(depth)))
    points = [u.extra["point"] for u in s.units if "point" in u.extra]
    if points and len(set(points)) > 1:
        counts: dict[str, int] = defaultdict(int)
        for p in points:
            counts[p] += 1
        parts.append("chosen " + ", ".join(f"{p}: {n}" for p, n in sorted(counts.items())))
    f1 = [u.extra["macro_f1"] for u in s.units if u.extra.get("macro_f1") is not None]
    if f1:
        parts.append(f"macro F1 {np.mean(f1):.3f}")
    return "; ".join(parts)


def _paired_cell(s: Summary, ref: Summary | None, by_name: dict[str, Summary],
                 points: float) -> str:
    other = by_name.get(s.config.versus) if s.config.versus else ref
    return paired(s, other, points) if other is not None and other.n else ""


def row_markdown(row: Row, sums: Sequence[Summary]) -> list[str]:
    digits = 1 if row.task == "graphs" else 4
    unit = "(seed, fold)" if row.task == "graphs" else "seed"
    chosen = choose(sums)
    ref = next((x for x in sums if x.config.reference and x.n), None) or (
        sums[0] if sums and sums[0].n else None)
    by_name = {x.config.name: x for x in sums}
    points = 1.0 if row.task == "graphs" else 100.0
    lines = [f"## {row.title}", "",
             f"Row `{row.id}`; paper: **{_paper(row)}**{_paper_gain(row)}. Each cell: mean ± "
             f"std over units (one unit = one {unit}), number of units in brackets."
             + (" Paired: test accuracy minus that of the configuration named, on the same "
                "units" + (" (in points)" if row.task != "graphs" else "") + "." if ref else "")
             + " Only finished configurations are chosen.",
             "",
             "| configuration | hypothesis | validation | test | paired | notes |",
             "|---|---|---|---|---|---|"]
    for s in sums:
        name = f"`{s.config.name}`"
        if s.config.reference:
            name += " (reference)"
        if s.config.existing:
            name += f" (records of reproduce {row.task})"
        if not s.config.candidate:
            name += " (not a candidate: never chosen)"
        if s.n and not s.complete:
            name += f" (unfinished: {s.n} of {s.expected} units)"
        if chosen is not None and s is chosen:
            name = f"**{name} ← chosen on validation**"
        if not s.n:
            lines.append(f"| {name} | {s.config.hypothesis} | not run | | | |")
            continue
        v, t = s.val(), s.test()
        lines.append(f"| {name} | {s.config.hypothesis} | "
                     f"{format_mean_std(*v, n=s.n, digits=digits)} | "
                     f"{format_mean_std(*t, n=s.n, digits=digits)} | "
                     f"{_paired_cell(s, ref, by_name, points)} | {_extra(s)} |")
    lines.append("")
    lines.append("Configurations (as run):")
    lines.append("")
    for s in sums:
        lines.append(f"- `{s.config.name}`: `{json.dumps(s.config.config, sort_keys=True)}`")
    lines.append("")
    return lines


def render(layout: Layout, rows: Sequence[Row] = ROWS) -> str:
    records = list(layout.store().records(_own_schema(rows)))
    lines = [
        "# Fidelity: experiments behind the cells that differ from the paper",
        "",
        ("Generated by `gfbgcn reproduce fidelity` (`src/gfbgcn/reproduce/fidelity/`; rows "
         "and hypotheses in its `hypotheses.json`) from the run records in `raw/fidelity/` "
         "beside this file (and, for configurations marked so, those of `reproduce text` in "
         "`raw/text/`). Each row is one cell of the paper that "
         "our main tables do not reproduce; each configuration is one hypothesis about why. "
         "Per row the configuration with the best **mean validation accuracy** is chosen "
         "(reference configurations, e.g. Text GCN for a gain, are shown but never chosen); "
         "test accuracy plays no part in the choice. The paper's numbers come from "
         "`src/gfbgcn/reproduce/paper_tables/*.json` and are never used as results."),
        "",
        ("Graph rows: a unit is one fold of one cross-validation split seed (the paper's "
         "10-fold protocol of `reproduce graphs`; fold k of split seed s trains from seed "
         "s + k), accuracy in %. Text rows: a unit is one seed, accuracy as a fraction."),
        "",
    ]
    for row in rows:
        lines += row_markdown(row, summaries(row, records, layout.out))
    notes = layout.read_notes()
    if notes:
        lines += [notes, ""]
    lines += invocations_markdown(layout)
    return "\n".join(lines).rstrip() + "\n"


def write_report(layout: Layout, rows: Sequence[Row] = ROWS) -> Path:
    atomic_write_text(layout.report, render(layout, rows))
    return layout.report


__all__ = ["Summary", "Unit", "choose", "graph_units", "render", "row_markdown", "summaries",
           "text_units", "write_report"]
