"""Data-parallel mini-batch training over several processes or machines, under ``torchrun``.

``torchrun`` starts one process per slot and sets ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
``MASTER_ADDR`` and ``MASTER_PORT``; :func:`init_from_env` joins them into a ``gloo`` process
group (barriers, the graph cache handshake, CPU training).  Every process builds (or loads from
the cache, rank 0 first) the same graph, keeps its own copy of the model, and takes the slice
``batch[rank::world]`` of each mini-batch (:mod:`gfbgcn.text.train.minibatch`);
``DistributedDataParallel`` averages the gradients, so all copies stay identical.  Only rank 0
prints, writes ``--out`` and ``--save``.

Devices (:func:`data_parallel_device`): when every process asked for a CUDA device and has one,
process ``LOCAL_RANK`` of a machine trains on ``cuda:LOCAL_RANK`` and the gradients are averaged
over an NCCL group (start one process per GPU); otherwise every process trains on the CPU over
gloo.  The choice itself is :func:`choose_backend`, a pure function.

    torchrun --nproc-per-node 2 -m gfbgcn train --dataset 20ng --batch-size 1024
    # one process per GPU of a machine with 4 GPUs (NCCL):
    torchrun --nproc-per-node 4 -m gfbgcn train --dataset 20ng --batch-size 1024 --device cuda
    # two machines, two processes each (run on both, --node-rank 0 and 1):
    torchrun --nnodes 2 --nproc-per-node 2 --node-rank 0 --master-addr HOST0 \\
        --master-port 29500 -m gfbgcn train --dataset 20ng --batch-size 1024
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import torch
import torch.distributed as dist

__all__ = ["choose_backend", "data_parallel_device", "init_from_env", "launched_rank",
           "local_device", "rank_and_world", "rank_zero_first", "shutdown", "torchrun_group"]

T = TypeVar("T")


def rank_and_world() -> tuple[int, int]:
    """``(rank, world size)`` of the current process group, ``(0, 1)`` without one."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def launched_rank() -> int:
    """The rank torchrun gave this process (``RANK``), known before any process group is
    joined; 0 outside torchrun (or with a ``RANK`` that is not a number)."""
    try:
        return int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0


def init_from_env(device: str = "cpu") -> tuple[int, int]:
    """Join the ``gloo`` process group described by torchrun's environment; ``(0, 1)`` outside
    torchrun.  (GPU training adds an NCCL group later, see :func:`data_parallel_device`;
    ``device`` is accepted for callers of earlier versions and not used.)"""
    del device
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return 0, 1
    if not dist.is_initialized():
        dist.init_process_group(backend="gloo")
    return rank_and_world()


def choose_backend(device_type: str, every_process_has_gpu: bool, nccl_available: bool) -> str:
    """``"nccl"`` for CUDA training when every process has a GPU and torch has NCCL, else
    ``"gloo"`` (CPU training)."""
    if device_type == "cuda" and every_process_has_gpu and nccl_available:
        return "nccl"
    return "gloo"


def local_device(device: torch.device, local_rank: int | None = None) -> torch.device:
    """The device of this process: ``cuda:LOCAL_RANK`` for CUDA training (one process per GPU
    of a machine), ``device`` itself otherwise."""
    if device.type != "cuda":
        return device
    if local_rank is None:
        local_rank = int(os.environ.get("LOCAL_RANK", device.index or 0))
    return torch.device("cuda", local_rank)


def data_parallel_device(device: torch.device) -> tuple[torch.device, Any]:
    """``(this process's device, process group for DistributedDataParallel)``: all processes
    agree (a MIN all-reduce over gloo) whether every one of them has a GPU; if so each takes
    ``cuda:LOCAL_RANK`` and they share a new NCCL group, else all train on the CPU in the
    default gloo group (``None``).  Call it on every rank, in the same order."""
    local = local_device(device)
    has_gpu = local.type == "cuda" and local.index < torch.cuda.device_count()
    flag = torch.tensor([int(has_gpu)])
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    backend = choose_backend(device.type, bool(flag.item()), dist.is_nccl_available())
    if backend == "nccl":
        torch.cuda.set_device(local)
        return local, dist.new_group(backend="nccl")
    return torch.device("cpu"), None


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


@contextlib.contextmanager
def torchrun_group(batch_size: int) -> Iterator[tuple[int, int]]:
    """Inside: the process group of torchrun's environment joined for mini-batch training
    (``batch_size`` > 0; :func:`init_from_env`), ``(rank, world size)`` given.  A group this
    joined is left at the end: a gloo group left to the interpreter's exit can abort a process
    on its way out ("terminate called without an active exception", seen in one rank of a
    two-process run), after its work is done but with a failed exit status."""
    joined = bool(batch_size) and not (dist.is_available() and dist.is_initialized())
    ranks = init_from_env() if batch_size else (0, 1)
    try:
        yield ranks
    finally:
        if joined and ranks[1] > 1:
            shutdown()
