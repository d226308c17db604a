"""Sparse x dense products with a fast backward for torch sparse CSR matrices.

``torch.sparse.mm(A_csr, X)`` differentiates through ``A.t() @ grad``, and for a CSR ``A`` torch
re-materialises that transpose on every backward call (the cost is in ``docs/layers.md``,
"Measurements behind design choices").  :func:`spmm` keeps one CSR transpose per matrix
(computed once, vectorised) and reuses it; a matrix marked symmetric (:func:`mark_symmetric`,
e.g. the normalised Text GCN adjacency) is its own transpose, so the backward is one more
forward.  On the CPU a product with a wide dense side runs over column blocks of it
(:func:`csr_matmul`): the same bits in less time.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch
from torch import Tensor
from torch_geometric.utils import is_torch_sparse_tensor
from torch_geometric.utils import spmm as pyg_spmm

# id(matrix) -> (weak reference to the matrix, its CSR transpose or None for "itself")
_TRANSPOSES: dict[int, tuple[weakref.ref, Tensor | None]] = {}


def _remember(adj: Tensor, transpose: Tensor | None) -> None:
    key = id(adj)
    _TRANSPOSES[key] = (weakref.ref(adj, lambda _: _TRANSPOSES.pop(key, None)), transpose)


def mark_symmetric(adj: Tensor) -> Tensor:
    """Declare ``adj`` symmetric: its backward reuses ``adj`` itself.  Returns ``adj``."""
    _remember(adj, None)
    return adj


def is_marked_symmetric(adj: Tensor) -> bool:
    """Whether ``adj`` (this very object) was declared symmetric with :func:`mark_symmetric`."""
    entry = _TRANSPOSES.get(id(adj))
    return entry is not None and entry[0]() is adj and entry[1] is None


def to_device(adj: Tensor, device: torch.device | str) -> Tensor:
    """``adj.to(device)``, keeping its :func:`mark_symmetric` declaration (a copy on another
    device is a new object, which would otherwise pay for a transpose in its first backward)."""
    moved = adj.to(device)
    if moved is not adj and is_marked_symmetric(adj):
        mark_symmetric(moved)
    return moved


def csr_transpose(adj: Tensor) -> Tensor:
    """The transpose of a CSR matrix as a CSR matrix (cached per matrix object)."""
    entry = _TRANSPOSES.get(id(adj))
    if entry is not None and entry[0]() is adj:
        return adj if entry[1] is None else entry[1]
    n_rows, n_cols = adj.shape
    crow, col, val = adj.crow_indices(), adj.col_indices(), adj.values()
    row = torch.repeat_interleave(torch.arange(n_rows, device=col.device), crow.diff())
    order = torch.argsort(col.long() * n_rows + row)  # sort entries by (col, row)
    new_crow = torch.zeros(n_cols + 1, dtype=crow.dtype, device=crow.device)
    new_crow[1:] = torch.cumsum(torch.bincount(col, minlength=n_cols), 0)
    transpose = torch.sparse_csr_tensor(  # the indices keep their dtype (int32 or int64)
        new_crow, row[order].to(crow.dtype), val[order], (n_cols, n_rows), dtype=val.dtype
    )
    _remember(adj, transpose)
    return transpose


def csr_rows(adj: Tensor, rows: Tensor) -> Tensor:
    """Rows ``rows`` of a CSR matrix as a ``[len(rows), M]`` CSR matrix (vectorised)."""
    crow, col, val = adj.crow_indices(), adj.col_indices(), adj.values()
    rows = rows.to(crow.device, torch.long)
    counts = crow[rows + 1] - crow[rows]
    new_crow = torch.zeros(rows.numel() + 1, dtype=crow.dtype, device=crow.device)
    torch.cumsum(counts, 0, out=new_crow[1:])
    # positions crow[r] .. crow[r + 1] - 1 of every selected row r, in order
    total = int(new_crow[-1])
    starts = torch.repeat_interleave(crow[rows] - new_crow[:-1], counts, output_size=total)
    pos = starts + torch.arange(total, device=crow.device, dtype=crow.dtype)
    return torch.sparse_csr_tensor(new_crow, col[pos], val[pos], (rows.numel(), adj.shape[1]),
                                   dtype=val.dtype)


#: Column-block width of :func:`csr_matmul` on the CPU.  torch's CSR product (MKL on x86) slows
#: down more than in proportion to the dense side's width; on the text graphs of
#: ``benchmarks/spmm_blocks.py`` blocks of 32 columns of a 200-column ``X`` cut the time of
#: ``Â @ X`` by 1.1-2.4x at 1 and 2 threads (blocks of 16 and 64 gained less), with the same bits.
CPU_COLUMN_BLOCK = 32


def csr_matmul(adj: Tensor, x: Tensor, block: int = CPU_COLUMN_BLOCK) -> Tensor:
    """``adj @ x`` for a sparse CSR ``adj`` ``[N, M]`` and a dense ``x`` ``[M, F]``.

    On the CPU, an ``x`` wider than ``block`` columns is multiplied one contiguous block of
    columns at a time (:func:`column_blocks`), each block's product copied into its columns of
    the output (so the
    memory beyond ``adj @ x``'s is one block's): each output column is the same sum in the same
    order, so the result equals ``adj @ x`` bit for bit (tested), and a block's rows stay in
    cache while the matrix's entries gather them.  Elsewhere (CUDA), or with ``block`` 0, this
    is ``adj @ x``.
    """
    width = x.size(-1)
    if adj.device.type != "cpu" or x.dim() != 2 or block <= 0 or width <= block:
        return adj @ x
    out = torch.empty(adj.size(0), width, dtype=torch.result_type(adj, x), device=x.device)
    for start, stop in column_blocks(width, block):
        out[:, start:stop] = adj @ x[:, start:stop].contiguous()
    return out


def column_blocks(width: int, block: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of the column blocks of a ``width``-column product: ``block`` columns
    each, the last one ``block`` to ``2 * block - 1`` wide (the remainder joins it).

    Why no narrow last block: MKL multiplies a dense side of at most 24 columns whose width is a
    multiple of 4 with another kernel, which sums in another order (seen on an AVX-512 Xeon: a
    4-, 8-, ..., 24-column product differed from the same columns of a wider one in the last
    bit, every other width from 1 to 64 agreed), so a narrow remainder would change bits.
    """
    starts = list(range(0, width - block + 1, block)) if width > block else [0]
    stops = starts[1:] + [width]
    return list(zip(starts, stops))


class _CSRMatMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, adj: Tensor, x: Tensor) -> Tensor:
        ctx.adj = adj
        return csr_matmul(adj, x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor]:
        return None, csr_matmul(csr_transpose(ctx.adj), grad)


def spmm(adj: Any, x: Tensor, reduce: str = "sum") -> Tensor:
    """``adj @ x`` (``[N, M]`` sparse times ``[M, F]``); gradients flow to ``x`` only.

    Sum and mean aggregation over a torch sparse CSR matrix take the fast path (mean divides
    row ``v`` by its number of stored entries, as PyG's ``spmm``); every other input
    (``SparseTensor``, COO, other reductions) goes to PyG's ``spmm``.
    """
    if (
        isinstance(adj, Tensor)
        and adj.layout == torch.sparse_csr
        and reduce in ("sum", "add", "mean")
        and not adj.requires_grad
    ):
        out = _CSRMatMul.apply(adj, x)
        if reduce == "mean":
            count = adj.crow_indices().diff().clamp_(min=1).to(out.dtype)
            out = out / count.view(-1, 1)
        return out
    return pyg_spmm(adj, x, reduce=reduce)


_PROPAGATE_HOOKS = (
    "_propagate_forward_pre_hooks", "_propagate_forward_hooks",
    "_message_forward_pre_hooks", "_message_forward_hooks",
    "_aggregate_forward_pre_hooks", "_aggregate_forward_hooks",
    "_message_and_aggregate_forward_pre_hooks", "_message_and_aggregate_forward_hooks",
)


def fused_sparse_ok(conv: Any, adj: Any) -> bool:
    """True when ``conv.propagate(adj, ...)`` would do nothing but ``message_and_aggregate``:
    ``adj`` is a torch sparse matrix and the layer has no propagate/message hooks, no
    explainer and no decomposed layers.  PyG's ``propagate`` first re-derives an ``edge_index``
    from a torch sparse matrix on every call (``to_edge_index``: ~60 ms for the 3.4M entries of
    R8's graph, more than the rest of a GFB layer), so layers call the fused product directly.
    """
    return is_torch_sparse_tensor(adj) and (
        not getattr(conv, "explain", False)
        and getattr(conv, "decomposed_layers", 1) == 1
        and not any(getattr(conv, name, None) for name in _PROPAGATE_HOOKS)
    )
