"""Members of one family side by side: each member's logits and gradients are its own
classifier's (float64, to rounding), members leave without moving the others, and members the
stacked forward would compute otherwise are refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from torch.nn import functional as F

from gfbgcn.graph_classification.batched import member_losses
from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.model import MODELS, build_classifier
from gfbgcn.graph_classification.stacked import StackedClassifiers
from gfbgcn.nn.models import GraphClassifier
from tests.graph_classification.toydata import random_graphs

#: (hidden, layers) of the members: two widths, several depths, a depth twice in a width
SHAPES = [(6, 2), (4, 1), (6, 3), (4, 3), (6, 1), (6, 2)]
TOL = 1e-12


@pytest.fixture(autouse=True)
def _float64() -> Iterator[None]:
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def _members(model: str, seed: int = 0) -> list[GraphClassifier]:
    torch.manual_seed(seed)
    members = [build_classifier(model, 3, h, n, 3) for h, n in SHAPES]
    for net in members:  # lambdas away from their start, so that a mix-up would show
        for name, p in net.named_parameters():
            if name.endswith("lam"):
                p.data.uniform_(0.5, 1.5)
    return members


def _batch(simple: bool):
    """A batch of random graphs: with ``simple`` each edge stored once per direction (the
    binary adjacency is a CSR matrix), else with repeated edges (a multigraph: the binary
    adjacency stays an edge_index)."""
    graphs = random_graphs(12, seed=3)
    for g in graphs:
        g.x = g.x.double()
        if simple:
            ei = torch.unique(torch.cat([g.edge_index, g.edge_index.flip(0)], 1), dim=1)
            g.edge_index = ei[:, ei[0] != ei[1]]
    return GraphBatcher(graphs).batch(range(12))


@pytest.mark.parametrize("simple", [True, False], ids=["csr", "multigraph"])
@pytest.mark.parametrize("model", MODELS)
def test_logits_and_gradients_are_each_members_own(model: str, simple: bool) -> None:
    members = _members(model)
    batch = _batch(simple)
    adj = members[0].adjacency(batch.edge_index, batch.x.size(0), torch.float64)
    multigraph_path = not simple and model in ("sage", "gfb-sage")  # a binary edge_index
    assert adj.layout == (torch.strided if multigraph_path else torch.sparse_csr)
    stacked = StackedClassifiers(model, members)
    assert sorted(stacked.ids) == list(range(len(SHAPES)))
    logits = stacked(batch)
    assert logits.shape == (len(SHAPES), 12, 3)
    member_losses(logits, batch.y).sum().backward()
    for pos, i in enumerate(stacked.ids):
        net = members[i].eval()
        own = net(batch.x, batch.edge_index, batch.batch)
        torch.testing.assert_close(logits[pos], own, rtol=0, atol=TOL)
        F.cross_entropy(own, batch.y).backward()
        g, at = stacked._where(i)
        for name, p in net.named_parameters():
            torch.testing.assert_close(g.stacks[name].grad[at], p.grad, rtol=0, atol=TOL)


def test_members_leave_without_moving_the_others() -> None:
    members = _members("gfb-gcn")
    batch = _batch(True)
    stacked = StackedClassifiers("gfb-gcn", members)
    with torch.no_grad():  # train a little apart from the copies held by the classifiers
        for t in stacked.parameters():
            t.add_(0.01 * torch.randn_like(t))
    before = dict(zip(stacked.ids, stacked(batch)))
    params = {id(t) for t in stacked.parameters()}
    carried = stacked.remove([2, 1, 5])  # the deepest of width 6, all of width 4 but one, ...
    assert sorted(stacked.ids) == [0, 3, 4]
    assert {id(c.old) for c in carried} <= params
    assert [c.new for c in carried] == stacked.parameters()
    for c in carried:  # every remaining row is the same member's as before
        rows = c.old if c.keep is None else c.old.index_select(0, c.keep)
        assert c.new.requires_grad and torch.equal(c.new, rows)
    after = stacked(batch)
    for pos, i in enumerate(stacked.ids):
        assert torch.equal(after[pos], before[i])
        stacked.write_member(i, members[i])
        own = members[i].eval()(batch.x, batch.edge_index, batch.batch)
        torch.testing.assert_close(own, before[i], rtol=0, atol=TOL)
    with pytest.raises(KeyError, match="member 2"):
        stacked.write_member(2, members[2])
    assert stacked.remove([0, 3, 4]) == [] and stacked.groups == []


def test_members_computed_otherwise_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown model"):
        StackedClassifiers("gat", _members("gcn"))
    with pytest.raises(ValueError, match="GFBConv"):  # a gcn member given as gfb-gcn
        StackedClassifiers("gfb-gcn", _members("gcn"))
    other = build_classifier("gfb-gcn", 3, 4, 1, 3, conv_options={"summarize": "max"})
    with pytest.raises(ValueError, match="GFB settings"):
        StackedClassifiers("gfb-gcn", [*_members("gfb-gcn"), other])
    summed = build_classifier("sage", 3, 4, 1, 3, readout="sum")
    with pytest.raises(ValueError, match="readout"):
        StackedClassifiers("sage", [*_members("sage"), summed])
    rooted = build_classifier("sage", 3, 4, 1, 3)
    rooted.convs[0].lin_r.bias = torch.nn.Parameter(torch.zeros(4))  # a bias it would not add
    with pytest.raises(ValueError, match="lin_r.bias"):
        StackedClassifiers("sage", [rooted])
    normalising = build_classifier("gcn", 3, 4, 1, 3)
    normalising.convs[0].normalize = True  # would normalise the adjacency a second time
    with pytest.raises(ValueError, match="only the convolutions of build_classifier"):
        StackedClassifiers("gcn", [normalising])
