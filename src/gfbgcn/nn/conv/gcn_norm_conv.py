"""The GCN-normalised aggregation every layer of the paper shares, and the common forward.

Every layer of the paper is "per-node transform ``phi``, then the GCN aggregation Omega of Eq.
``gcn_omega``, then an optional post-aggregation map and a bias".  :class:`GCNNormConv` owns
the aggregation: symmetric normalisation ``a_vu = e_uv / sqrt(deg(u) deg(v))`` via PyG's
:func:`~torch_geometric.nn.conv.gcn_conv.gcn_norm` (self-loops added), transductive caching of
the normalised adjacency, and the weighted sum ``message`` / ``message_and_aggregate``.
:class:`SecondOrderConv` adds the one forward that :class:`~gfbgcn.nn.conv.GFBConv` and the
baselines FBP, BP, CBP and square-root pooling share; they only define ``node_features``.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import Parameter
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.typing import Adj, OptTensor, SparseTensor
from torch_geometric.utils import is_sparse, to_edge_index, to_torch_csr_tensor

from gfbgcn.nn.sparse import fused_sparse_ok
from gfbgcn.nn.sparse import spmm as sparse_spmm

__all__ = ["GCNNormConv", "SecondOrderConv"]


class GCNNormConv(MessagePassing):
    r"""Base class: ``out_v = sum_{u in N~(v)} a_vu z_u`` with GCN normalisation and caching.

    Subclasses compute the per-node features ``z`` ([N, F]) and call :meth:`aggregate_gcn`;
    normalisation and caching behave as in :class:`torch_geometric.nn.GCNConv`:

    * ``normalize=True``: ``a = D^{-1/2} (A + I) D^{-1/2}`` (Eq. ``gcn_omega``), self-loops added
      by ``gcn_norm`` (``add_remaining_self_loops``: existing self-loop weights are kept).
    * ``cached=True``: the normalised adjacency is computed on the first call and reused on
      every later call (transductive setting only; the graph passed later is ignored).
    * inputs: ``edge_index`` [2, E] (+ ``edge_weight`` [E]), a ``torch_sparse.SparseTensor`` or a
      ``torch.sparse`` adjacency, both *transposed* (row = target, as PyG expects; their values
      are the edge weights and ``edge_weight`` is ignored).  All forms are normalised by the
      same ``edge_index`` code path (existing self-loops keep their weight, missing ones get
      weight 1), so they give equal results; sparse inputs come back as CSR for ``spmm``.

    Args:
        cached: cache the normalised adjacency.
        add_self_loops: add self-loops before normalising; ``None`` means ``normalize`` (as in
            ``GCNConv``; with the default ``normalize=True`` this is ``True``).
        normalize: apply the symmetric normalisation; if ``False`` the raw weights are used.
        **kwargs: passed to :class:`~torch_geometric.nn.conv.MessagePassing`.
    """

    _cached_edge_index: tuple[Tensor, OptTensor] | None
    _cached_adj_t: Adj | None

    def __init__(
        self,
        *,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        **kwargs,
    ) -> None:
        kwargs.setdefault("aggr", "add")
        super().__init__(**kwargs)
        if add_self_loops is None:
            add_self_loops = normalize
        if add_self_loops and not normalize:
            raise ValueError(
                f"'{self.__class__.__name__}' does not support adding self-loops to the graph "
                f"when no on-the-fly normalization is applied"
            )
        self.cached = cached
        self.add_self_loops = add_self_loops
        self.normalize = normalize
        self._cached_edge_index = None
        self._cached_adj_t = None

    def reset_cache(self) -> None:
        """Forget the cached normalised adjacency (call when the graph changes)."""
        self._cached_edge_index = None
        self._cached_adj_t = None

    def reset_parameters(self) -> None:
        """Reset PyG aggregation state and the adjacency cache (subclasses reset weights)."""
        super().reset_parameters()
        self.reset_cache()

    def normalized_adjacency(
        self,
        edge_index: Adj,
        edge_weight: OptTensor,
        num_nodes: int,
        dtype: torch.dtype,
    ) -> tuple[Adj, OptTensor]:
        """Return ``(edge_index, edge_weight)`` of ``a`` (or ``(adj_t, None)`` for sparse input).

        Uses the cache when ``cached=True``; returns the input unchanged when
        ``normalize=False``.
        """
        if not self.normalize:
            return edge_index, edge_weight
        if is_sparse(edge_index):  # SparseTensor or torch.sparse, transposed (row = target)
            cache_t = self._cached_adj_t
            if cache_t is not None:
                return cache_t, None
            adj_t = self._normalize_sparse(edge_index, num_nodes, dtype)
            if self.cached:
                self._cached_adj_t = adj_t
            return adj_t, None
        cache = self._cached_edge_index
        if cache is not None:
            return cache[0], cache[1]
        edge_index, edge_weight = gcn_norm(  # Eq. gcn_omega
            edge_index, edge_weight, num_nodes, False, self.add_self_loops, self.flow, dtype
        )
        if self.cached:
            self._cached_edge_index = (edge_index, edge_weight)
        return edge_index, edge_weight

    def _normalize_sparse(self, adj_t: Adj, num_nodes: int, dtype: torch.dtype) -> Adj:
        """Normalise a sparse adjacency through the ``edge_index`` path of ``gcn_norm``.

        PyG's sparse branches of ``gcn_norm`` treat existing self-loops differently from its
        ``edge_index`` branch (``fill_diag`` replaces them, ``add_self_loops`` adds 1 to them,
        ``add_remaining_self_loops`` keeps them); text graphs carry self-loops (``A_ii = 1``),
        so every input form is routed through the ``edge_index`` branch for equal results.
        Returns the normalised transposed adjacency as a CSR tensor (or a ``SparseTensor``
        for ``SparseTensor`` input).
        """
        index_t, value = to_edge_index(adj_t)  # index_t[0] = target, index_t[1] = source
        edge_index, edge_weight = gcn_norm(
            index_t.flip(0), value.to(dtype), num_nodes, False, self.add_self_loops,
            "source_to_target", dtype,
        )
        assert edge_weight is not None
        row, col = edge_index[1], edge_index[0]
        if isinstance(adj_t, SparseTensor):
            return SparseTensor(
                row=row, col=col, value=edge_weight, sparse_sizes=(num_nodes, num_nodes)
            )
        return to_torch_csr_tensor(
            torch.stack([row, col], dim=0), edge_weight, size=(num_nodes, num_nodes)
        )

    def aggregate_gcn(self, z: Tensor, edge_index: Adj, edge_weight: OptTensor = None) -> Tensor:
        """Omega of Eq. ``gcn_omega`` on already-normalised weights.  ``z``: [N, F] -> [N, F]."""
        if fused_sparse_ok(self, edge_index):  # skips PyG's per-call to_edge_index
            return self.message_and_aggregate(edge_index, z)
        # propagate_type: (x: Tensor, edge_weight: OptTensor)
        return self.propagate(edge_index, x=z, edge_weight=edge_weight)

    def message(self, x_j: Tensor, edge_weight: OptTensor) -> Tensor:
        """``a_vu * z_u`` per edge.  ``x_j``: [E, F], ``edge_weight``: [E] -> [E, F]."""
        return x_j if edge_weight is None else edge_weight.view(-1, 1) * x_j

    def message_and_aggregate(self, adj_t: Adj, x: Tensor) -> Tensor:
        """Fused ``a @ z`` for sparse adjacency input.  ``x``: [N, F] -> [N, F]."""
        return sparse_spmm(adj_t, x, reduce=self.aggr)


class SecondOrderConv(GCNNormConv):
    r"""The shared forward ``x'_v = post( sum_u a_vu phi(x_u) ) + b`` of the paper's layers.

    .. math::
        \mathbf{x}'_v = \mathrm{post}\Big(\sum_{u \in \tilde N(v)} \hat a_{vu}\,
        \phi(\mathbf{x}_u)\Big) + \mathbf{b}

    Subclasses define the per-node transform :meth:`node_features` (``phi``: GFB's
    ``W x + lambda GenVec``, FBP's ``L vec(W x x^T W^T)``, ...) and, where the layer has one, the
    element-wise :meth:`post_aggregate` (square-root pooling).  Because Omega is linear and
    acts on nodes while ``phi``'s final linear map acts on channels, computing ``phi`` per node
    before aggregating equals the literal order of each layer's equation (tested per layer).
    Inductive prediction (:mod:`gfbgcn.text.predict.inductive`) relies on exactly this
    decomposition.

    Args:
        in_channels, out_channels: input and output sizes.
        cached, add_self_loops, normalize: see :class:`GCNNormConv`.
        bias: learn an additive bias ``b`` (after aggregation, as in ``GCNConv``).
    """

    bias: Parameter | None

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            cached=cached, add_self_loops=add_self_loops, normalize=normalize, **kwargs
        )
        self.in_channels = in_channels
        self.out_channels = out_channels
        if bias:
            self.bias = Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)

    def node_features(self, x: Tensor) -> Tensor:  # pragma: no cover - abstract
        """Per-node pre-aggregation features ``phi(x)``.  [N, in_channels] -> [N, out]."""
        raise NotImplementedError

    def post_aggregate(self, out: Tensor) -> Tensor:
        """Hook applied after Omega and before the bias (identity by default)."""
        return out

    def forward(self, x: Tensor, edge_index: Adj, edge_weight: OptTensor = None) -> Tensor:
        """``x`` [N, in_channels], graph as in :class:`GCNNormConv` -> [N, out_channels]."""
        if isinstance(x, (tuple, list)):
            raise ValueError(f"'{self.__class__.__name__}' does not support bipartite input")
        edge_index, edge_weight = self.normalized_adjacency(
            edge_index, edge_weight, x.shape[self.node_dim], x.dtype
        )
        out = self.aggregate_gcn(self.node_features(x), edge_index, edge_weight)  # Omega
        out = self.post_aggregate(out)
        if self.bias is not None:
            out = out + self.bias
        return out

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.in_channels}, {self.out_channels})"
