"""``--row-budget``: the inclusion probabilities sum to the budget, the kept columns give an
unbiased estimate of the sampled product (float64, many keys), a budget no smaller than the
rows changes nothing, and the option trains end to end, seeded, or fails in one line."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.cli import main
from gfbgcn.core.errors import OptionError
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.row_budget import (
    column_norms,
    inclusion_probabilities,
    limit_rows,
)
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.sampler import SubgraphSampler, local_columns
from tests.text.toydata import toy_corpus, write_topic_csv

GRAPH = GraphConfig(window=3, min_freq=1, stop_words=None)


@pytest.fixture(scope="module")
def toy():
    graph = build_text_graph(toy_corpus(n=60, vocab=40, seed=2), GRAPH, whitespace_tokenize,
                             cache=False)
    data = graph.to_data()
    adj = normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)
    return graph, adj.to(torch.float64)


def _layer1_rows(adj: torch.Tensor) -> torch.Tensor:
    """A batch's node-wise sampled layer-1 rows over their used columns (as training has them)."""
    sampler = SubgraphSampler(adj, fanout=6, seed=1)
    _, needed = sampler.batch_rows(torch.tensor([3, 9, 1, 30, 12, 44]))
    return local_columns(sampler.sampled_rows(needed, step=2))[0]


def test_inclusion_probabilities_sum_to_the_budget_and_follow_the_weights():
    weights = torch.tensor([10.0, 5.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    pi = inclusion_probabilities(weights, 3)
    # the two heaviest are certain; the other 1 of the budget spreads evenly over four
    torch.testing.assert_close(pi, torch.tensor([1, 1, 0.25, 0.25, 0.25, 0.25, 0],
                                                dtype=torch.float64))
    w = torch.rand(1000, generator=torch.Generator().manual_seed(0), dtype=torch.float64) ** 6
    pi = inclusion_probabilities(w, 100)
    assert abs(float(pi.sum()) - 100) < 1e-9 and float(pi.max()) <= 1.0
    order = torch.argsort(w)
    assert bool((pi[order][1:] >= pi[order][:-1]).all())  # monotone in the weight
    unscaled = pi < 1
    ratio = pi[unscaled] / w[unscaled]
    torch.testing.assert_close(ratio, ratio[:1].expand_as(ratio))  # proportional below 1
    assert torch.equal(inclusion_probabilities(torch.tensor([0.0, 2.0, 3.0]), 5),
                       torch.tensor([0.0, 1.0, 1.0], dtype=torch.float64))


def test_column_norms_are_the_l2_norms_of_the_stored_entries(toy):
    _, adj = toy
    rows = _layer1_rows(adj)
    squares = torch.sparse_csr_tensor(rows.crow_indices(), rows.col_indices(),
                                      rows.values() ** 2, rows.shape)
    torch.testing.assert_close(column_norms(rows), squares.to_dense().sum(0).sqrt())


def test_a_budget_covering_every_column_changes_nothing(toy):
    _, adj = toy
    rows = _layer1_rows(adj)
    same, kept = limit_rows(rows, rows.shape[1], 0, 1, 2, 1)
    assert same is rows and torch.equal(kept, torch.arange(rows.shape[1]))


def test_the_kept_columns_estimate_the_product_without_bias(toy):
    _, adj = toy
    rows = _layer1_rows(adj)
    m, budget = rows.shape[1], rows.shape[1] // 3
    w = torch.randn(m, 4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    exact = rows @ w
    draws, total, squares, kept_counts = 4000, torch.zeros_like(exact), 0.0, []
    for step in range(draws):
        limited, kept = limit_rows(rows, budget, 7, 0, step, 1)
        assert limited.shape == (rows.shape[0], len(kept)) and bool((kept[1:] > kept[:-1]).all())
        estimate = limited @ w[kept]
        total, squares = total + estimate, squares + estimate**2
        kept_counts.append(len(kept))
    mean = total / draws
    standard_error = ((squares / draws - mean**2) / draws).sqrt()
    assert float(standard_error.max()) > 0  # the estimate does vary from draw to draw
    # unbiased: every entry's mean within 5 standard errors of the exact product
    assert bool(((mean - exact).abs() <= 5 * standard_error + 1e-12).all())
    assert abs(sum(kept_counts) / draws - budget) < 0.05 * budget
    again, kept = limit_rows(rows, budget, 7, 0, 5, 1)
    first, kept_first = limit_rows(rows, budget, 7, 0, 5, 1)
    assert torch.equal(kept, kept_first) and torch.equal(again.values(), first.values())


def test_certain_columns_keep_their_values(toy):
    _, adj = toy
    rows = _layer1_rows(adj)
    budget = rows.shape[1] // 2
    pi = inclusion_probabilities(column_norms(rows), budget)
    certain = (pi == 1).nonzero().view(-1)
    assert len(certain)
    limited, kept = limit_rows(rows, budget, 3, 1, 1, 2)
    where = torch.searchsorted(kept, certain)
    assert torch.equal(kept[where], certain)
    torch.testing.assert_close(limited.to_dense()[:, where], rows.to_dense()[:, certain])


@pytest.mark.parametrize("optimizer", ["adam", "sparse-adam"])
def test_training_with_a_row_budget_is_seeded_and_a_large_budget_is_the_plain_run(toy,
                                                                                  optimizer):
    graph, _ = toy
    cfg = {"model": "gcn", "hidden": 8, "epochs": 6, "patience": 6, "seed": 0,
           "batch_size": 8, "fanout": 4, "optimizer": optimizer, "dropout": 0.0}
    small = TrainConfig(**cfg, row_budget=10)
    a = train_text(graph, small, progress=False)
    b = train_text(graph, small, progress=False)
    assert [h["val_loss"] for h in a.history] == [h["val_loss"] for h in b.history]
    plain = train_text(graph, TrainConfig(**cfg), progress=False)
    large = train_text(graph, TrainConfig(**cfg, row_budget=graph.num_nodes), progress=False)
    assert [h["train_loss"] for h in large.history] == [h["train_loss"] for h in plain.history]
    assert [h["train_loss"] for h in a.history] != [h["train_loss"] for h in plain.history]


def test_a_row_budget_without_batch_size_fails_in_one_line(tmp_path, capsys):
    with pytest.raises(OptionError, match="^row_budget applies only with batch_size: add "
                                          "batch_size, or drop row_budget$"):
        TrainConfig(model="gcn", row_budget=100)
    with pytest.raises(OptionError, match="^row_budget must be >= 0"):
        TrainConfig(model="gcn", batch_size=8, row_budget=-1)
    corpus = write_topic_csv(tmp_path / "own.csv", n=30)
    common = ["train", "--dataset", str(corpus), "--min-freq", "1", "--no-cache", "--quiet"]
    assert main([*common, "--row-budget", "64"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: --row-budget applies only with --batch-size: add --batch-size, or " \
                  "drop --row-budget"
    assert main([*common, "--batch-size", "8", "--row-budget", "-1"]) == 2
    assert "--row-budget" in capsys.readouterr().err
