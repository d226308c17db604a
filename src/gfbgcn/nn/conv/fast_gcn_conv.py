"""PyG's ``GCNConv`` with the fast sparse backward of :mod:`gfbgcn.nn.sparse`.

Given a torch sparse CSR adjacency (transposed: row = target), PyG fuses message passing into
``torch.sparse.mm``, whose backward re-transposes the matrix on every call.  This subclass
routes that product through :func:`gfbgcn.nn.sparse.spmm` (one cached transpose per matrix, none
for a matrix marked symmetric).  Everything else, parameters and results included, is PyG's.
"""

from __future__ import annotations

from torch import Tensor
from torch_geometric.nn import GCNConv

from gfbgcn.nn.sparse import spmm


class FastGCNConv(GCNConv):
    """``GCNConv`` whose sparse aggregation uses :func:`gfbgcn.nn.sparse.spmm`."""

    def message_and_aggregate(self, adj_t: Tensor, x: Tensor) -> Tensor:
        return spmm(adj_t, x, reduce=self.aggr)


__all__ = ["FastGCNConv"]
