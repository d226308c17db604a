"""Graph classifiers of one family computed side by side as one batched model.

The members are :class:`~gfbgcn.nn.models.GraphClassifier` networks of one family of
:mod:`gfbgcn.graph_classification.model` (``gcn``, ``sage``, ``gfb-gcn``, ``gfb-sage``), of any
hidden widths ``H`` and layer counts ``L``, that read the same mini-batch of graphs.  Members of
one width form a *group*, ordered deepest first.  In a group every entry of the members' state
dicts is stacked along a new first axis over the members that have it (``[k, *shape]``); by the
order, those are the group's first ``k`` members, so position ``i`` of every stack is the same
member.  Per group, with ``k_l`` the members having layer ``l`` (a prefix), ``N`` nodes and ``B``
graphs::

    h^(0)     = x                                                  [N, F]        shared
    h^(l+1)   = ReLU(conv_l(h^(l)[:, :k_l], A))                    [N, k_l, H]
    g_m       = pool_{v in graph} h^(L_m)[v, m]                    [B, H]
    logits_m  = W2_m dropout_m(ReLU(W1_m g_m + b1_m)) + b2_m       [B, C]

with each member's own weights in ``conv_l``::

    gcn       A (h W^T) + b
    gfb-gcn   A (z + lam GenVec(z z^T + eps I)) + b              z = h W^T
    sage      mean_A(h) W_l^T + b_l + h W_r^T
    gfb-sage  mean_A(z + lam GenVec(z z^T + eps I)) + b_l + h W_r^T     z = h W_l^T

The aggregation over ``A`` is linear and acts on nodes, so the members' ``[N, H]`` features side
by side, ``[N, k_l H]``, are aggregated by one sparse product; the first layer maps the shared
``x`` with one product by all members' weights side by side (``[F, k_0 H]``), the later layers
and the head are batched products over members.  So each member computes what its own
``GraphClassifier`` computes, the same sums grouped otherwise (equal to rounding; the float64
tests compare them).  The batch's adjacency is built once, by a member's own
:meth:`~gfbgcn.nn.models.GraphClassifier.adjacency`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F
from torch_geometric.nn import SAGEConv, global_add_pool, global_mean_pool
from torch_geometric.utils import scatter

from gfbgcn.graph_classification.batching import GraphMiniBatch
from gfbgcn.graph_classification.model import GCN_NORMALISED
from gfbgcn.nn.conv import CachedTransposeGCNConv, GFBConv, GFBSAGEConv
from gfbgcn.nn.genvec import genvec
from gfbgcn.nn.gfb import GFBMixin
from gfbgcn.nn.models import GraphClassifier
from gfbgcn.nn.second_norm import normalize_second
from gfbgcn.nn.sparse import spmm

#: The convolution class of each family, exactly (a subclass may compute something else).
CONVS: dict[str, type] = {"gcn": CachedTransposeGCNConv, "sage": SAGEConv,
                          "gfb-gcn": GFBConv, "gfb-sage": GFBSAGEConv}

#: The state-dict entries of a family's layer, all of which the stacked forward uses.
_CONV_ENTRIES: dict[str, set[str]] = {
    "gcn": {"lin.weight", "bias"}, "gfb-gcn": {"lin.weight", "bias", "lam"},
    "sage": {"lin_l.weight", "lin_l.bias", "lin_r.weight"},
    "gfb-sage": {"lin_l.weight", "lin_l.bias", "lin_r.weight", "lam"}}

#: ``dropout(member, h)``: member ``member``'s dropout of its head activations ``h`` [B, H].
Dropout = Callable[[int, Tensor], Tensor]


@dataclass
class _Group:
    """Members of one width: their ids (positions in the member list), deepest first, their
    layer counts (non-increasing) and every state-dict entry stacked over the members having it."""

    ids: list[int]
    layers: list[int]
    stacks: dict[str, Tensor]

    def having(self, depth: int) -> int:
        """How many members have more than ``depth`` layers (they are the first ones)."""
        return sum(n > depth for n in self.layers)


@dataclass(frozen=True)
class Carried:
    """A stacked parameter after members left: ``new`` holds rows ``keep`` of ``old`` (``keep``
    ``None``: ``new`` is ``old``, untouched), so optimiser state moves the same way."""

    old: Tensor
    new: Tensor
    keep: Tensor | None


def _check_member(family: str, model: GraphClassifier) -> None:
    """Refuse a member this module would compute differently from its own forward."""
    for conv in model.convs:
        if type(conv) is not CONVS[family]:
            raise ValueError(f"a {family} member needs {CONVS[family].__name__} convolutions, "
                             f"got {type(conv).__name__}")
        if family in GCN_NORMALISED:  # the classifier normalises A once, for every layer
            ok = conv.normalize is False
        else:
            ok = (conv.aggr == "mean" and conv.normalize is False and conv.root_weight is True
                  and conv.project is False)
        if not ok:
            raise ValueError(f"{conv!r}: only the convolutions of build_classifier are batched")
    if model.adjacency_kind != ("gcn" if family in GCN_NORMALISED else "binary"):
        raise ValueError(f"a {family} member aggregates with another adjacency")
    names = {name.split(".", 2)[2] for name in model.state_dict() if name.startswith("convs.")}
    if names != _CONV_ENTRIES[family]:  # e.g. a bias the stacked forward would not add
        raise ValueError(f"a {family} member's layers hold {sorted(names)}, not "
                         f"{sorted(_CONV_ENTRIES[family])}")


def _gfb_settings(model: GraphClassifier) -> tuple[object, ...]:
    """Every GFB hyper-parameter of a member's layers (members must agree on them)."""
    return tuple((c.summarize, c.eps, c.exact, c.k_top, c.second_norm, c.second_scale)
                 for c in model.convs if isinstance(c, GFBMixin))


def _stack(models: Sequence[GraphClassifier], ids: Sequence[int]) -> _Group:
    """The group of members ``ids`` (one width): deepest first, their entries stacked."""
    order = sorted(ids, key=lambda i: -len(models[i].convs))  # stable: ties keep their order
    states = [models[i].state_dict() for i in order]
    names = list(states[0])  # the deepest member has every entry any member of the group has
    stacks = {name: torch.stack([s[name] for s in states if name in s]).requires_grad_()
              for name in names}
    return _Group(order, [len(models[i].convs) for i in order], stacks)


def _linear(h: Tensor, w: Tensor) -> Tensor:
    """Each member's ``h W^T``: ``h`` [N, F] shared or [N, k, F] per member, ``w`` [k, H, F]
    -> [N, k, H], contiguous (node-major: the element-wise steps after it run on contiguous
    memory, and the aggregation reads it as [N, k H] without a copy)."""
    if h.dim() == 2:  # the shared input: one product with every member's weights side by side
        k, out, inp = w.shape
        return (h @ w.reshape(k * out, inp).t()).view(h.size(0), k, out)
    return torch.bmm(h.transpose(0, 1), w.transpose(1, 2)).transpose(0, 1).contiguous()


def _aggregate(adj: Tensor, z: Tensor, reduce: str) -> Tensor:
    """Omega over the batch's adjacency of every member at once: ``z`` [N, ...] -> [N, ...].

    ``adj`` is the CSR matrix of ``GraphClassifier.adjacency`` or, for a multigraph's binary
    adjacency, its ``edge_index`` (then, as PyG's propagate, every copy of an edge counts)."""
    flat = z.reshape(z.size(0), -1)
    if adj.layout == torch.sparse_csr:
        out = spmm(adj, flat, reduce=reduce)
    else:
        out = scatter(flat[adj[0]], adj[1], dim=0, dim_size=flat.size(0), reduce=reduce)
    return out.view(z.shape)


class StackedClassifiers:
    """Members of one family as one batched model (module docstring); members leave with
    :meth:`remove`.

    Args:
        family: the members' family, a key of :data:`CONVS`.
        models: the members (built by :func:`~gfbgcn.graph_classification.model.build_classifier`
            with one readout and one set of GFB settings); their weights are copied, and
            :meth:`write_member` copies a member's current weights back.
    """

    def __init__(self, family: str, models: Sequence[GraphClassifier]) -> None:
        if family not in CONVS:
            raise ValueError(f"unknown model {family!r}; choose from {', '.join(CONVS)}")
        if not models:
            raise ValueError("StackedClassifiers needs at least one member")
        for model in models:
            _check_member(family, model)
        if len({m.readout for m in models}) > 1 or len(
                {s for m in models for s in _gfb_settings(m)}) > 1:
            raise ValueError("the members differ in readout or GFB settings")
        first = models[0]
        self.family = family
        self.readout = first.readout
        self._adjacency = first.adjacency  # the same for every member of the family
        gfb = next((c for c in first.convs if isinstance(c, GFBMixin)), None)
        self._gfb: GFBMixin | None = gfb
        widths: dict[int, list[int]] = {}
        for i, model in enumerate(models):
            widths.setdefault(model.lin1.in_features, []).append(i)
        self.groups = [_stack(models, ids) for ids in widths.values()]

    @property
    def ids(self) -> list[int]:
        """The members still in the model, in the order of :meth:`forward`'s logits."""
        return [i for g in self.groups for i in g.ids]

    def parameters(self) -> list[Tensor]:
        return [t for g in self.groups for t in g.stacks.values()]

    def forward(self, batch: GraphMiniBatch, undirected: bool = False,
                dropout: Dropout | None = None) -> Tensor:
        """Logits ``[M, B, C]`` of the members :attr:`ids` on one mini-batch; ``dropout``
        (``None``: evaluation, no dropout) applies each member's own dropout."""
        adj = self._adjacency(batch.edge_index, batch.x.size(0), batch.x.dtype, undirected)
        size = batch.y.numel()  # graphs in the batch (no device sync for pooling's size)
        return torch.cat([self._group_logits(g, batch.x, adj, batch.batch, size, dropout)
                          for g in self.groups])

    __call__ = forward

    def _group_logits(self, g: _Group, x: Tensor, adj: Tensor, batch_vec: Tensor, size: int,
                      dropout: Dropout | None) -> Tensor:
        """One group's logits [M_g, B, C], its members in group order."""
        pool = global_mean_pool if self.readout == "mean" else global_add_pool
        h, pooled = x, []
        for depth in range(g.layers[0]):
            k, k_next = g.having(depth), g.having(depth + 1)
            h = F.relu(self._conv(g.stacks, depth, h if depth == 0 else h[:, :k], adj))
            if k_next < k:  # members k_next..k-1 end here: pool their last layer
                done = h[:, k_next:]
                pooled.append(pool(done.reshape(done.size(0), -1), batch_vec, size)
                              .view(size, k - k_next, -1))
        s = g.stacks
        feats = torch.cat(pooled[::-1], dim=1).transpose(0, 1)  # [M_g, B, H], deepest first
        hid = F.relu(torch.baddbmm(s["lin1.bias"].unsqueeze(1), feats,
                                   s["lin1.weight"].transpose(1, 2)))
        if dropout is not None:
            hid = torch.stack([dropout(i, hid[pos]) for pos, i in enumerate(g.ids)])
        return torch.baddbmm(s["lin2.bias"].unsqueeze(1), hid, s["lin2.weight"].transpose(1, 2))

    def _conv(self, s: dict[str, Tensor], depth: int, h: Tensor, adj: Tensor) -> Tensor:
        """Layer ``depth`` of the members having it (``h``: [N, F] shared or [N, k, F])."""
        p = f"convs.{depth}."
        if self.family in GCN_NORMALISED:
            z = _linear(h, s[p + "lin.weight"])
            if self._gfb is not None:
                z = self._second_order(z, s[p + "lam"])
            return _aggregate(adj, z, "sum") + s[p + "bias"]
        root = _linear(h, s[p + "lin_r.weight"])
        if self._gfb is not None:
            z = self._second_order(_linear(h, s[p + "lin_l.weight"]), s[p + "lam"])
            out = _aggregate(adj, z, "mean")
        else:  # SAGEConv aggregates first, then maps
            out = _linear(_aggregate(adj, h, "mean"), s[p + "lin_l.weight"])
        return out + s[p + "lin_l.bias"] + root

    def _second_order(self, z: Tensor, lam: Tensor) -> Tensor:
        """GFBMixin.gfb per member: ``z + lam_m N(GenVec(z z^T + eps I))``, z [N, k, H]."""
        c = self._gfb
        assert c is not None
        second = genvec(z, c.summarize, eps=c.eps, exact=c.exact, k_top=c.k_top)
        if c.second_norm != "none":
            second = normalize_second(second, c.second_norm, c.second_scale)
        return z + lam.view(1, -1, 1) * second

    def _where(self, member: int) -> tuple[_Group, int]:
        for g in self.groups:
            if member in g.ids:
                return g, g.ids.index(member)
        raise KeyError(f"member {member} is not in the model")

    @torch.no_grad()
    def write_member(self, member: int, model: GraphClassifier) -> None:
        """Copy member ``member``'s current weights into ``model`` (its own classifier)."""
        g, pos = self._where(member)
        state = model.state_dict()
        for name, stack in g.stacks.items():
            if pos < stack.size(0):
                state[name].copy_(stack[pos])

    def remove(self, members: Sequence[int]) -> list[Carried]:
        """Take ``members`` out: their rows leave every stack (stacks left empty go), so they
        change no more.  Returns every remaining stacked parameter with where it came from."""
        gone = set(members)
        carried: list[Carried] = []
        for g in self.groups:
            drop = {pos for pos, i in enumerate(g.ids) if i in gone}
            stacks = {}
            for name, old in g.stacks.items():
                keep = [pos for pos in range(old.size(0)) if pos not in drop]
                if len(keep) == old.size(0):
                    stacks[name] = old
                    carried.append(Carried(old, old, None))
                elif keep:
                    rows = torch.tensor(keep, device=old.device)
                    stacks[name] = old.detach().index_select(0, rows).requires_grad_()
                    carried.append(Carried(old, stacks[name], rows))
            g.stacks = stacks
            g.layers = [n for pos, n in enumerate(g.layers) if pos not in drop]
            g.ids = [i for i in g.ids if i not in gone]
        self.groups = [g for g in self.groups if g.ids]
        return carried


__all__ = ["CONVS", "Carried", "Dropout", "StackedClassifiers"]
