"""``gfbgcn reproduce own-corpora``: paper defaults, ``--auto``, the linear baseline and the
combined predictor on the five extra corpora and the four benchmarks, several seeds.

One run per (dataset, seed) is one ``--auto`` search (:func:`gfbgcn.text.search.auto.run_auto`) with
the corpus's default tokenizer (``unicode`` for the files, ``textgcn`` for the benchmarks).  Its
first graph candidate *is* the paper's setting (GFB-MaxVec, English stop words, ``min_freq`` 5,
window 20), so one search yields every column of the report:

* (a) paper defaults: the first candidate's test metrics;
* (b) ``--auto``: the chosen candidate's;
* (c) the linear baseline (word + char n-gram TF-IDF, classifier chosen on validation,
  :mod:`gfbgcn.text.linear.baseline`) fitted on the same split; records written before
  2026-11-26 hold the unigram TF-IDF + LR baseline here (their ``baseline`` has ``C`` and no
  ``classifier``);
* (d) combined: the best graph-only candidate (by validation) interpolated with the baseline,
  weight chosen on validation, and "its better part" (the max of that graph model's and the
  baseline's test accuracy) for the issue's target;
* (e) pretrained features: the search's stage-3 candidate (its best graph-only candidate of
  stages 1-2 trained again with ``--features wordllama``), beside that one-hot twin
  (``features``; ``None`` when the ``embeddings`` extra is not installed).  Searches recorded
  before stage 3 existed had this column trained afterwards from their records; those runs'
  provenance is the record's ``features_run``.

Records go through the shared harness (:mod:`gfbgcn.reproduce.harness`): one JSON file per finished
run under ``<out>/raw/own-corpora/``, so an interrupted grid resumes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import torch

from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.core.paths import data_root
from gfbgcn.core.runinfo import provenance
from gfbgcn.reproduce.harness import run_pending
from gfbgcn.reproduce.store import RunStore
from gfbgcn.text.corpus.benchmarks import Corpus, load_benchmark
from gfbgcn.text.corpus.table import load_table
from gfbgcn.text.params import default_tokenizer
from gfbgcn.text.search.auto import AutoResult, Candidate, chosen_summary, run_auto
from gfbgcn.text.tokenize.registry import make_tokenizer
from gfbgcn.text.train.config import TrainConfig

#: The user-CSV corpora of ``<data>/text-extra`` (MANIFEST.md there): the five of
#: ``docs/results/vs-linear.md``.
EXTRA_CORPORA = ("customer-reviews", "mpqa-opinion", "subjectivity", "slo-opinion",
                 "election-tweets-2016")
OWN_DATASETS = (*EXTRA_CORPORA, "r8", "r52", "ohsumed", "20ng")


@dataclass(frozen=True)
class OwnSpec:
    dataset: str
    seed: int

    def key(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "seed": self.seed}


def load_own_dataset(name: str, data_dir: str | None) -> Corpus:
    """An extra corpus (``<data>/text-extra/<name>.csv``, columns text,label,split) or a
    benchmark."""
    if name in EXTRA_CORPORA:
        return load_table(data_root(data_dir) / "text-extra" / f"{name}.csv")
    return load_benchmark(name, data_dir)


def _combined_of(auto: AutoResult, graph_only: Candidate) -> Candidate:
    for c in auto.candidates:
        if (c.predictor != "graph" and c.setting == graph_only.setting
                and c.model == graph_only.model and c.fast == graph_only.fast
                and c.features == graph_only.features):
            return c
    raise LookupError("no combination of the best graph-only candidate")


def own_run(spec: OwnSpec, corpus: Corpus, epochs: int,
            device: torch.device | None = None) -> dict[str, Any]:
    """One ``--auto`` search (its candidates trained on ``device``, default auto) and the
    report's columns (see the module docstring)."""
    name = default_tokenizer(benchmark=spec.dataset not in EXTRA_CORPORA)
    tokenizer = make_tokenizer(name)
    device = resolve_device(device)
    auto = run_auto(corpus, tokenizer, TrainConfig(seed=spec.seed, epochs=epochs),
                    log=lambda _: None, device=device)
    best_graph = auto.best_graph_only()
    combined = _combined_of(auto, best_graph)
    baseline = auto.baseline
    assert baseline is not None  # run_auto searched with its baseline (baseline=True)
    assert baseline.test is not None  # the corpora's test documents carry their labels
    defaults = next(c for c in auto.candidates if c.predictor == "graph")
    assert (defaults.graph_setting.min_freq == 5 and defaults.model == "gfb-max"
            and not defaults.fast)
    return {
        "dataset": spec.dataset, "seed": spec.seed, "tokenizer": name,
        "defaults": defaults.test,
        "auto": auto.chosen.test,
        "auto_choice": chosen_summary(auto),
        "baseline": {"accuracy": baseline.test["accuracy"],
                     "macro_f1": baseline.test["macro_f1"],
                     "classifier": baseline.model.description},
        "combined": {**combined.test, "weight": combined.weight,
                     "graph_part": best_graph.test,
                     "graph_part_model": f"{best_graph.model_label} "
                                         f"({best_graph.graph_setting.label()})"},
        "features": features_column(auto.candidates),
        "candidates": [{**c.row(), "test": c.test} for c in auto.candidates],
        "wall_seconds": auto.seconds,
        "device": device_name(device),
        **provenance(),
    }


def features_column(candidates: list[Candidate]) -> dict[str, Any] | None:
    """Column (e): the stage-3 (pretrained features) candidate's test metrics and validation
    accuracy, and those of its one-hot twin (same graph setting and model); None if absent."""
    graph = [c for c in candidates if c.predictor == "graph"]
    featured = [c for c in graph if c.features == "wordllama"]
    if not featured:
        return None
    f = featured[0]
    twin = next(c for c in graph if c.features == "onehot" and c.setting == f.setting
                and c.model == f.model and c.fast == f.fast)
    return {**f.test, "val_accuracy": f.val_accuracy, "kind": f.features,
            "model": f"{twin.model_label} ({f.graph_setting.label()})",
            "onehot": {**twin.test, "val_accuracy": twin.val_accuracy}}


def run_own_grid(datasets: list[str], seeds: range, store: RunStore, data_dir: str | None,
                 epochs: int, *, workers: int = 1, threads: int | None = 1,
                 device: torch.device | None = None, on_saved=None) -> None:
    """Every (dataset, seed) not yet in ``store``, seeds innermost, ``workers`` searches at once
    (forked processes with ``threads`` torch threads each); a dataset whose runs are all done is
    not even loaded."""
    for dataset in datasets:
        specs = [OwnSpec(dataset, s) for s in seeds]
        if all(store.done(s.key()) for s in specs):
            continue
        corpus = load_own_dataset(dataset, data_dir)
        run_pending(specs, store,
                    functools.partial(own_run, corpus=corpus, epochs=epochs, device=device),
                    workers=workers, threads=threads, desc=f"reproduce own-corpora {dataset}",
                    on_saved=on_saved)

