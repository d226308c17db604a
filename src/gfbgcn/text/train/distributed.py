"""Data-parallel mini-batch training over several processes or machines, under ``torchrun``.

``torchrun`` starts one process per slot and sets ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and
``MASTER_PORT``; :func:`init_from_env` joins them into a process group (``gloo`` for CPU
training; ``nccl`` when training on CUDA devices).  Every process builds (or loads from the
cache, rank 0 first) the same graph, keeps its own copy of the model, and takes the slice
``batch[rank::world]`` of each mini-batch (:mod:`gfbgcn.text.train.minibatch`);
``DistributedDataParallel`` averages the gradients, so all copies stay identical.  Only rank 0
prints, writes ``--out`` and ``--save``.

    torchrun --nproc-per-node 2 -m gfbgcn train --dataset 20ng --batch-size 1024
    # two machines, two processes each (run on both, --node-rank 0 and 1):
    torchrun --nnodes 2 --nproc-per-node 2 --node-rank 0 --master-addr HOST0 \\
        --master-port 29500 -m gfbgcn train --dataset 20ng --batch-size 1024
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

import torch.distributed as dist

__all__ = ["init_from_env", "rank_and_world", "rank_zero_first", "shutdown"]

T = TypeVar("T")


def rank_and_world() -> tuple[int, int]:
    """``(rank, world size)`` of the current process group, ``(0, 1)`` without one."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def init_from_env(device: str = "cpu") -> tuple[int, int]:
    """Join the process group described by torchrun's environment; ``(0, 1)`` outside torchrun."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return 0, 1
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device.startswith("cuda") else "gloo")
    return rank_and_world()


def rank_zero_first(fn: Callable[[], T]) -> T:
    """``fn()`` on rank 0, then on the other ranks (which then find rank 0's cached graph)."""
    rank, world = rank_and_world()
    if world > 1 and rank != 0:
        dist.barrier()
    result = fn()
    if world > 1 and rank == 0:
        dist.barrier()
    return result


def shutdown() -> None:
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
