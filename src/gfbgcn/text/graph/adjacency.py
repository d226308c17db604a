"""The normalised adjacency ``D^-1/2 (A + I) D^-1/2`` as a torch CSR, in bounded memory.

PyG's ``gcn_norm`` appends the self-loops to a copy of ``edge_index``, and
``torch.sparse_coo_tensor(...).coalesce()`` then sorts all ``E`` entries through int64 keys and a
permutation before ``to_sparse_csr``: about 60 bytes an edge on top of the graph, which made
every training process (mini-batch ones too) peak like full batch.  Here the same float32
arithmetic runs on the edge arrays as they are (the degree accumulated in edge order with the
self-loop's 1 last, exactly as ``gcn_norm`` does with the loops appended; each weight
``d_r^-1/2 * w * d_c^-1/2`` left to right), and SciPy's linear COO -> CSR conversion orders the
entries.  ``tests/text/test_adjacency.py`` checks the result equal, bit for bit, to the
``gcn_norm`` + ``coalesce`` path.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch
from torch import Tensor

__all__ = ["normalized_adjacency_csr"]


def _gcn_norm_weights(edge_index: Tensor, edge_weight: Tensor, num_nodes: int
                      ) -> tuple[Tensor, Tensor]:
    """``(normalised edge weights, self-loop weights)``, float32, as ``gcn_norm`` computes them."""
    from torch_geometric.utils import scatter

    row, col = edge_index[0], edge_index[1]
    deg = scatter(edge_weight, col, 0, dim_size=num_nodes, reduce="sum")
    deg += 1.0  # the self-loop, added last as in gcn_norm's appended loops
    inv_sqrt = deg.pow_(-0.5)
    inv_sqrt.masked_fill_(inv_sqrt == float("inf"), 0.0)
    weight = inv_sqrt[row] * edge_weight
    weight *= inv_sqrt[col]
    return weight, inv_sqrt * 1.0 * inv_sqrt


def normalized_adjacency_csr(edge_index: Tensor, edge_weight: Tensor, num_nodes: int) -> Tensor:
    """``D^-1/2 (A + I) D^-1/2`` of a graph without self-loops, as a torch sparse CSR tensor
    (int64 indices, columns sorted in each row)."""
    weight, loops = _gcn_norm_weights(edge_index, edge_weight.to(torch.float32), num_nodes)
    nodes = np.arange(num_nodes)
    adj = sp.csr_matrix((weight.numpy(), (edge_index[0].numpy(), edge_index[1].numpy())),
                        shape=(num_nodes, num_nodes))
    del weight
    adj.sort_indices()  # canonical operands: the sum below is a linear merge, rows sorted
    adj = adj + sp.csr_matrix((loops.numpy(), (nodes, nodes)), shape=adj.shape)
    crow = torch.from_numpy(adj.indptr.astype(np.int64))
    col = torch.from_numpy(adj.indices.astype(np.int64))
    values = torch.from_numpy(adj.data)
    del adj
    return torch.sparse_csr_tensor(crow, col, values, (num_nodes, num_nodes))
