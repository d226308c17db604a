"""The row-sparse optimiser equals dense Adam where it must (float64), the released
graph trains as the in-memory one, bad settings fail in one line before any work, and the
device and backend choices of mini-batch training (pure functions, covered on the CPU)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import gfbgcn.text.graph.adjacency as adjacency
from gfbgcn.cli import main
from gfbgcn.core.errors import OptionError, UserError
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.distributed import choose_backend, local_device
from gfbgcn.text.train.minibatch import _BatchForward
from gfbgcn.text.train.models import build_text_model
from gfbgcn.text.train.optim import RowSparseAdam
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.sampler import SubgraphSampler, local_columns
from tests.text.toydata import toy_corpus, write_topic_csv

GRAPH = GraphConfig(window=3, min_freq=1, stop_words=None)


@pytest.fixture(scope="module")
def toy():
    graph = build_text_graph(toy_corpus(n=60, vocab=40, seed=2), GRAPH, whitespace_tokenize,
                             cache=False)
    data = graph.to_data()
    return graph, normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)


def _batch(adj: torch.Tensor, fanout: int = 3):
    sampler = SubgraphSampler(adj, fanout, seed=1)
    rows2, needed = sampler.batch_rows(torch.tensor([3, 9, 1, 30, 12]))
    return sampler.sampled_rows(needed, step=2), rows2


@pytest.mark.parametrize("features", [False, True])
def test_row_sparse_lookup_equals_the_dense_layer_in_float64(toy, features):
    graph, adj = toy
    torch.manual_seed(0)
    extra = torch.randn(graph.num_nodes, 5, dtype=torch.float64) if features else None
    model = build_text_model("gfb-max", graph.num_nodes, 3, hidden=8, dropout=0.0,
                             features=extra).double()
    adj = adj.to(torch.float64)
    rows1, rows2 = _batch(adj)
    dense = _BatchForward(model)(rows1, rows2)
    dense.square().sum().backward()
    expected = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    local, columns = local_columns(rows1)
    sparse = _BatchForward(model, sparse=True)(local, rows2, columns)
    torch.testing.assert_close(sparse, dense, rtol=1e-12, atol=0)
    sparse.square().sum().backward()
    assert model.w1.grad.is_sparse
    for name, p in model.named_parameters():
        got = p.grad.to_dense() if p.grad.is_sparse else p.grad
        torch.testing.assert_close(got, expected[name], rtol=1e-12, atol=1e-15, msg=name)


def test_sparse_adam_first_step_equals_dense_adam_and_later_keeps_untouched_rows(toy):
    graph, adj = toy
    torch.manual_seed(0)
    model = build_text_model("gcn", graph.num_nodes, 3, hidden=8, dropout=0.0).double()
    twin = build_text_model("gcn", graph.num_nodes, 3, hidden=8, dropout=0.0).double()
    twin.load_state_dict(model.state_dict())
    config = TrainConfig(model="gcn", batch_size=5, optimizer="sparse-adam")
    lazy = RowSparseAdam(model, config.lr, 0.0)
    dense = torch.optim.Adam(twin.parameters(), lr=config.lr)
    rows1, rows2 = _batch(adj.to(torch.float64))
    local, columns = local_columns(rows1)
    _BatchForward(model, sparse=True)(local, rows2, columns).sum().backward()
    _BatchForward(twin)(rows1, rows2).sum().backward()
    lazy.step()
    dense.step()
    for a, b in zip(model.parameters(), twin.parameters()):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-15)
    untouched = torch.ones(graph.num_nodes, dtype=torch.bool)
    untouched[columns] = False
    before = model.w1.detach()[untouched].clone()
    lazy.zero_grad()
    part = local_columns(rows1)  # the same rows again: other rows of W1 keep their values
    _BatchForward(model, sparse=True)(part[0], rows2, part[1]).sum().backward()
    lazy.step()
    assert torch.equal(model.w1.detach()[untouched], before) and bool(untouched.any())


def test_sparse_adam_trains_end_to_end_and_is_seeded(toy):
    graph, _ = toy
    cfg = TrainConfig(model="gfb-max", hidden=16, epochs=12, patience=12, seed=0, batch_size=8,
                      fanout=4, optimizer="sparse-adam")
    result = train_text(graph, cfg, progress=False)
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]
    again = train_text(graph, cfg, progress=False)
    assert [h["val_loss"] for h in again.history] == [h["val_loss"] for h in result.history]


def test_a_released_cached_graph_trains_exactly_like_the_in_memory_one(tmp_path):
    corpus = toy_corpus(n=60, vocab=40, seed=5)
    in_memory = build_text_graph(corpus, GRAPH, whitespace_tokenize, cache=False)
    cached = build_text_graph(corpus, GRAPH, whitespace_tokenize, cache_root=tmp_path)
    cfg = TrainConfig(model="gcn", hidden=8, epochs=4, patience=4, batch_size=10, fanout=3)
    a = train_text(in_memory, cfg, progress=False)
    b = train_text(cached, cfg, progress=False)
    assert isinstance(cached.edge_index, np.memmap)  # released back to the cache file
    assert [h["val_loss"] for h in a.history] == [h["val_loss"] for h in b.history]
    np.testing.assert_array_equal(a.probabilities, b.probabilities)


def test_bad_settings_fail_in_one_line_before_any_work(toy, monkeypatch, tmp_path, capsys):
    graph, _ = toy
    with pytest.raises(OptionError, match="^fanout must be >= 1"):
        TrainConfig(batch_size=8, fanout=0)
    for bad, message in (({"model": "sgc"}, "two-layer model"),
                         ({"batch_size": 0}, "^optimizer sparse-adam needs batch_size"),
                         ({"weight_decay": 0.1}, "has no weight decay")):
        settings = {"model": "gcn", "batch_size": 8, "optimizer": "sparse-adam", **bad}
        with pytest.raises(OptionError, match=message):
            TrainConfig(**settings)
    monkeypatch.setattr(adjacency, "normalized_adjacency_csr", None)  # no work may start
    with pytest.raises(UserError, match="^batch_size 1000 is larger than the 41 training"):
        train_text(graph, TrainConfig(model="gcn", batch_size=1000), progress=False)
    corpus = write_topic_csv(tmp_path / "own.csv", n=30)
    common = ["train", "--dataset", str(corpus), "--min-freq", "1", "--no-cache", "--quiet",
              "--build-workers", "1"]
    for extra, message in ((["--batch-size", "500"], "--batch-size 500 is larger than"),
                           (["--optimizer", "sparse-adam"], "needs --batch-size"),
                           (["--batch-size", "4", "--model", "gin"], "two-layer models")):
        capsys.readouterr()
        assert main([*common, *extra]) == 2
        err = [line for line in capsys.readouterr().err.splitlines()
               if not line.startswith("note:")]  # the drawn test split is noted
        assert len(err) == 1 and message in err[0], err


def test_backend_choice_and_process_devices(monkeypatch):
    assert choose_backend("cuda", True, True) == "nccl"
    assert choose_backend("cuda", False, True) == "gloo"  # one process without a GPU: all CPU
    assert choose_backend("cuda", True, False) == "gloo"  # torch built without NCCL
    assert choose_backend("cpu", True, True) == "gloo"
    assert local_device(torch.device("cuda", 0), local_rank=3) == torch.device("cuda", 3)
    monkeypatch.setenv("LOCAL_RANK", "2")
    assert local_device(torch.device("cuda", 0)) == torch.device("cuda", 2)
    assert local_device(torch.device("cpu")) == torch.device("cpu")


def test_cli_sparse_adam_save_and_predict(tmp_path, capsys):
    corpus = write_topic_csv(tmp_path / "own.csv", n=40)
    model_dir = tmp_path / "model"
    assert main(["train", "--dataset", str(corpus), "--min-freq", "1", "--no-cache", "--quiet",
                 "--build-workers", "1", "--hidden", "16", "--epochs", "20", "--batch-size", "8",
                 "--fanout", "4", "--optimizer", "sparse-adam", "--save", str(model_dir),
                 "--no-baseline"]) == 0
    assert "test accuracy" in capsys.readouterr().out
    assert main(["predict", str(model_dir), "--text", "goal match team cup"]) == 0
    assert "sport" in capsys.readouterr().out


@pytest.mark.parametrize("chunk", [2 * 3 * 8, 1 << 22])  # 2 rows of 3 float64, or all
def test_lazy_adam_sums_repeated_rows_like_a_coalesced_gradient(chunk, monkeypatch):
    from gfbgcn.text.train.optim import LazyAdam

    monkeypatch.setattr(LazyAdam, "CHUNK_BYTES", chunk)  # rows a few at a time, or all

    values = torch.arange(12, dtype=torch.float64).view(4, 3)
    a = torch.nn.Parameter(torch.ones(5, 3, dtype=torch.float64))
    b = torch.nn.Parameter(torch.ones(5, 3, dtype=torch.float64))
    a.grad = torch.sparse_coo_tensor(torch.tensor([[3, 1, 3, 0]]), values, (5, 3))  # repeated
    b.grad = a.grad.coalesce().to_dense()
    LazyAdam([a], lr=0.1).step()
    torch.optim.Adam([b], lr=0.1).step()
    assert torch.equal(a.detach(), b.detach())  # rows 2 and 4 have a zero gradient: unchanged
