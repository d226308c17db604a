"""``--batch-size auto``: full batch where the graph's full-batch training fits in memory, else
mini-batch training with a row budget, chosen from the built graph's size and the memory the
training device has free.

Full-batch training holds ``Â`` (CSR: 12 bytes an entry, plus the normalisation's
temporaries), the identity-feature weight ``W1`` ``[N, hidden]`` with its gradient and Adam's
two moments, and the layers' activations, all growing with the graph.  Measured peak RSS of a
full-batch Text GCN process (``docs/benchmarks.md``, "Scale: cost against corpus size"):
2.49 GiB at 38.9 M entries of ``Â`` and 3.87 GiB at 61.6 M, 67-69 bytes an entry, the
interpreter and libraries included; 20NG's GFB-MaxVec reaches 3.2 GiB at 26.7 M entries.
:func:`full_batch_bytes` is a deliberately high estimate of that (1 GiB of fixed cost, 80
bytes an entry, eight ``[N, hidden]`` float32 tables), and full batch is chosen when it takes
at most :data:`FULL_BATCH_SHARE` of the memory available.

The mini-batch setting, :data:`MINI_BATCH`, is the one whose epoch time is linear in the
documents (69-80 µs a document from 43 k to 1 M documents) and whose 20NG accuracy matches
full batch (Text GCN −0.15 ± 0.26 points, GFB-MaxVec +0.63 ± 0.22 over 5 seeds): 1,024
documents a step, fanout 8, a row budget of 16,384 rows of ``W1`` a step, sparse (lazy) Adam.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from gfbgcn.text.train.models import WHOLE_MODELS

#: Full batch when its estimated peak is at most this share of the available memory.
FULL_BATCH_SHARE = 0.6
#: Mini-batch settings where full batch does not fit (module docstring).
MINI_BATCH: dict[str, int | str] = {
    "batch_size": 1024, "fanout": 8, "row_budget": 16384, "optimizer": "sparse-adam"}


@dataclass(frozen=True)
class Batching:
    """What ``auto`` chose: ``batch_size`` 0 for full batch, and why."""

    batch_size: int
    fanout: int | None
    row_budget: int
    optimizer: str | None
    reason: str

    def describe(self) -> str:
        if not self.batch_size:
            return f"full batch ({self.reason})"
        return (f"mini-batch: {self.batch_size} documents a step, fanout {self.fanout}, row "
                f"budget {self.row_budget}, optimizer {self.optimizer} ({self.reason})")


def adjacency_entries(num_nodes: int, num_doc_word: int, num_word_word: int) -> int:
    """Entries of ``Â``: both directions of every undirected edge, plus the self-loops."""
    return 2 * (num_doc_word + num_word_word) + num_nodes


def full_batch_bytes(num_nodes: int, entries: int, hidden: int) -> int:
    """A high estimate of a full-batch training process's peak memory (module docstring)."""
    return 2**30 + 80 * entries + 8 * 4 * num_nodes * hidden


def available_bytes(device: torch.device) -> int:
    """Memory free for training on ``device``: the GPU's free memory, or the host's available
    memory (``MemAvailable``; half the physical memory where the kernel does not say)."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free)
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # not Linux
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30  # unknown: assume a small machine


def choose_batching(num_nodes: int, entries: int, *, model: str, hidden: int,
                    available: int, fit_docs: int, multi_label: bool = False,
                    weight_decay: float = 0.0) -> Batching:
    """Full batch or :data:`MINI_BATCH` for a graph of ``num_nodes`` nodes and ``entries``
    entries of ``Â``, given ``available`` bytes; ``fit_docs``: the documents trained on (the
    training split less validation), which caps the batch.  Multi-label runs and the
    whole-model baselines (SGC, GIN) train full batch only; with weight decay, mini-batch uses
    dense Adam (sparse Adam has none)."""
    need = full_batch_bytes(num_nodes, entries, hidden)
    gib = f"{need / 2**30:.1f} GiB estimated for full batch, {available / 2**30:.1f} available"
    if need <= FULL_BATCH_SHARE * available:
        return Batching(0, None, 0, None, gib)
    if multi_label or model in WHOLE_MODELS:
        why = "multi-label training" if multi_label else f"{model}"
        return Batching(0, None, 0, None, f"{gib}; {why} trains full batch only")
    optimizer = "adam" if weight_decay else MINI_BATCH["optimizer"]
    batch = max(1, min(int(MINI_BATCH["batch_size"]), fit_docs))
    return Batching(batch, int(MINI_BATCH["fanout"]),
                    int(MINI_BATCH["row_budget"]), str(optimizer), gib)
