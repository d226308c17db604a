"""The text grids: ``gfbgcn reproduce text`` (the paper's tables) and ``reproduce inductive``.

``reproduce text`` runs dataset x model x variant x seed with the paper's protocol;
``reproduce inductive`` trains on a graph of the training documents only and classifies the
test documents as new text, beside the transductive run of the same seed.  Both go through the
shared harness (:mod:`gfbgcn.reproduce.harness`): one JSON record per finished run under
``--out``/raw/<task>/, resumable, optionally several worker processes.  The reports are rendered
by :mod:`gfbgcn.reproduce.text.report`.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import torch

from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.core.errors import OptionError
from gfbgcn.core.runinfo import provenance
from gfbgcn.nn.sparse import to_device
from gfbgcn.reproduce.harness import pending, run_pending
from gfbgcn.reproduce.store import RunStore
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import TextGraph, build_text_graph, load_graph_file
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text

DATASET_ORDER = ("20ng", "r8", "r52", "ohsumed")
DATASET_LABEL = {"20ng": "20NG", "r8": "R8", "r52": "R52", "ohsumed": "Ohsumed"}
MODEL_ORDER = ("gcn", "sgc", "gin", "fbp", "cbp", "bp", "sqrt",
               "gfb-mean", "gfb-diag", "gfb-max", "gfb-topk", "gfb-upper")
GFB_MAIN = ("gfb-mean", "gfb-diag", "gfb-max", "gfb-topk")
# variant name -> overrides of the paper's setting ("default")
VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "fast": {"layer_options": {"exact": False}},  # the paper's fast GenVec form
    "lambda0": {"train_lambda": False, "layer_options": {"lambda_init": 0.0}},  # plain GCN
    "lr0.2": {"lr": 0.2},  # SGC's usual learning rate (Wu et al. 2019)
    "lam0init": {"layer_options": {"lambda_init": 0.0}},  # learned lambda, starting as GCN
    "stopacc": {"monitor": "accuracy"},  # early stopping on validation accuracy
    # Text GIN: no self term at the start and an N(0, 1) embedding (text_notes.md, "Text GIN")
    "eps-1": {"layer_options": {"eps": -1.0, "embedding_init": "normal"}},
    # Text GIN with eps held at -1: no self term beyond Â's self-loop, so no document can fit
    # its label through its own free embedding row (fidelity.md, Text GIN rows)
    "eps-1-fixed": {"layer_options": {"eps": -1.0, "train_eps": False}},
    # the fidelity experiments (docs/results/fidelity.md): l2 on the second-order term per
    # node, alone or with the fast GenVec form, and a longer early-stopping patience for BP's
    # slow starters
    "l2": {"layer_options": {"second_norm": "l2"}},
    "fast-l2": {"layer_options": {"exact": False, "second_norm": "l2"}},
    "patience50": {"patience": 50},
}


@dataclass(frozen=True)
class RunSpec:
    dataset: str
    model: str
    variant: str
    seed: int

    def key(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "model": self.model, "variant": self.variant,
                "seed": self.seed}

    def config(self, epochs: int) -> TrainConfig:
        overrides = dict(VARIANTS[self.variant])
        overrides["layer_options"] = dict(overrides.get("layer_options", {}))
        return TrainConfig(model=self.model, seed=self.seed, epochs=epochs, **overrides)


# variants that only make sense for a GFB layer (they set its GenVec form or its lambda)
GFB_ONLY_VARIANTS = frozenset({"fast", "lambda0", "lam0init"})
GIN_ONLY_VARIANTS = frozenset({"eps-1", "eps-1-fixed"})
SGC_ONLY_VARIANTS = frozenset({"lr0.2"})
# the layers with a ``second_norm`` option (GFBConv, FBPConv, BPConv)
SECOND_NORM_MODELS = frozenset({"gfb-mean", "gfb-diag", "gfb-max", "gfb-topk", "gfb-upper",
                                "fbp", "bp"})
# The fast form of MeanVec and DiagVec only drops the constant eps (eps/k per entry for MeanVec,
# eps for DiagVec). In the output layer that adds the same amount to every class's logit, which
# softmax ignores, so the two forms train identically there: the grid runs the fast form only
# where it changes the model.
FAST_DIFFERS = frozenset({"gfb-max", "gfb-topk"})


def variant_applies(variant: str, model: str) -> bool:
    """Whether ``variant`` means anything for ``model`` (GFB- and GIN-only settings)."""
    if variant in ("fast", "fast-l2"):
        return model in FAST_DIFFERS
    if variant == "l2":
        return model in SECOND_NORM_MODELS
    if variant in GFB_ONLY_VARIANTS:
        return model.startswith("gfb-")
    if variant in GIN_ONLY_VARIANTS:
        return model == "gin"
    if variant in SGC_ONLY_VARIANTS:
        return model == "sgc"
    return True


def grid(datasets: Iterable[str], models: Iterable[str], seeds: Iterable[int],
         variants: Iterable[str] = ()) -> list[RunSpec]:
    """Seeds outermost within a dataset, so that partial grids cover every cell early.

    ``variants`` adds those variants for every model they apply to (see
    :func:`variant_applies`); the paper's setting (``default``) always runs.
    """
    extra = [v for v in dict.fromkeys(variants) if v != "default"]
    unknown = [v for v in extra if v not in VARIANTS]
    if unknown:
        raise OptionError("{0}: unknown variant(s) {unknown}; choose from {known}", "variants",
                          unknown=", ".join(unknown), known=", ".join(VARIANTS))
    return [
        RunSpec(ds, model, variant, seed)
        for ds in datasets
        for seed in seeds
        for model in models
        for variant in ("default", *extra)
        if variant_applies(variant, model)
    ]


SpecT = TypeVar("SpecT", "RunSpec", "InductiveSpec")  # the specs grouped by their data set


def _pending_by_dataset(specs: Iterable[SpecT], store: RunStore) -> dict[str, list[SpecT]]:
    """The specs not yet in ``store``, grouped by dataset (in order): a dataset whose runs are
    all done does not even load its graph."""
    todo: dict[str, list[SpecT]] = {}
    for spec in pending(specs, store):
        todo.setdefault(spec.dataset, []).append(spec)
    return todo


@dataclass
class TextGridRuns:
    """The run function of one data set's text grid: ``runs(spec)`` trains ``spec`` and returns
    its record.

    It holds only names (picklable), so GPU workers, which are spawned, can be sent it; each
    process loads the graph and moves ``Â`` to ``device`` once, on its first run (from the graph
    cache file ``graph_file`` when the parent built one, else from the benchmark), and keeps
    them for the runs that follow.  The parent process can hand over what it already loaded
    with :meth:`share` (forked CPU workers then inherit it).
    """

    dataset: str
    data_dir: str | None
    epochs: int
    device: str
    graph_file: str | None = None  # None: no cache file (caching off), built again
    graph_key: str = ""  # the cache key the file was written for (checked on load)

    def __post_init__(self) -> None:
        self._loaded: tuple[TextGraph, torch.Tensor] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_loaded"}  # names only

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._loaded = None

    def share(self, graph: TextGraph, adj: torch.Tensor) -> None:
        """Use ``graph`` and ``adj`` (already on the device) in this process."""
        self._loaded = (graph, adj)

    def load(self) -> tuple[TextGraph, torch.Tensor]:
        """The graph and its normalised adjacency on ``device`` (loaded on the first call)."""
        if self._loaded is None:
            graph = None
            if self.graph_file is not None:
                try:
                    graph = load_graph_file(self.graph_file, self.graph_key)
                except FileNotFoundError:  # evicted or cleared since: built again below
                    pass
            if graph is None:
                graph = build_text_graph(load_benchmark(self.dataset, self.data_dir))
            self._loaded = (graph, grid_adjacency(graph, resolve_device(self.device)))
        return self._loaded

    def __call__(self, spec: RunSpec) -> dict[str, Any]:
        graph, adj = self.load()
        return train_text(graph, spec.config(self.epochs), progress=False, adj=adj,
                          device=self.device).record()


def grid_adjacency(graph: TextGraph, device: torch.device) -> torch.Tensor:
    """``Â`` of ``graph`` on ``device``, built once and shared by every run of a data set."""
    data = graph.to_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        adj = normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)
    return to_device(adj, device)


def run_text_grid(specs: list[RunSpec], store: RunStore, data_dir: str | None, epochs: int, *,
                  workers: int = 1, threads: int | None = 1, on_saved=None,
                  device: str | torch.device | None = "cpu") -> None:
    """Run every spec not yet in ``store``, one dataset at a time (its graph built once and
    shared by every run; ``Â`` moved to ``device`` once per process).

    On the CPU, ``workers`` forked processes inherit the graph; on a CUDA device they are
    spawned and share the card (:func:`gfbgcn.reproduce.harness.run_pending`), each loading the
    graph from the cache file this process wrote.
    """
    device = resolve_device(device)
    spawned = workers > 1 and device.type == "cuda"
    for dataset, todo in _pending_by_dataset(specs, store).items():
        graph = build_text_graph(load_benchmark(dataset, data_dir))  # built once, cached
        runs = TextGridRuns(dataset, data_dir, epochs, str(device),
                            (graph.cache_path or None) if spawned else None, graph.key)
        if not spawned:  # this process (or its forked workers) trains: load it here, once
            runs.share(graph, grid_adjacency(graph, device))
        run_pending(todo, store, runs, workers=workers, threads=threads,
                    desc=f"reproduce text {dataset}", on_saved=on_saved, device=device)


# ---------------------------------------------------------------------------------------------
# Inductive against transductive


@dataclass(frozen=True)
class InductiveSpec:
    """One seed of one model on one dataset, trained twice (full graph, training-only graph)."""

    dataset: str
    model: str
    seed: int

    def key(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "model": self.model, "seed": self.seed}


def inductive_grid(datasets: Iterable[str], models: Iterable[str],
                   seeds: Iterable[int]) -> list[InductiveSpec]:
    return [InductiveSpec(d, m, s) for d in datasets for m in models for s in seeds]


def inductive_run(spec: InductiveSpec, corpus, graphs, epochs: int = 200,
                  device: str | torch.device | None = "cpu") -> dict[str, Any]:
    """Transductive and inductive test accuracy of one seed (see the module docstring).

    ``graphs``: the graph of the whole corpus and the graph of its training documents only
    (vocabulary, IDF, PMI and degrees never see a test document).  The inductive model is
    trained on the latter with the same seed and validation split, then the test documents are
    classified as new text, with the new document's own embedding taken as zero (the default)
    and as the mean training-document embedding.
    """
    full, train_only = graphs
    device = resolve_device(device)
    cfg = TrainConfig(model=spec.model, seed=spec.seed, epochs=epochs)
    t0 = time.perf_counter()
    trans = train_text(full, cfg, progress=False, device=device)
    t_trans = time.perf_counter() - t0
    t0 = time.perf_counter()
    ind = train_text(train_only, cfg, progress=False, device=device)
    t_ind = time.perf_counter() - t0
    assert trans.test is not None  # a benchmark's test documents carry their labels
    test_idx = np.flatnonzero(~corpus.is_train)
    texts = [corpus.texts[i] for i in test_idx]
    truth = np.array([corpus.labels[i] for i in test_idx])
    out: dict[str, Any] = {
        "dataset": spec.dataset, "model": spec.model, "seed": spec.seed,
        "transductive_accuracy": trans.test["accuracy"],
        "transductive_macro_f1": trans.test["macro_f1"],
        "transductive_best_epoch": trans.best_epoch,
        "inductive_best_epoch": ind.best_epoch,
        "inductive_val_accuracy": ind.val["accuracy"],
        "train_seconds": {"transductive": t_trans, "inductive": t_ind},
        "device": device_name(device),
    }
    for self_embedding in ("zero", "mean"):
        predictor = InductiveTextGCN.from_trained(ind.model, train_only, spec.model,
                                                  self_embedding=self_embedding)
        t0 = time.perf_counter()
        pred = predictor.predict(texts)
        out[f"inductive_{self_embedding}_predict_seconds"] = time.perf_counter() - t0
        out[f"inductive_{self_embedding}_accuracy"] = float((np.array(pred.labels) == truth).mean())
        out["test_docs_without_known_word"] = int(pred.no_known_words.sum())
    return {**out, **provenance()}


def run_inductive_grid(specs: list[InductiveSpec], store: RunStore, data_dir: str | None,
                       epochs: int, *, workers: int = 1, threads: int | None = 1,
                       on_saved=None, device: str | torch.device | None = "cpu") -> None:
    """Run every spec not yet in ``store``; both graphs of a dataset are built once."""
    for dataset, todo in _pending_by_dataset(specs, store).items():
        corpus = load_benchmark(dataset, data_dir)
        train_docs = np.flatnonzero(corpus.is_train)
        graphs = (build_text_graph(corpus),
                  build_text_graph(corpus.subset(train_docs, name=f"{dataset}-train")))
        run_pending(todo, store,
                    functools.partial(inductive_run, corpus=corpus, graphs=graphs,
                                      epochs=epochs, device=device),
                    workers=workers, threads=threads, desc=f"reproduce inductive {dataset}",
                    on_saved=on_saved)
