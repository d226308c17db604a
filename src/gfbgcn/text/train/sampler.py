"""Sampled two-hop subgraphs of the Text GCN graph around a batch of documents.

For a batch ``B`` of documents the two-layer model needs

* layer 2: the rows ``Â[B, :]``, taken **exactly** (a document row holds its words and
  itself, ~100 entries); their columns ``S`` are the nodes whose layer-1 output is needed;
* layer 1: ``h_S = ReLU(Â[S, :] W1)``.  Word rows are long (a frequent word touches most
  documents), so a row with more than ``fanout`` entries is replaced by ``fanout`` entries drawn
  with probability proportional to ``â_vu`` (importance sampling), each weighted
  ``sum_u â_vu / fanout``: an unbiased estimate of ``Â[v, :] W1`` with ``fanout`` nonzeros.
  Rows with at most ``fanout`` entries are kept exactly.

A draw ``u`` in [0, 1) picks the first entry ``p`` of row ``v`` with ``c_p > u``, where
``c_p = sum_{q <= p} â_vq / sum_q â_vq`` is the row's normalised cumulative weight, stored once
as float32 per entry (4 bytes an entry of ``Â``; the row's last entry holds exactly 1).  A guide
table narrows the search: row ``v`` is cut into ``g_v = ceil(deg_v / GUIDE)`` equal slices of
[0, 1], and ``M_vj`` (int32, about 1 byte an entry) is its first entry with ``c_p >= j / g_v``;
a draw in slice ``j = floor(u g_v)`` lies in ``[M_vj, M_v(j+1)]``, a few entries, which a
vectorised bisection resolves (only draws still unresolved take part in each round).  An entry
whose weight is below float32 resolution of its row's total (relative 6e-8) can be skipped;
nothing else is approximate.

The draws come from a counter-based hash of ``(seed, step, node, slot)`` instead of a stateful
generator, so a node's sample does not depend on which other documents share its batch: a batch
split over several processes (:mod:`gfbgcn.text.train.distributed`) computes exactly what one
process computes for the whole batch.  All operations are torch operations on the tensors of
``Â``: the sampler runs on the device that holds ``Â`` (the CPU unless a caller passes ``Â``
on a GPU), and ``Â``'s index dtype (int32 or int64) is kept, never copied.

PyTorch Geometric's ``NeighborLoader`` would need ``pyg-lib`` or ``torch-sparse`` (compiled
extensions not installable from PyPI for this torch build) and samples uniformly instead of by
weight; this sampler is a few vectorised torch operations on the CSR arrays of ``Â``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

__all__ = ["InverseCDF", "SubgraphSampler", "hashed_uniform", "local_columns", "row_cdf"]

_MASK53 = (1 << 53) - 1
#: Entries of ``Â`` per block when the cumulative weights are computed (bounded temporaries).
CDF_BLOCK = 1 << 22
#: Entries of a row per slice of its guide table (see the module docstring).
GUIDE = 4


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


def _ranges(starts: Tensor, lengths: Tensor, total: int) -> Tensor:
    """The concatenated int64 ranges ``starts[i], ..., starts[i] + lengths[i] - 1``."""
    before = torch.cumsum(lengths, 0) - lengths
    return (torch.repeat_interleave(starts - before, lengths, output_size=total)
            + torch.arange(total, device=starts.device))


def _block_cuts(crow: Tensor, block: int) -> list[int]:
    """Row boundaries ``0 = r_0 < ... < r_k = N`` of blocks of about ``block`` entries."""
    n, nnz = len(crow) - 1, int(crow[-1])
    marks = torch.arange(0, nnz, block, device=crow.device, dtype=crow.dtype)
    inner = torch.searchsorted(crow, marks, right=True) - 1
    ends = torch.tensor([0, n], device=crow.device)
    return torch.unique(torch.cat([inner.long().clamp(0, n), ends])).tolist()


@dataclass
class InverseCDF:
    """What the draws read (see the module docstring): per entry ``cdf`` (float32), per row
    ``total`` (float64 sum), ``buckets`` ``g_v`` and ``guide_start`` (row ``v``'s ``M_v0`` is
    ``guide[guide_start[v]]``), and the ``guide`` positions ``M_vj`` (``g_v + 1`` per row)."""

    cdf: Tensor
    total: Tensor
    buckets: Tensor
    guide_start: Tensor
    guide: Tensor


def _block_tables(t: InverseCDF, crow: Tensor, values: Tensor, a: int, b: int,
                  counts: Tensor) -> None:
    """Fill ``cdf``, ``total`` and the guide counts of rows ``a .. b-1``."""
    lo, hi = int(crow[a]), int(crow[b])
    cum = torch.cumsum(values[lo:hi], 0, dtype=torch.float64)
    end = cum[(crow[a + 1 : b + 1] - lo - 1).long().clamp(min=0)]
    start = torch.where(crow[a:b] > lo, cum[(crow[a:b] - lo - 1).long().clamp(min=0)], 0.0)
    degree = (crow[a + 1 : b + 1] - crow[a:b]).long()
    t.total[a:b] = torch.where(degree > 0, end - start, 0.0)
    row = torch.repeat_interleave(torch.arange(b - a, device=cum.device), degree,
                                  output_size=hi - lo)
    t.cdf[lo:hi] = ((cum - start[row]) / t.total[a:b][row]).to(torch.float32)
    # slice of each entry, floor(c_p g_v) in [0, g_v]: exact in float64 for float32 c_p
    slot = (t.cdf[lo:hi].double() * t.buckets[a:b][row]).floor_().long()
    first = int(t.guide_start[a])
    key = t.guide_start[a:b][row] - first + slot
    counts[first : int(t.guide_start[b])] = torch.bincount(
        key, minlength=int(t.guide_start[b]) - first).to(counts.dtype)


def row_cdf(crow: Tensor, values: Tensor) -> InverseCDF:
    """The :class:`InverseCDF` of a CSR matrix, accumulated in float64 one block of about
    :data:`CDF_BLOCK` entries at a time.  ``M_vj = crow[v] + #{p in row v: floor(c_p g_v) < j}``
    is an exclusive cumulative sum of per-(row, slice) counts."""
    n, nnz, dev = len(crow) - 1, len(values), values.device
    degree = (crow[1:] - crow[:-1]).long()
    buckets = ((degree + GUIDE - 1) // GUIDE).clamp_(min=1)
    guide_start = torch.zeros(n + 1, dtype=torch.int64, device=dev)
    torch.cumsum(buckets + 1, 0, out=guide_start[1:])
    t = InverseCDF(torch.empty(nnz, dtype=torch.float32, device=dev),
                   torch.zeros(n, dtype=torch.float64, device=dev), buckets, guide_start,
                   torch.empty(0))
    index = torch.int32 if nnz < 2**31 else torch.int64
    counts = torch.zeros(int(guide_start[-1]), dtype=index, device=dev)
    cuts = _block_cuts(crow, CDF_BLOCK)
    for a, b in zip(cuts[:-1], cuts[1:]):
        if int(crow[b]) > int(crow[a]):
            _block_tables(t, crow, values, a, b, counts)
    t.guide = torch.zeros_like(counts)  # exclusive sums: entries before each (row, slice)
    torch.cumsum(counts[:-1], 0, out=t.guide[1:])
    return t


class SubgraphSampler:
    """Layer inputs of one batch from the normalised adjacency ``adj`` (torch sparse CSR)."""

    def __init__(self, adj: Tensor, fanout: int, seed: int = 0) -> None:
        if fanout < 1:
            raise ValueError(f"fanout must be >= 1, got {fanout}")
        self.num_nodes = adj.shape[0]
        self.crow, self.col, self.val = adj.crow_indices(), adj.col_indices(), adj.values()
        self.device = self.val.device
        self.fanout = fanout
        self.seed = seed
        self.tables = row_cdf(self.crow, self.val)
        self.cdf, self.row_sum = self.tables.cdf, self.tables.total

    def _rows(self, nodes: Tensor) -> tuple[Tensor, Tensor]:
        """``(first entry, degree)`` of each node's row, int64."""
        first = self.crow[nodes].long()
        return first, self.crow[nodes + 1].long() - first

    def batch_rows(self, batch: Tensor) -> tuple[Tensor, Tensor]:
        """``(Â[batch, S] as [len(batch), len(S)] CSR, S)``: exact layer-2 rows, their columns
        ``S`` (sorted global ids) relabelled to positions in ``S``."""
        first, counts = self._rows(batch)
        new_crow = torch.zeros(len(batch) + 1, dtype=torch.int64, device=self.device)
        torch.cumsum(counts, 0, out=new_crow[1:])
        pos = _ranges(first, counts, int(new_crow[-1]))
        needed, local = torch.unique(self.col[pos], return_inverse=True)
        rows = torch.sparse_csr_tensor(new_crow, local, self.val[pos], (len(batch), len(needed)))
        return rows, needed.long()

    def _draw(self, v: Tensor, u: Tensor) -> Tensor:
        """Per draw ``u`` of row ``v`` (same shape), the first position ``p`` of the row with
        ``c_p > u`` (the row's last entry when rounding leaves none), searched in the guide's
        slice; each bisection round takes only the draws not yet resolved."""
        t = self.tables
        g = t.buckets[v]
        j = torch.minimum((u.double() * g).long(), g - 1)
        at = t.guide_start[v] + j
        lo, hi = t.guide[at].long().view(-1), t.guide[at + 1].long().view(-1)
        u, count = u.reshape(-1), hi - lo + 1  # the answer lies in [lo, hi]
        out = torch.empty_like(lo)
        todo = torch.arange(len(lo), device=lo.device)
        while len(todo):
            half = count >> 1
            mid = lo + half
            go = self.cdf[mid] <= u
            lo = torch.where(go, mid + 1, lo)
            count = torch.where(go, count - half - 1, half)
            done = count == 0
            out[todo[done]] = lo[done]
            keep = ~done
            todo, lo, count, u = todo[keep], lo[keep], count[keep], u[keep]
        last = (self.crow[v + 1].long() - 1).view(-1)
        return torch.minimum(out, last).view(v.shape)

    def _sample(self, nodes: Tensor, step: int) -> tuple[Tensor, Tensor, Tensor]:
        """``(crow int64, columns in Â's index dtype, values)`` of :meth:`sampled_rows`."""
        first, degree = self._rows(nodes)
        exact = degree <= self.fanout
        counts = torch.where(exact, degree, torch.full_like(degree, self.fanout))
        new_crow = torch.zeros(len(nodes) + 1, dtype=torch.int64, device=self.device)
        torch.cumsum(counts, 0, out=new_crow[1:])
        total = int(new_crow[-1])
        cols = torch.empty(total, dtype=self.col.dtype, device=self.device)
        values = torch.empty(total, dtype=self.val.dtype, device=self.device)
        keep = exact.nonzero().view(-1)  # exact rows: every entry in order
        n_exact = int(degree[keep].sum())
        src = _ranges(first[keep], degree[keep], n_exact)
        dst = _ranges(new_crow[keep], degree[keep], n_exact)
        cols[dst], values[dst] = self.col[src], self.val[src]
        drawn = (~exact).nonzero().view(-1)
        if len(drawn):
            slot = torch.arange(self.fanout, device=self.device)
            v = nodes[drawn].view(-1, 1)
            u = hashed_uniform(self.seed, step, v, slot).to(torch.float32)
            pos = self._draw(v.expand_as(u), u)
            dst = (new_crow[drawn].view(-1, 1) + slot).view(-1)
            cols[dst] = self.col[pos.view(-1)]
            values[dst] = (self.row_sum[v] / self.fanout).to(values.dtype).expand_as(u).reshape(-1)
        return new_crow, cols, values

    def sampled_rows(self, nodes: Tensor, step: int) -> Tensor:
        """``[len(nodes), N]`` CSR estimate of ``Â[nodes, :]``: rows longer than ``fanout``
        replaced by ``fanout`` weighted draws keyed by ``step`` (see the module docstring)."""
        crow, cols, values = self._sample(nodes, step)
        return torch.sparse_csr_tensor(crow, cols.long(), values, (len(nodes), self.num_nodes))

    def presample(self, step: int, chunk: int = 1 << 16) -> Tensor:
        """:meth:`sampled_rows` of every node as one ``[N, N]`` CSR (indices in ``Â``'s dtype,
        at most ``fanout`` entries a row), drawn ``chunk`` nodes at a time: an epoch's layer-1
        sample, from which each step takes the rows it needs."""
        crows, cols, values, offset = [torch.zeros(1, dtype=torch.int64, device=self.device)], \
            [], [], 0
        for a in range(0, self.num_nodes, chunk):
            nodes = torch.arange(a, min(a + chunk, self.num_nodes), device=self.device)
            crow, col, val = self._sample(nodes, step)
            crows.append(crow[1:] + offset)
            cols.append(col)
            values.append(val)
            offset += int(crow[-1])
        crow = torch.cat(crows).to(self.col.dtype)
        return torch.sparse_csr_tensor(crow, torch.cat(cols), torch.cat(values),
                                       (self.num_nodes, self.num_nodes))


def local_columns(rows: Tensor) -> tuple[Tensor, Tensor]:
    """``(rows relabelled to [R, |C|], C)``: a CSR's used columns ``C`` (sorted global ids,
    int64) and the rows over them, for a row-sparse lookup of ``W1[C]``."""
    used, inverse = torch.unique(rows.col_indices(), return_inverse=True)
    crow = rows.crow_indices().to(torch.int64)
    return (torch.sparse_csr_tensor(crow, inverse, rows.values(), (rows.shape[0], len(used))),
            used.long())
