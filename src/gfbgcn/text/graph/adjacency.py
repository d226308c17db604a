"""The normalised adjacency ``D^-1/2 (A + I) D^-1/2`` as a torch CSR, in bounded memory.

PyG's ``gcn_norm`` appends the self-loops to a copy of ``edge_index``, and
``torch.sparse_coo_tensor(...).coalesce()`` then sorts all ``E`` entries through int64 keys and a
permutation before ``to_sparse_csr``: about 60 bytes an edge on top of the graph, which made
every training process (mini-batch ones too) peak like full batch.  Here the same float32
arithmetic runs on the edge arrays a chunk of edges at a time (the degree accumulated in edge
order with the self-loop's 1 last, exactly as ``gcn_norm`` does with the loops appended; each
weight ``d_r^-1/2 * w * d_c^-1/2`` left to right), each chunk is bucketed into its rows with
SciPy's linear COO -> CSR conversion and copied into the output arrays, the self-loop goes last
in each row, and SciPy sorts every row in place.  Beside the edge arrays (which may be int32
maps of the graph cache, :mod:`gfbgcn.text.graph.cache`) the build holds the output (4 or 8
bytes of column index and 4 of value per entry) and one chunk's temporaries.
``tests/text/graph/test_adjacency.py`` checks the result equal, bit for bit, to the
``gcn_norm`` + ``coalesce`` path.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from torch import Tensor

from gfbgcn.nn.sparse import mark_symmetric

__all__ = ["graph_adjacency", "normalized_adjacency_csr"]

#: Edges per chunk of the build (bounds its temporaries).
CHUNK = 1 << 22
_INT32_MAX = np.iinfo(np.int32).max


def _numpy(a: Tensor | np.ndarray) -> np.ndarray:
    return a.numpy() if isinstance(a, Tensor) else np.asarray(a)


def _chunks(total: int) -> list[tuple[int, int]]:
    return [(a, min(a + CHUNK, total)) for a in range(0, total, CHUNK)]


def _index(part: np.ndarray) -> Tensor:
    """A chunk of node ids as an int64 tensor (what ``scatter_add_`` and indexing take)."""
    return torch.from_numpy(np.asarray(part, dtype=np.int64))


def _inv_sqrt_degree(col: np.ndarray, weight: np.ndarray, num_nodes: int) -> Tensor:
    """``d^-1/2`` with ``d_v = sum_e w_e [col_e = v] + 1``, float32, summed in edge order as
    ``gcn_norm``'s ``scatter_add_`` does (its loops are appended last)."""
    deg = torch.zeros(num_nodes, dtype=torch.float32)
    for a, b in _chunks(len(col)):
        deg.scatter_add_(0, _index(col[a:b]), torch.from_numpy(
            np.asarray(weight[a:b], dtype=np.float32)))
    deg += 1.0
    inv_sqrt = deg.pow_(-0.5)
    inv_sqrt.masked_fill_(inv_sqrt == float("inf"), 0.0)
    return inv_sqrt


def _row_counts(row: np.ndarray, num_nodes: int) -> np.ndarray:
    """Entries per row of ``A + I``: the edges of each row plus its self-loop."""
    counts = np.ones(num_nodes, dtype=np.int64)
    for a, b in _chunks(len(row)):
        counts += np.bincount(row[a:b], minlength=num_nodes)
    return counts


def _fill(row: np.ndarray, col: np.ndarray, weight: np.ndarray, inv_sqrt: Tensor,
          indptr: np.ndarray, cols: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """Copy the normalised edges into their rows, chunk by chunk (in edge order within a row
    and chunk); returns the next free position of every row (where its self-loop goes)."""
    n = len(indptr) - 1
    cursor = indptr[:-1].astype(np.int64)
    for a, b in _chunks(len(row)):
        r, c = _index(row[a:b]), _index(col[a:b])
        w = inv_sqrt[r] * torch.from_numpy(np.asarray(weight[a:b], dtype=np.float32))
        w *= inv_sqrt[c]
        part = sp.coo_matrix((w.numpy(), (r.numpy(), c.numpy())), shape=(n, n)).tocsr()
        del r, c, w
        per_row = np.diff(part.indptr)
        pos = np.repeat(cursor - part.indptr[:-1], per_row) + np.arange(part.nnz)
        cols[pos] = part.indices
        vals[pos] = part.data
        cursor += per_row
    return cursor


def normalized_adjacency_csr(edge_index: Tensor | np.ndarray, edge_weight: Tensor | np.ndarray,
                             num_nodes: int, index_dtype: torch.dtype | None = torch.int64
                             ) -> Tensor:
    """``D^-1/2 (A + I) D^-1/2`` of a graph without self-loops, as a ``[N, N]`` torch sparse CSR
    tensor with ``index_dtype`` indices (``torch.int32`` halves them; it needs fewer than 2^31
    entries; None: int32 where they fit, else int64) and columns sorted in each row.
    ``edge_index`` ``[2, E]`` int32 or int64."""
    row, col = _numpy(edge_index[0]), _numpy(edge_index[1])
    weight = _numpy(edge_weight)
    inv_sqrt = _inv_sqrt_degree(col, weight, num_nodes)
    counts = _row_counts(row, num_nodes)
    nnz = int(counts.sum())
    small = nnz <= _INT32_MAX and num_nodes <= _INT32_MAX
    if index_dtype == torch.int32 and not small:
        raise ValueError(f"{nnz:,} entries do not fit int32 indices")
    np_index = np.int32 if small else np.int64  # SciPy keeps int32 when it fits anyway
    indptr = np.zeros(num_nodes + 1, dtype=np_index)
    np.cumsum(counts, out=indptr[1:])
    del counts
    cols, vals = np.empty(nnz, dtype=np_index), np.empty(nnz, dtype=np.float32)
    loop_pos = _fill(row, col, weight, inv_sqrt, indptr, cols, vals)
    cols[loop_pos] = np.arange(num_nodes)
    vals[loop_pos] = (inv_sqrt * 1.0 * inv_sqrt).numpy()
    adj = sp.csr_matrix((vals, cols, indptr), shape=(num_nodes, num_nodes), copy=False)
    del cols, vals
    adj.sum_duplicates()  # sorts each row in place (and adds up repeated edges, if any)
    out = np_index if index_dtype is None else np.int32 if index_dtype == torch.int32 \
        else np.int64
    crow = torch.from_numpy(adj.indptr.astype(out, copy=False))
    col_t = torch.from_numpy(adj.indices.astype(out, copy=False))
    values = torch.from_numpy(adj.data)
    del adj
    return torch.sparse_csr_tensor(crow, col_t, values, (num_nodes, num_nodes))


def graph_adjacency(graph: Any, index_dtype: torch.dtype | None = None) -> Tensor:
    """``Â`` of a :class:`~gfbgcn.text.graph.text_graph.TextGraph` straight from its edge arrays
    (int64 in memory or int32 maps of its cache file; never copied whole), marked symmetric
    for :func:`gfbgcn.nn.sparse.spmm`.  Text graphs have no self-loops by construction.

    ``index_dtype`` None (the default): int32 indices where they fit, else int64.  int32 halves
    the index traffic of every product with ``Â`` and gives bit-identical results (the
    measurement: ``docs/benchmarks.md``, "One ``--auto`` search")."""
    with warnings.catch_warnings():  # torch flags sparse CSR as beta; it is what we want here
        warnings.simplefilter("ignore", UserWarning)
        return mark_symmetric(normalized_adjacency_csr(
            graph.edge_index, graph.edge_weight, graph.num_nodes, index_dtype))


def normalized_adjacency(
    edge_index: torch.Tensor, edge_weight: torch.Tensor, num_nodes: int
) -> torch.Tensor:
    """``D^-1/2 (A + I) D^-1/2`` as a torch sparse CSR matrix.

    The text graph is symmetric, so the result is marked symmetric for
    :func:`gfbgcn.nn.sparse.spmm` (its backward reuses the matrix instead of a transpose).
    Without self-loops in ``edge_index`` (text graphs have none) it is built in bounded memory
    (:mod:`gfbgcn.text.graph.adjacency`, equal bit for bit); otherwise through PyG's ``gcn_norm``.
    """
    from torch_geometric.nn.conv.gcn_conv import gcn_norm

    with warnings.catch_warnings():  # torch flags sparse CSR as beta; it is what we want here
        warnings.simplefilter("ignore", UserWarning)
        if not bool((edge_index[0] == edge_index[1]).any()):
            return mark_symmetric(normalized_adjacency_csr(edge_index, edge_weight, num_nodes))
        ei, ew = gcn_norm(edge_index, edge_weight, num_nodes, add_self_loops=True)
        coo = torch.sparse_coo_tensor(ei, ew, (num_nodes, num_nodes)).coalesce()
        return mark_symmetric(coo.to_sparse_csr())


def node_degrees(graph: Any) -> np.ndarray:
    """``deg_i = 1 + sum_j A_ij`` of every node of a
    :class:`~gfbgcn.text.graph.text_graph.TextGraph` (self-loop included), float64.

    Summed in edge order, a chunk of edges at a time (``np.add.at`` adds element by element
    as ``np.bincount`` does: the same float64 sums, without a float64 copy of every weight)."""
    row, weight = graph.edge_index[0], graph.edge_weight
    deg = np.zeros(graph.num_nodes, dtype=np.float64)
    for a, b in _chunks(len(weight)):
        np.add.at(deg, np.asarray(row[a:b], dtype=np.intp), weight[a:b].astype(np.float64))
    return 1.0 + deg
