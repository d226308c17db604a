"""Column (e) of ``own-corpora.md`` for searches recorded before ``--auto`` had its stage 3.

``gfbgcn reproduce own-corpora --features-only`` reads each recorded search
(``raw/own-corpora/``), finds its best graph-only candidate of stages 1-2 exactly as the search
does (highest validation accuracy, earliest on ties; checked against the record's own
``combined.graph_part_model``) and trains it again on the same graph setting, seed and
tokenizer with ``--features wordllama``: the candidate :func:`gfbgcn.text.auto.search.run_auto` adds
in stage 3, so the numbers are those a full re-run of the search would record.  Records go to
``raw/own-corpora-features/`` (one per data set and seed, resumable); the existing search
records are only read.
"""

from __future__ import annotations

from typing import Any

from gfbgcn.core.harness import Layout, run_pending
from gfbgcn.core.runinfo import provenance
from gfbgcn.core.store import RunStore
from gfbgcn.text.auto.search import GraphSetting
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.auto.experiment import OwnSpec, load_own_dataset
from gfbgcn.text.tokenize.registry import make_tokenizer
from gfbgcn.text.train.full_batch import TrainConfig, train_text

#: The records of this module live in ``raw/<FEATURES_TASK>/`` (its own invocation log too).
FEATURES_TASK = "own-corpora-features"


def best_graph_candidate(search: dict[str, Any]) -> dict[str, Any]:
    """The recorded search's best graph-only candidate (highest validation accuracy, the
    earliest on ties, as :func:`gfbgcn.text.auto.search._best`)."""
    graph = [c for c in search["candidates"] if c["predictor"] == "graph"
             and c.get("features", "onehot") == "onehot"]
    best = graph[0]
    for c in graph[1:]:
        if float(c["val_accuracy"]) > float(best["val_accuracy"]):
            best = c
    return best


def _setting(c: dict[str, Any]) -> GraphSetting:
    stop = None if c["stop_words"] == "none" else c["stop_words"]
    return GraphSetting(stop, int(c["min_freq"]), int(c["window"]))


def features_run(spec: OwnSpec, corpus, search: dict[str, Any], epochs: int) -> dict[str, Any]:
    """Train the recorded search's stage-3 candidate; the record of column (e)."""
    best = best_graph_candidate(search)
    setting = _setting(best)
    label = f"{best['model']} ({setting.label()})"
    if label != search["combined"]["graph_part_model"]:
        raise ValueError(f"{spec.dataset} seed {spec.seed}: recomputed best candidate {label} "
                         f"differs from the record's {search['combined']['graph_part_model']}")
    model, _, fast = best["model"].partition(" ")
    tokenizer = make_tokenizer(search["tokenizer"])
    graph = build_text_graph(corpus, GraphConfig(window=setting.window,
                                                 min_freq=setting.min_freq,
                                                 stop_words=setting.stop_words), tokenizer)
    options = {"exact": fast != "fast"} if model.startswith("gfb-") else {}
    config = TrainConfig(model=model, seed=spec.seed, epochs=epochs, layer_options=options,
                         features="wordllama")
    result = train_text(graph, config, progress=False)
    return {
        "dataset": spec.dataset, "seed": spec.seed, "tokenizer": search["tokenizer"],
        "features": {"accuracy": result.test["accuracy"], "macro_f1": result.test["macro_f1"],
                     "val_accuracy": result.val["accuracy"], "kind": "wordllama",
                     "model": label, "onehot": {**best["test"],
                                                "val_accuracy": float(best["val_accuracy"])}},
        "train_seconds": result.train_seconds, "best_epoch": result.best_epoch,
        **provenance(),
    }


def run_features_grid(datasets: list[str], seeds: range, searches: RunStore, store: RunStore,
                      data_dir: str | None, epochs: int, *, threads: int | None = 1,
                      on_saved=None) -> None:
    """Column (e) for every recorded search of ``datasets`` x ``seeds`` that has none yet
    (searches not recorded are skipped: run ``reproduce own-corpora`` first)."""
    from gfbgcn.text.train.features import require_features

    require_features("wordllama")  # the extra: one line before any work
    for dataset in datasets:
        specs = [OwnSpec(dataset, s) for s in seeds if searches.done(OwnSpec(dataset, s).key())]
        specs = [s for s in specs if not searches.load(s.key()).get("features")]
        if not specs or all(store.done(s.key()) for s in specs):
            continue
        corpus = load_own_dataset(dataset, data_dir)
        run_pending(specs, store,
                    lambda spec: features_run(spec, corpus, searches.load(spec.key()), epochs),
                    workers=1, threads=threads, desc=f"own-corpora (e) {dataset}",
                    on_saved=on_saved)



def run_features_only(args, searches: Layout, report, run_datasets) -> None:
    """``reproduce own-corpora --features-only``: :func:`run_features_grid` per data set,
    logged in ``raw/own-corpora-features/invocations.json``, then the own-corpora report
    (``run_datasets``: the verb's shared loop, :func:`gfbgcn.cli.text_verbs._run_datasets`)."""
    features = Layout(searches.out, FEATURES_TASK)

    def run(dataset: str) -> None:
        run_features_grid([dataset], range(args.seeds), searches.store(), features.store(),
                          args.data_dir, args.epochs, threads=args.threads, on_saved=report)

    run_datasets(args, features, run, report, wrote=searches.report)
