"""Mini-batch training: the sampled subgraphs, exactness where nothing is sampled, and the
``train --batch-size`` command end to end (save, load, predict)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import gfbgcn
from gfbgcn.cli import main
from gfbgcn.nn.sparse import csr_rows
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.minibatch import _BatchForward, epoch_batches, exact_doc_logits
from gfbgcn.text.train.models import build_text_model
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.sampler import SubgraphSampler, hashed_uniform
from tests.text.toydata import toy_corpus


@pytest.fixture(scope="module")
def toy():
    graph = build_text_graph(toy_corpus(n=60, vocab=40, seed=2),
                             GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    data = graph.to_data()
    adj = normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)
    return graph, adj


def max_degree(adj) -> int:
    return int(adj.crow_indices().diff().max())


def test_hashed_uniform_is_deterministic_and_uniform():
    keys = torch.arange(200_000)
    u = hashed_uniform(7, 3, keys)
    assert torch.equal(u, hashed_uniform(7, 3, keys))
    assert float(u.min()) >= 0.0 and float(u.max()) < 1.0
    assert abs(float(u.mean()) - 0.5) < 0.005
    assert torch.histc(u.float(), bins=10, min=0, max=1).min() > 19_000  # 20,000 expected
    assert not torch.equal(u, hashed_uniform(7, 4, keys))


def test_batch_rows_are_the_exact_rows_of_the_adjacency(toy):
    _, adj = toy
    sampler = SubgraphSampler(adj, fanout=4)
    batch = torch.tensor([5, 0, 17])
    rows, needed = sampler.batch_rows(batch)
    x = torch.randn(adj.shape[0], 3, dtype=torch.float32)
    torch.testing.assert_close(rows @ x[needed], csr_rows(adj, batch) @ x)


def test_sampled_rows_exact_when_fanout_covers_every_row(toy):
    _, adj = toy
    sampler = SubgraphSampler(adj, fanout=max_degree(adj))
    nodes = torch.arange(adj.shape[0])
    x = torch.randn(adj.shape[0], 4)
    torch.testing.assert_close(sampler.sampled_rows(nodes, step=0) @ x, adj @ x)


def test_sampled_rows_are_unbiased_and_independent_of_the_batch(toy):
    _, adj = toy
    sampler = SubgraphSampler(adj, fanout=3)
    nodes = torch.arange(60, adj.shape[0])  # word nodes: long rows, really sampled
    assert int((adj.crow_indices().diff()[nodes] > 3).sum()) > 10
    x = torch.rand(adj.shape[0], 2, dtype=torch.float64)
    exact = csr_rows(adj, nodes).to(torch.float64) @ x
    mean = sum(sampler.sampled_rows(nodes, s).to(torch.float64) @ x for s in range(800)) / 800
    torch.testing.assert_close(mean, exact, rtol=0.05, atol=0.02)
    one = sampler.sampled_rows(nodes, 0).to(torch.float64) @ x
    assert float((one - exact).abs().max()) > 0.05  # one draw alone is not exact
    # a node's draws do not depend on the other nodes of its batch
    alone = sampler.sampled_rows(nodes[4:5], step=11) @ x.float()
    together = sampler.sampled_rows(nodes, step=11) @ x.float()
    torch.testing.assert_close(alone[0], together[4])


def test_minibatch_forward_equals_full_batch_when_nothing_is_sampled(toy):
    graph, adj = toy
    torch.manual_seed(0)
    model = build_text_model("gfb-max", graph.num_nodes, 3, hidden=8, dropout=0.0)
    model.eval()
    sampler = SubgraphSampler(adj, fanout=max_degree(adj))
    batch = torch.tensor([3, 9, 1, 30])
    rows2, needed = sampler.batch_rows(batch)
    got = _BatchForward(model)(sampler.sampled_rows(needed, 0), rows2)
    full = model(adj)[batch]
    torch.testing.assert_close(got, full)
    torch.testing.assert_close(exact_doc_logits(model, adj, batch), full)


def test_epoch_batches_cover_the_training_documents_once():
    train = torch.arange(10, 33)
    batches = epoch_batches(train, 5, seed=1, epoch=2)
    assert [len(b) for b in batches] == [5, 5, 5, 5, 3]
    assert torch.equal(torch.cat(batches).sort().values, train)
    assert not torch.equal(torch.cat(batches), torch.cat(epoch_batches(train, 5, 1, 3)))


def test_train_text_batch_size_learns_and_reports_like_full_batch(toy):
    graph, _ = toy
    cfg = TrainConfig(model="gcn", hidden=16, epochs=15, patience=15, seed=0, batch_size=8,
                      fanout=4)
    result = train_text(graph, cfg, progress=False)
    assert result.epochs_run == 15 and result.history[0]["batches"] == 6  # 41 train docs / 8
    assert result.history[-1]["train_loss"] < result.history[0]["train_loss"]
    assert result.probabilities.shape == (graph.num_docs, 3)
    np.testing.assert_allclose(result.probabilities.sum(1), 1.0, rtol=1e-5)
    again = train_text(graph, cfg, progress=False)
    assert again.test == result.test  # seeded: same batches, same draws


def test_cli_train_batch_size_save_predict(tmp_path, capsys):
    rng = np.random.default_rng(0)
    pools = {"sport": ["goal", "match", "team", "striker", "league", "cup"],
             "money": ["bank", "shares", "market", "profits", "rates", "inflation"]}
    lines = ["text,label,split"]
    for i in range(60):
        topic = "sport" if i % 2 else "money"
        lines.append(f"\"{' '.join(rng.choice(pools[topic], 8))}\",{topic},"
                     f"{'test' if i % 6 == 5 else 'train'}")
    path = tmp_path / "own.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model_dir, out_dir = tmp_path / "model", tmp_path / "run"
    assert main(["train", "--dataset", str(path), "--model", "gfb-max", "--min-freq", "1",
                 "--hidden", "16", "--epochs", "30", "--batch-size", "10", "--fanout", "4",
                 "--quiet", "--no-cache", "--build-workers", "1", "--save", str(model_dir),
                 "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "test accuracy 1.0000" in out
    assert json.loads((out_dir / "config.json").read_text())["train"]["batch_size"] == 10
    model = gfbgcn.load(model_dir)
    assert model.predict(["goal match team cup", "bank shares market"]).labels == ["sport", "money"]
    assert main(["predict", str(model_dir), "--text", "striker league goal"]) == 0
    assert "sport" in capsys.readouterr().out
    capsys.readouterr()
    assert main(["train", "--dataset", str(path), "--model", "sgc", "--batch-size", "4",
                 "--no-cache"]) == 2
    assert "two-layer" in capsys.readouterr().err


def test_sampler_cumulative_weights_are_normalised_per_row(toy):
    _, adj = toy
    sampler = SubgraphSampler(adj, fanout=3)
    crow, values = adj.crow_indices(), adj.values().to(torch.float64)
    assert sampler.cdf.dtype == torch.float32 and len(sampler.cdf) == adj.values().numel()
    for row in (0, 1, adj.shape[0] // 2, adj.shape[0] - 1):
        a, b = int(crow[row]), int(crow[row + 1])
        torch.testing.assert_close(sampler.row_sum[row], values[a:b].sum(), rtol=1e-12, atol=0)
        expected = torch.cumsum(values[a:b], 0) / values[a:b].sum()
        torch.testing.assert_close(sampler.cdf[a:b].double(), expected, rtol=0, atol=1e-7)
        assert float(sampler.cdf[b - 1]) == 1.0


def test_row_cdf_in_small_blocks_equals_one_block(toy, monkeypatch):
    import gfbgcn.text.train.sampler as sampler_module

    _, adj = toy
    whole = sampler_module.row_cdf(adj.crow_indices(), adj.values())
    monkeypatch.setattr(sampler_module, "CDF_BLOCK", 7)  # rows longer than a block, too
    blocks = sampler_module.row_cdf(adj.crow_indices(), adj.values())
    for name in ("cdf", "total", "buckets", "guide_start", "guide"):
        assert torch.equal(getattr(whole, name), getattr(blocks, name)), name


def test_int32_adjacency_samples_what_int64_samples(toy):
    _, adj = toy
    small = torch.sparse_csr_tensor(adj.crow_indices().int(), adj.col_indices().int(),
                                    adj.values(), adj.shape)
    nodes = torch.arange(adj.shape[0])
    a, b = SubgraphSampler(adj, fanout=3), SubgraphSampler(small, fanout=3)
    for rows_a, rows_b in ((a.sampled_rows(nodes, 5), b.sampled_rows(nodes, 5)),
                           (a.batch_rows(nodes[:20])[0], b.batch_rows(nodes[:20])[0])):
        assert torch.equal(rows_a.crow_indices(), rows_b.crow_indices())
        assert torch.equal(rows_a.col_indices(), rows_b.col_indices())
        assert torch.equal(rows_a.values(), rows_b.values())


def test_guided_draws_equal_a_plain_search_of_each_row(toy):
    _, adj = toy
    sampler = SubgraphSampler(adj, fanout=2)
    crow = adj.crow_indices()
    gen = torch.Generator().manual_seed(0)
    v = torch.randint(0, adj.shape[0], (400, 8), generator=gen)
    u = torch.rand(400, 8, generator=gen)
    u[0, :3] = torch.tensor([0.0, 1.0, float(sampler.cdf[int(crow[int(v[0, 2])])])])  # edges
    got = sampler._draw(v, u)
    for (node, x), p in zip(zip(v.view(-1).tolist(), u.view(-1).tolist()), got.view(-1)):
        a, b = int(crow[node]), int(crow[node + 1])
        above = (sampler.cdf[a:b] > x).nonzero()
        assert int(p) == (a + int(above[0]) if len(above) else b - 1)


def test_presample_holds_every_row_of_sampled_rows(toy):
    from gfbgcn.text.train.sampler import local_columns

    _, adj = toy
    small = torch.sparse_csr_tensor(adj.crow_indices().int(), adj.col_indices().int(),
                                    adj.values(), adj.shape)
    sampler = SubgraphSampler(small, fanout=3, seed=2)
    whole = sampler.presample(step=4)
    chunked = sampler.presample(step=4, chunk=7)
    assert whole.col_indices().dtype == torch.int32
    nodes = torch.tensor([70, 3, 41, 5])
    expected = sampler.sampled_rows(nodes, step=4).to_dense()
    for layer1 in (whole, chunked):
        rows = csr_rows(layer1, nodes)
        assert torch.equal(rows.to_dense(), expected)
        local, used = local_columns(rows)
        assert torch.equal(local.to_dense(), expected[:, used])
        assert torch.equal(used, expected.abs().sum(0).nonzero().view(-1))
