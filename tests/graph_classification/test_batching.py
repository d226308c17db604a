"""Vectorised mini-batching: the same batches as PyG's collation, shuffled by a generator."""

from __future__ import annotations

import pytest
import torch
from torch_geometric.data import Batch, Data

from gfbgcn.graph_classification.batching import GraphBatcher
from tests.graph_classification.toydata import random_graphs


def test_graph_batcher_equals_pyg_collation():
    graphs = random_graphs(40)
    batcher = GraphBatcher(graphs)
    ids = [17, 3, 39, 0, 22, 22, 5]
    ours = batcher.batch(ids)
    ref = Batch.from_data_list([graphs[i] for i in ids])
    assert torch.equal(ours.x, ref.x)
    assert torch.equal(ours.edge_index, ref.edge_index)
    assert torch.equal(ours.batch, ref.batch)
    assert torch.equal(ours.y, ref.y.view(-1))


def test_shuffled_batches_cover_ids_once_and_follow_the_generator():
    graphs = random_graphs(30)
    batcher = GraphBatcher(graphs)
    ids = torch.tensor([1, 4, 5, 8, 9, 12, 13, 20, 21, 29])
    gen = torch.Generator().manual_seed(7)
    epoch1 = list(batcher.shuffled_batches(ids, 4, gen))
    epoch2 = list(batcher.shuffled_batches(ids, 4, gen))
    assert [b.y.numel() for b in epoch1] == [4, 4, 2]
    # each batch is exactly the collation of its graphs; the graphs are ids, each once
    x_rows = {tuple(graphs[i].x[0].tolist()): i for i in ids.tolist()}
    seen = [x_rows[tuple(b.x[b.batch == j][0].tolist())]
            for b in epoch1 for j in range(b.y.numel())]
    assert sorted(seen) == ids.tolist()
    assert seen != ids.tolist()
    replay = list(batcher.shuffled_batches(ids, 4, torch.Generator().manual_seed(7)))
    assert all(torch.equal(a.x, b.x) for a, b in zip(epoch1, replay, strict=True))
    assert not all(torch.equal(a.x, b.x) for a, b in zip(epoch1, epoch2, strict=True))


def test_undirected_flag_and_bad_inputs():
    ei = torch.tensor([[0, 1], [1, 0]])
    one_way = torch.tensor([[0], [1]])
    x = torch.ones(2, 1)
    assert GraphBatcher([Data(x=x, edge_index=ei, y=torch.tensor([0]))]).undirected
    assert not GraphBatcher([Data(x=x, edge_index=ei, y=torch.tensor([0])),
                             Data(x=x, edge_index=one_way, y=torch.tensor([1]))]).undirected
    assert len(GraphBatcher([Data(x=x, edge_index=ei, y=torch.tensor([0]))] * 3)) == 3
    with pytest.raises(ValueError, match="at least one graph"):
        GraphBatcher([])
    with pytest.raises(ValueError, match="exactly one label"):
        GraphBatcher([Data(x=x, edge_index=ei, y=torch.tensor([0, 1]))])
