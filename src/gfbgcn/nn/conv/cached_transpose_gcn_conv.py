"""PyG's ``GCNConv`` with the cached-transpose sparse backward of :mod:`gfbgcn.nn.sparse`.

Not FastGCN (Chen et al. 2018, importance sampling of nodes): the same layer as PyG's, only its
sparse backward is faster, hence the name.

Given a torch sparse CSR adjacency (transposed: row = target), PyG fuses message passing into
``torch.sparse.mm``, whose backward re-transposes the matrix on every call.  This subclass
routes that product through :func:`gfbgcn.nn.sparse.spmm` (one cached transpose per matrix, none
for a matrix marked symmetric).  Everything else, parameters and results included, is PyG's.
"""

from __future__ import annotations

from torch import Tensor
from torch_geometric.nn import GCNConv

from gfbgcn.nn.sparse import spmm


class CachedTransposeGCNConv(GCNConv):
    """``GCNConv`` whose sparse aggregation uses :func:`gfbgcn.nn.sparse.spmm` (its backward
    reuses one cached CSR transpose per adjacency, or the adjacency itself where it is marked
    symmetric)."""

    def message_and_aggregate(self, adj_t: Tensor, x: Tensor) -> Tensor:
        """``adj_t @ x`` [N, C] (PyG's hook for a sparse adjacency), through
        :func:`gfbgcn.nn.sparse.spmm`."""
        return spmm(adj_t, x, reduce=self.aggr)


__all__ = ["CachedTransposeGCNConv"]
