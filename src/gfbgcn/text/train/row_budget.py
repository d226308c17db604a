r"""A fixed budget of first-layer input rows per mini-batch step (``--row-budget K``).

Node-wise sampling (:mod:`gfbgcn.text.train.sampler`) gives a step an unbiased sparse estimate
``P = Â_s[S, :]`` of the layer-1 rows it needs.  Its distinct columns ``C`` are the rows of
``W1`` the step reads, differentiates and updates, and ``|C|`` grows with the graph: where the
graph is small, a batch's draws collide on the same nodes; as it grows they collide less, until
``|C|`` reaches the number of draws.  A step's cost grows with ``|C|`` (``docs/benchmarks.md``,
scale section), so an epoch (``N / B`` steps) grows faster than the corpus.

With a budget ``K < |C|`` the step keeps column ``u`` with probability ``pi_u`` and scales it
by ``1 / pi_u`` (Poisson sampling with a Horvitz-Thompson estimate, as layer-wise importance
sampling does for a layer's nodes: FastGCN, Chen et al., ICLR 2018; LADIES, Zou et al.,
NeurIPS 2019), with the probabilities from the node-wise sample ``P`` itself (one pass over its
entries, instead of the exact rows of ``S``, which hold whole word columns):

.. math::
    \pi_u = \min\bigl(1,\; c\,\lVert P_{:,u} \rVert_2\bigr),\quad
    \textstyle\sum_u \pi_u = K,\qquad
    P W_1 \approx \sum_{u \text{ kept}} \frac{1}{\pi_u}\, P_{:,u}\, W_1[u]

an unbiased estimate of ``P W_1`` given ``P`` (hence of ``Â[S, :] W_1``).  Columns with the
largest norms are kept with certainty (no variance from them); among the rest, ``pi``
proportional to the column norm minimises the estimate's variance when the rows of ``W1`` have
equal norms.  About ``K`` rows of ``W1`` (``K`` in expectation) then enter the step whatever the
graph's size, so with ``--optimizer sparse-adam`` (which updates only those rows) a step's cost
is bounded and an epoch grows linearly with the documents.  The keep/drop decisions come from
the counter-based hash of :func:`~gfbgcn.text.train.sampler.hashed_uniform` keyed by
``(seed, epoch, step, layer, column)``: the same on every device.

The same budget applies to layer 2: a batch's exact rows ``Â[B, S]`` keep about ``K`` of their
columns ``S`` by the same rule, so at most about ``K`` nodes need a layer-1 row.  With
``|S| <= K`` and ``|C| <= K`` nothing is drawn and the step is exactly the node-wise one.
Under data parallelism (:mod:`gfbgcn.text.train.distributed`) each process applies the budget
to its own share of the batch: the average gradient is still unbiased, but, unlike training
without a budget, it is not the single-process run split in parts.
"""

from __future__ import annotations

import torch
from torch import Tensor

from gfbgcn.text.train.sampler import hashed_uniform

__all__ = ["column_norms", "inclusion_probabilities", "limit_rows"]

#: Separates the budget's hash keys from the node-wise sampler's ``(seed, step, node, slot)``.
_KEY = 0x2B0D6E7


def column_norms(rows: Tensor) -> Tensor:
    """``||P[:, u]||_2`` ``[M]`` float64 of a CSR ``P`` ``[R, M]``, over its stored entries
    (two draws of the same node in one row count as two entries)."""
    values = rows.values().double()
    sq = torch.zeros(rows.shape[1], dtype=torch.float64, device=values.device)
    sq.index_add_(0, rows.col_indices().long(), values * values)
    return sq.sqrt_()


def inclusion_probabilities(weights: Tensor, budget: int) -> Tensor:
    """``pi = min(1, c * weights)`` with ``sum(pi) = budget`` (float64; ``weights >= 0``; every
    ``pi`` is 1 when fewer than ``budget`` weights are positive).  The ``t`` largest weights
    get 1, for the smallest ``t`` at which the rest, scaled to sum to ``budget - t``, stay
    <= 1 (water-filling, vectorised over ``t``)."""
    positive = int((weights > 0).sum())
    if positive <= budget:
        return (weights > 0).double()
    w = torch.sort(weights.double(), descending=True).values
    rest = torch.flip(torch.cumsum(torch.flip(w, [0]), 0), [0])  # rest[t] = sum(w[t:])
    t = torch.arange(budget, device=w.device)
    c = (budget - t) / rest[:budget]
    fits = (c * w[:budget] <= 1).nonzero()
    first = int(fits[0]) if len(fits) else budget - 1
    return torch.clamp(c[first] * weights.double(), max=1.0)


def limit_rows(rows: Tensor, budget: int, *key: int) -> tuple[Tensor, Tensor]:
    """``(rows over the kept columns [R, |kept|] CSR, kept)``: the estimate of the module
    docstring for a CSR ``rows`` ``[R, M]`` whose ``M`` columns are all used (as
    :func:`~gfbgcn.text.train.sampler.local_columns` returns them); ``kept``: the kept column
    positions (sorted, int64; ``budget`` of them in expectation).  With ``M <= budget`` nothing
    is drawn: ``rows`` and every column come back as they are.  ``key``: the integers that
    seed the draws (e.g. ``(seed, epoch, step, layer)``)."""
    m, device = rows.shape[1], rows.values().device
    if m <= budget:
        return rows, torch.arange(m, device=device)
    pi = inclusion_probabilities(column_norms(rows), budget)
    u = hashed_uniform(_KEY, *key, torch.arange(m, device=device))
    keep_column = u < pi
    kept = keep_column.nonzero().view(-1)
    position = torch.full((m,), -1, dtype=torch.int64, device=device)
    position[kept] = torch.arange(len(kept), device=device)
    col = rows.col_indices().long()
    keep = keep_column[col]
    crow = rows.crow_indices().long()
    row_of = torch.repeat_interleave(torch.arange(rows.shape[0], device=device),
                                     crow[1:] - crow[:-1], output_size=len(col))
    new_crow = torch.zeros(rows.shape[0] + 1, dtype=torch.int64, device=device)
    torch.cumsum(torch.bincount(row_of[keep], minlength=rows.shape[0]), 0, out=new_crow[1:])
    values = rows.values()[keep] / pi[col[keep]].to(rows.values().dtype)
    return (torch.sparse_csr_tensor(new_crow, position[col[keep]], values,
                                    (rows.shape[0], len(kept))), kept)
