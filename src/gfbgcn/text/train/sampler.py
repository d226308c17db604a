"""Sampled two-hop subgraphs of the Text GCN graph around a batch of documents.

For a batch ``B`` of documents the two-layer model needs

* layer 2: the rows ``Â[B, :]``, taken **exactly** (a document row holds its words and
  itself, ~100 entries); their columns ``S`` are the nodes whose layer-1 output is needed;
* layer 1: ``h_S = ReLU(Â[S, :] W1)``.  Word rows are long (a frequent word touches most
  documents), so a row with more than ``fanout`` entries is replaced by ``fanout`` entries drawn
  with probability proportional to ``â_vu`` (importance sampling), each weighted
  ``sum_u â_vu / fanout``: an unbiased estimate of ``Â[v, :] W1`` with ``fanout`` nonzeros.
  Rows with at most ``fanout`` entries are kept exactly.

The draws come from a counter-based hash of ``(seed, step, node, slot)`` instead of a stateful
generator, so a node's sample does not depend on which other documents share its batch: a batch
split over several processes (:mod:`gfbgcn.text.train.distributed`) computes exactly what one process
computes for the whole batch.

PyTorch Geometric's ``NeighborLoader`` would need ``pyg-lib`` or ``torch-sparse`` (compiled
extensions not installable from PyPI for this torch build) and samples uniformly instead of by
weight; this sampler is a few vectorised torch operations on the CSR arrays of ``Â``.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["SubgraphSampler", "hashed_uniform"]

_MASK53 = (1 << 53) - 1


def hashed_uniform(*keys: Tensor | int) -> Tensor:
    """Uniform [0, 1) float64 values determined by integer keys (broadcast), via SplitMix64-style
    mixing on int64 (wrapping multiplication)."""
    x = torch.zeros((), dtype=torch.int64)
    for k in keys:
        x = x * 0x5851F42D4C957F2D + torch.as_tensor(k, dtype=torch.int64) + 0x14057B7EF767814F
        x = x ^ ((x >> 31) & 0x1FFFFFFFF)
        x = x * -0x40A7B892E31B1A47  # 0xBF58476D1CE4E5B9 as a signed int64
        x = x ^ ((x >> 27) & 0x1FFFFFFFFF)
        x = x * -0x6B2FB644ECCEEE15  # 0x94D049BB133111EB
        x = x ^ ((x >> 31) & 0x1FFFFFFFF)
    return (x & _MASK53).to(torch.float64) / float(1 << 53)


class SubgraphSampler:
    """Layer inputs of one batch from the normalised adjacency ``adj`` (torch sparse CSR)."""

    def __init__(self, adj: Tensor, fanout: int, seed: int = 0) -> None:
        if fanout < 1:
            raise ValueError(f"fanout must be >= 1, got {fanout}")
        self.num_nodes = adj.shape[0]
        self.crow = adj.crow_indices().to(torch.int64)
        self.col = adj.col_indices().to(torch.int64)
        self.val = adj.values()
        self.fanout = fanout
        self.seed = seed
        # inverse-CDF sampling inside each row: cumulative weights over the whole matrix,
        # accumulated in float64 straight from the float32 values (no float64 copy first)
        self.cum = torch.cumsum(self.val, 0, dtype=torch.float64)
        self.row_start = self._weight_before(self.crow[:-1])
        self.row_sum = self._weight_before(self.crow[1:]) - self.row_start

    def _weight_before(self, pos: Tensor) -> Tensor:
        """Sum of the values before entry ``pos`` (``cum[pos - 1]``; 0 at entry 0)."""
        before = self.cum[(pos - 1).clamp(min=0)]
        before[pos == 0] = 0.0
        return before

    def batch_rows(self, batch: Tensor) -> tuple[Tensor, Tensor]:
        """``(Â[batch, S] as [len(batch), len(S)] CSR, S)``: exact layer-2 rows, their columns
        ``S`` (sorted global ids) relabelled to positions in ``S``."""
        crow, col = self.crow, self.col
        counts = crow[batch + 1] - crow[batch]
        new_crow = torch.zeros(len(batch) + 1, dtype=torch.int64)
        torch.cumsum(counts, 0, out=new_crow[1:])
        total = int(new_crow[-1])
        pos = torch.repeat_interleave(crow[batch] - new_crow[:-1], counts, output_size=total)
        pos = pos + torch.arange(total)
        needed, local = torch.unique(col[pos], return_inverse=True)
        rows = torch.sparse_csr_tensor(new_crow, local, self.val[pos], (len(batch), len(needed)))
        return rows, needed

    def sampled_rows(self, nodes: Tensor, step: int) -> Tensor:
        """``[len(nodes), N]`` CSR estimate of ``Â[nodes, :]``: rows longer than ``fanout``
        replaced by ``fanout`` weighted draws (see the module docstring)."""
        degree = self.crow[nodes + 1] - self.crow[nodes]
        exact = degree <= self.fanout
        counts = torch.where(exact, degree, torch.full_like(degree, self.fanout))
        new_crow = torch.zeros(len(nodes) + 1, dtype=torch.int64)
        torch.cumsum(counts, 0, out=new_crow[1:])
        total = int(new_crow[-1])
        row = torch.repeat_interleave(torch.arange(len(nodes)), counts, output_size=total)
        slot = torch.arange(total) - new_crow[:-1][row]
        node = nodes[row]
        is_exact = exact[row]
        pos = self.crow[node] + slot  # exact rows: every entry in order
        draw = ~is_exact
        if bool(draw.any()):
            v = node[draw]
            u = hashed_uniform(self.seed, step, v, slot[draw])
            target = self.row_start[v] + u * self.row_sum[v]
            hit = torch.searchsorted(self.cum, target, right=True)
            pos[draw] = torch.minimum(torch.maximum(hit, self.crow[v]), self.crow[v + 1] - 1)
        values = self.val[pos].clone()
        if bool(draw.any()):
            values[draw] = (self.row_sum[node[draw]] / self.fanout).to(values.dtype)
        return torch.sparse_csr_tensor(new_crow, self.col[pos], values,
                                       (len(nodes), self.num_nodes))
