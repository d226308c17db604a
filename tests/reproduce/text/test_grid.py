"""The text grids: which (dataset, model, variant, seed) runs exist, how a variant changes the
protocol, and the resumable run loop (with the training replaced by a stub)."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.core.errors import OptionError
from gfbgcn.reproduce.store import RunStore
from gfbgcn.reproduce.text import grid as experiment
from gfbgcn.reproduce.text.grid import (
    VARIANTS,
    InductiveSpec,
    RunSpec,
    grid,
    inductive_grid,
)


def test_grid_variants_apply_where_they_make_sense():
    specs = grid(["ohsumed"], ["gcn", "gfb-max", "gfb-mean", "sgc"], [0, 1],
                 variants=["fast", "stopacc", "lambda0", "lr0.2", "fast"])
    keys = [(s.model, s.variant, s.seed) for s in specs]
    assert len(set(keys)) == len(keys)  # a variant named twice is listed once
    assert ("gfb-max", "fast", 1) in keys and ("gcn", "fast", 0) not in keys
    assert ("gfb-mean", "fast", 0) not in keys  # the fast form only shifts its logits
    assert ("gcn", "stopacc", 0) in keys and ("gfb-max", "stopacc", 1) in keys
    assert ("gfb-max", "lambda0", 0) in keys and ("gcn", "lambda0", 0) not in keys
    # lr0.2 is Text SGC's learning rate: no other model runs it
    assert {m for m, v, _ in keys if v == "lr0.2"} == {"sgc"}
    gin = grid(["r8"], ["gcn", "gin"], [0], variants=["eps-1"])
    assert {(s.model, s.variant) for s in gin} == {("gcn", "default"), ("gin", "default"),
                                                   ("gin", "eps-1")}
    assert [s.seed for s in specs][:1] == [0] and specs[-1].seed == 1  # seeds outermost
    assert {s.dataset for s in specs} == {"ohsumed"}
    with pytest.raises(OptionError, match="^variants: unknown variant"):
        grid(["r8"], ["gcn"], [0], variants=["fastest"])


def test_default_grid_is_the_paper_setting_only():
    specs = grid(["r8", "r52"], ["gcn", "gfb-max"], range(3))
    assert len(specs) == 2 * 3 * 2 and {s.variant for s in specs} == {"default"}
    assert [s.dataset for s in specs] == ["r8"] * 6 + ["r52"] * 6  # one data set at a time
    assert specs[0].key() == {"dataset": "r8", "model": "gcn", "variant": "default", "seed": 0}


def test_run_spec_config_applies_the_variant():
    cfg = RunSpec("r8", "gfb-max", "lambda0", 3).config(epochs=7)
    assert (cfg.model, cfg.seed, cfg.epochs, cfg.train_lambda) == ("gfb-max", 3, 7, False)
    assert cfg.layer_options == {"lambda_init": 0.0}
    cfg.layer_options["exact"] = False  # a run's options are its own copy
    assert VARIANTS["lambda0"]["layer_options"] == {"lambda_init": 0.0}
    assert RunSpec("r8", "sgc", "lr0.2", 0).config(200).lr == 0.2
    assert RunSpec("r8", "gcn", "stopacc", 0).config(200).monitor == "accuracy"
    gin = RunSpec("r8", "gin", "eps-1", 0).config(200)
    assert gin.layer_options == {"eps": -1.0, "embedding_init": "normal"}
    assert RunSpec("r8", "gcn", "default", 0).config(200).lr == 0.02


class _FakeGraph:
    key = "fake"

    def to_data(self):
        class D:
            edge_index = edge_weight = num_nodes = None

        return D()


def test_grid_resume_skips_finished_runs(tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    specs = grid(["r8"], ["gcn", "gfb-max"], range(2), variants=["fast", "lambda0"])
    assert len(specs) == 2 * (1 + 3)  # gcn; gfb-max default, fast, lambda0
    store.save(specs[0].key(), {"test": {"accuracy": 1.0}})
    trained: list = []
    loaded: list = []

    class FakeResult:
        def record(self):
            return {"test": {"accuracy": 0.5}}

    monkeypatch.setattr(experiment, "load_benchmark",
                        lambda name, data_dir: loaded.append(name) or None)
    monkeypatch.setattr(experiment, "build_text_graph", lambda corpus: _FakeGraph())
    monkeypatch.setattr(experiment, "normalized_adjacency", lambda *a: torch.zeros(0))
    monkeypatch.setattr(experiment, "train_text",
                        lambda graph, cfg, **kw: trained.append(cfg) or FakeResult())
    experiment.run_text_grid(specs, store, None, epochs=1)
    assert len(trained) == len(specs) - 1 and loaded == ["r8"]  # the graph is built once
    assert all(store.done(s.key()) for s in specs)
    assert store.load(specs[0].key())["test"]["accuracy"] == 1.0
    trained.clear()
    experiment.run_text_grid(specs, store, None, epochs=1)
    assert trained == [] and loaded == ["r8"]  # nothing to do: not even loaded


def test_inductive_grid_and_keys():
    specs = inductive_grid(["r8", "r52"], ["gfb-max", "gcn"], range(2))
    assert len(specs) == 8 and specs[0] == InductiveSpec("r8", "gfb-max", 0)
    assert specs[0].key() == {"dataset": "r8", "model": "gfb-max", "seed": 0}
    assert len({tuple(s.key().items()) for s in specs}) == 8


@pytest.mark.parametrize("summarize", ["mean", "diag"])
def test_fast_form_of_mean_and_diag_only_shifts_every_logit_of_a_node_alike(summarize):
    # why the grid skips their `fast` variant: softmax (hence the loss) cannot tell them apart
    from gfbgcn.nn import GFBConv

    torch.manual_seed(0)
    x = torch.randn(12, 5, dtype=torch.float64)
    edge_index = torch.randint(0, 12, (2, 40))
    exact = GFBConv(5, 4, summarize=summarize, eps=0.1).double()
    fast = GFBConv(5, 4, summarize=summarize, eps=0.1, exact=False).double()
    fast.load_state_dict(exact.state_dict())
    out_exact, out_fast = exact(x, edge_index), fast(x, edge_index)
    assert not torch.allclose(out_exact, out_fast)
    torch.testing.assert_close(out_exact.log_softmax(1), out_fast.log_softmax(1))
    assert experiment.variant_applies("fast", f"gfb-{summarize}") is False
    assert experiment.variant_applies("fast", "gfb-max") is True


def test_issue_26_variants_run_where_their_option_exists():
    specs = grid(["ohsumed"], ["gcn", "sgc", "gfb-diag", "gfb-max", "fbp", "bp", "cbp"], [0],
                 variants=["l2", "fast-l2", "patience50"])
    runs = {(s.model, s.variant) for s in specs}
    # second_norm exists on GFBConv, FBPConv and BPConv only
    assert {m for m, v in runs if v == "l2"} == {"gfb-diag", "gfb-max", "fbp", "bp"}
    # the fast form differs for MaxVec (and TopKVec) only
    assert {m for m, v in runs if v == "fast-l2"} == {"gfb-max"}
    assert ("bp", "patience50") in runs and ("gcn", "patience50") in runs
    cfg = RunSpec("ohsumed", "gfb-max", "fast-l2", 2).config(200)
    assert cfg.layer_options == {"exact": False, "second_norm": "l2"}
    assert RunSpec("r8", "bp", "patience50", 0).config(200).patience == 50
    assert RunSpec("ohsumed", "fbp", "l2", 0).config(200).layer_options == {"second_norm": "l2"}


def test_spawned_workers_load_the_graph_file_and_train_what_one_process_trains(
        tmp_path, monkeypatch):
    """The path of ``--workers N --device cuda`` (spawned workers, each loading the graph from
    the cache file the parent wrote), run on the CPU: the records equal those of one process."""
    import multiprocessing as mp
    import pickle

    from gfbgcn.reproduce import harness, workers
    from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
    from gfbgcn.text.tokenize.clean import whitespace_tokenize
    from tests.text.toydata import toy_corpus

    graph = build_text_graph(toy_corpus(n=60, vocab=40, seed=2),
                             GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache_root=tmp_path / "cache")
    assert graph.cache_path is not None
    runs = experiment.TextGridRuns("toy", None, 3, "cpu", graph.cache_path, graph.key)
    runs.load()  # what a worker loads is dropped when the runs are sent to it
    assert pickle.loads(pickle.dumps(runs))._loaded is None
    specs = [RunSpec("toy", model, "default", seed) for model in ("gcn", "gfb-max")
             for seed in (0, 1)]
    serial = RunStore(tmp_path / "serial")
    harness.run_pending(specs, serial, runs, workers=1)
    monkeypatch.setattr(workers, "_worker_start", lambda run, threads, device, workers: (
        mp.get_context("spawn"), (run, threads, None, None)))
    spawned = RunStore(tmp_path / "spawned")
    assert harness.run_pending(specs, spawned, experiment.TextGridRuns(
        "toy", None, 3, "cpu", graph.cache_path, graph.key), workers=2) == len(specs)
    for spec in specs:
        one, other = serial.load(spec.key()), spawned.load(spec.key())
        assert one["test"] == other["test"] and one["val"] == other["val"]
        assert one["best_epoch"] == other["best_epoch"]


def test_a_worker_whose_graph_file_was_evicted_builds_the_graph(tmp_path, monkeypatch):
    """The cache file the parent wrote may be evicted or cleared before a spawned worker
    loads it: the worker builds the graph again instead of failing."""
    from gfbgcn.text.graph import text_graph
    from gfbgcn.text.graph.text_graph import GraphConfig
    from gfbgcn.text.tokenize.clean import whitespace_tokenize
    from tests.text.toydata import toy_corpus

    monkeypatch.setattr(experiment, "load_benchmark", lambda name, data_dir: toy_corpus())
    monkeypatch.setattr(experiment, "build_text_graph", lambda corpus: text_graph.
                        build_text_graph(corpus, GraphConfig(window=3, min_freq=1,
                                                             stop_words=None),
                                         whitespace_tokenize, cache=False))
    runs = experiment.TextGridRuns("toy", None, 3, "cpu", str(tmp_path / "evicted.npz"), "k")
    graph, adj = runs.load()
    assert graph.num_docs == 40 and adj.shape == (graph.num_nodes, graph.num_nodes)
