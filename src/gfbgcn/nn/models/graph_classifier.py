"""Graph classifier: a stack of graph convolutions, global mean pooling and an MLP head."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn
from torch.nn import functional as F
from torch_geometric.nn import global_add_pool, global_mean_pool
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import to_torch_csr_tensor

from gfbgcn.nn.sparse import mark_symmetric

__all__ = ["ADJACENCIES", "GraphClassifier"]

#: What the convolutions aggregate with: the GCN-normalised ``D^-1/2 (A + I) D^-1/2`` or the
#: binary ``A`` (whose row means are GraphSAGE's neighbourhood mean).
ADJACENCIES: tuple[str, ...] = ("gcn", "binary")


class GraphClassifier(nn.Module):
    r"""``L`` convolutions, global mean pooling, a two-layer MLP head.

    .. math::
        \mathbf{h}^{(l)} = \mathrm{ReLU}(\mathrm{conv}_l(\mathbf{h}^{(l-1)}, \mathbf{A})),\quad
        \mathbf{g} = \mathrm{mean}_{v \in G}\, \mathbf{h}^{(L)}_v,\quad
        \mathbf{y} = \mathbf{W}_2\, \mathrm{dropout}(\mathrm{ReLU}(\mathbf{W}_1 \mathbf{g}
        + \mathbf{b}_1)) + \mathbf{b}_2

    The adjacency is built once per forward as a torch sparse CSR matrix (row = target) and
    shared by all layers: with ``adjacency="gcn"`` the normalised ``D^-1/2 (A + I) D^-1/2``
    (Eq. ``gcn_omega``; the convolutions must be built with ``normalize=False``: normalised once,
    not per layer), with ``"binary"`` the 0/1 ``A`` whose row means are the neighbourhood mean
    (timings against PyG's per-layer scatter: ``docs/layers.md``, "Measurements behind design
    choices").

    Args:
        convs: the convolutions, ``[N, F] -> [N, H]`` then ``[N, H] -> [N, H]``.
        hidden: ``H``, also the width of the head's hidden layer.
        num_classes: ``C``.
        dropout: dropout before the last linear layer.
        adjacency: one of :data:`ADJACENCIES`.
        readout: ``"mean"`` (``g`` above, PyG's ``global_mean_pool``) or ``"sum"``
            (``g = sum_{v in G} h_v``, ``global_add_pool``, as in GIN).

    Shapes:
        - **input:** ``x`` ``[N, F]``, ``edge_index`` ``[2, E]``, ``batch`` ``[N]`` graph ids
        - **output:** logits ``[B, C]``
    """

    def __init__(
        self,
        convs: Sequence[nn.Module],
        hidden: int,
        num_classes: int,
        dropout: float = 0.5,
        adjacency: str = "gcn",
        readout: str = "mean",
    ) -> None:
        super().__init__()
        if not convs:
            raise ValueError("GraphClassifier needs at least one convolution")
        if adjacency not in ADJACENCIES:
            raise ValueError(f"adjacency must be one of {ADJACENCIES}, got {adjacency!r}")
        self.convs = nn.ModuleList(convs)
        self.lin1 = nn.Linear(hidden, hidden)
        self.lin2 = nn.Linear(hidden, num_classes)
        self.dropout = dropout
        self.adjacency_kind = adjacency
        if readout not in ("mean", "sum"):
            raise ValueError(f"readout must be 'mean' or 'sum', got {readout!r}")
        self.readout = readout

    def reset_parameters(self) -> None:
        """Draw the initial weights of every convolution and of the readout MLP again."""
        for conv in self.convs:
            conv.reset_parameters()  # type: ignore[operator]
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()

    def adjacency(
        self, edge_index: Tensor, num_nodes: int, dtype: torch.dtype, undirected: bool = False
    ) -> Tensor:
        """What the layers aggregate with, an ``[N, N]`` CSR matrix (row = target).

        A multigraph with the binary adjacency keeps ``edge_index`` (PyG's mean counts every
        copy of an edge, a mean over CSR rows would not).  ``undirected=True`` (the caller
        knows ``edge_index`` is symmetric) lets the backward reuse the matrix as its own
        transpose.
        """
        weight = None
        if self.adjacency_kind == "gcn":
            # Eq. gcn_omega: D^-1/2 (A + I) D^-1/2, symmetric when A is
            edge_index, weight = gcn_norm(edge_index, None, num_nodes, add_self_loops=True,
                                          dtype=dtype)
        values = weight if weight is not None else torch.ones(
            edge_index.size(1), dtype=dtype, device=edge_index.device)  # binary A in ``dtype``
        adj = to_torch_csr_tensor(edge_index.flip(0), values, size=(num_nodes, num_nodes))
        if weight is None and adj._nnz() != edge_index.size(1):
            return edge_index
        return mark_symmetric(adj) if undirected else adj

    def forward(
        self, x: Tensor, edge_index: Tensor, batch: Tensor, undirected: bool = False
    ) -> Tensor:
        """``x`` [N, F], ``edge_index`` [2, E], ``batch`` [N] -> logits [B, C]."""
        adj = self.adjacency(edge_index, x.size(0), x.dtype, undirected)
        for conv in self.convs:
            x = F.relu(conv(x, adj))
        pool = global_mean_pool if self.readout == "mean" else global_add_pool
        g = pool(x, batch)
        g = F.relu(self.lin1(g))
        g = F.dropout(g, p=self.dropout, training=self.training)
        return self.lin2(g)
