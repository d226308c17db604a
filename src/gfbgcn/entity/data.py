"""RDF entity-classification benchmarks (AIFB, MUTAG, BGS, AM) through PyG's ``Entities``.

The raw files are looked up under ``<data_root>/entities/<name>/raw`` (see
:func:`gfbgcn.core.paths.data_root`).  PyG writes ``processed/`` next to ``raw/``, and the data
root is treated as read-only, so :func:`load_entities` points ``Entities`` at a writable copy under
``cache_dir("entities")`` whose ``raw/`` files are symlinks to (or copies of) the data root's.

Where a data set is missing (BGS and AM are not in the offline data), PyG would download it from
``https://data.dgl.ai/dataset/<name>.tgz``; that is attempted only after a short network probe,
and every failure becomes a :class:`~gfbgcn.core.errors.DatasetUnavailableError` naming the
files expected, the directories searched and the URL.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor
from torch_geometric.datasets import Entities
from torch_geometric.utils import k_hop_subgraph

from gfbgcn.core.errors import DatasetUnavailableError, UserError
from gfbgcn.core.extras import require
from gfbgcn.core.paths import cache_dir, data_root

#: Every data set PyG's ``Entities`` knows (its own list); names are case-insensitive.
DATASETS: tuple[str, ...] = ("aifb", "mutag", "bgs", "am")
#: Hidden size per data set (supplement: 16, 10 for AM).
HIDDEN: dict[str, int] = {"aifb": 16, "mutag": 16, "bgs": 16, "am": 10}


def canonical_name(name: str) -> str:
    """``name`` lower-cased, checked against the data sets PyG's ``Entities`` supports."""
    key = name.lower()
    if key not in DATASETS:
        raise UserError(f"unknown entity data set {name!r}; PyG's Entities knows "
                        f"{', '.join(DATASETS)}")
    return key


def raw_file_names(name: str) -> list[str]:
    """The raw files PyG's ``Entities`` reads for ``name`` (lower case)."""
    return [f"{name}_stripped.nt.gz", "completeDataset.tsv", "trainingSet.tsv", "testSet.tsv"]


def download_url(name: str) -> str:
    """Where PyG's ``Entities.download`` fetches ``name`` from."""
    return Entities.url.format(name)


@dataclass
class EntityData:
    """One benchmark as tensors.

    Attributes:
        name: ``"aifb" | "mutag" | "bgs" | "am"``.
        num_nodes: ``N`` (after the 2-hop restriction for AM).
        num_relations: ``|R|`` (both directions of every RDF predicate).
        num_classes: ``C``.
        edge_index: ``[2, E]`` long.
        edge_type: ``[E]`` long, values in ``[0, |R|)``.
        train_idx, train_y: ``[n_train]`` labelled training nodes and their classes.
        test_idx, test_y: ``[n_test]`` labelled test nodes and their classes.
        info: provenance (root used, original size, subgraph restriction).
    """

    name: str
    num_nodes: int
    num_relations: int
    num_classes: int
    edge_index: Tensor
    edge_type: Tensor
    train_idx: Tensor
    train_y: Tensor
    test_idx: Tensor
    test_y: Tensor
    info: dict[str, Any] = field(default_factory=dict)


def _source_raw_dir(name: str, data_dir: str | os.PathLike[str] | None) -> Path:
    return data_root(data_dir) / "entities" / name / "raw"


def _link_or_copy(src: Path, dst: Path) -> None:
    if dst.is_symlink() and not dst.exists():
        dst.unlink()  # stale link (data root moved)
    if dst.exists():
        return
    try:
        dst.symlink_to(src.resolve())
    except OSError:
        shutil.copy2(src, dst)


def network_reachable(url: str, timeout: float = 5.0) -> tuple[bool, str]:
    """Whether a TCP connection to ``url``'s host can be opened within ``timeout`` seconds.

    Name resolution has no timeout of its own, so the probe runs in a daemon thread.
    """
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    result: list[tuple[bool, str]] = []

    def probe() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                result.append((True, "ok"))
        except OSError as err:
            result.append((False, f"cannot reach {host}:{port} ({err})"))

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    if not result:
        return False, f"no answer from {host}:{port} within {timeout:g} s"
    return result[0]


def _unavailable(name: str, searched: list[Path], reason: str) -> DatasetUnavailableError:
    files = ", ".join(raw_file_names(name))
    url = download_url(name)

    def message(where: list[str], reason: str) -> str:
        return (f"{name.upper()} data unavailable: expected raw files [{files}] in "
                f"{' and '.join(where)}; PyG downloads them from {url}, but {reason}. Extract "
                f"{url.rpartition('/')[2]} into {where[0]} (or run once on a machine with "
                "network access).")

    relative = [f"<data root>/entities/{name}/raw", f"<cache>/entities/{name}/raw"]
    short_reason = reason.split(": ", 1)[0]  # the network error text may name hosts/paths
    return DatasetUnavailableError(message([str(p) for p in searched], reason),
                                   message(relative, short_reason))


def entities_root(
    name: str,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    allow_download: bool = True,
    probe_timeout: float = 5.0,
) -> Path:
    """A writable ``Entities`` root for ``name`` whose ``raw/`` holds the data root's files.

    Raises:
        DatasetUnavailableError: the files are neither in the data root nor in the cache, and
            downloading is not allowed or the download host does not answer.
    """
    name = canonical_name(name)
    root = cache_dir("entities")
    raw = root / name / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    source = _source_raw_dir(name, data_dir)
    for fname in raw_file_names(name):
        if (source / fname).is_file():
            _link_or_copy(source / fname, raw / fname)
    missing = [f for f in raw_file_names(name) if not (raw / f).is_file()]
    if missing:  # PyG re-downloads whenever a raw file is missing, processed/ or not
        searched = [source, raw]
        if not allow_download:
            raise _unavailable(name, searched, "downloading is disabled")
        ok, why = network_reachable(download_url(name), probe_timeout)
        if not ok:
            raise _unavailable(name, searched, f"the network is unavailable: {why}")
    return root


def load_entities(
    name: str,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    allow_download: bool = True,
    probe_timeout: float = 5.0,
    khop: int | None = None,
) -> EntityData:
    """Load one benchmark with PyG's ``Entities`` (processing is cached under the cache dir).

    Args:
        name: ``"aifb" | "mutag" | "bgs" | "am"`` (case-insensitive).
        data_dir: the data root (``--data-dir``); ``None`` uses ``$GFBGCN_DATA`` / the default.
        allow_download: let PyG download a missing data set (after a network probe).
        probe_timeout: seconds the network probe may take.
        khop: restrict the graph to the ``khop``-hop neighbourhood of the labelled nodes;
            ``None`` means 2 for AM (as in PyG's R-GCN example) and no restriction otherwise.

    Raises:
        DatasetUnavailableError: see :func:`entities_root`; also wraps a failed download.
        MissingExtraError: rdflib (the ``entity`` extra), which PyG's ``Entities`` reads the
            RDF files with, is not installed.
    """
    name = canonical_name(name)
    require("rdflib", "entity", "gfbgcn reproduce entity")  # before any download or work
    root = entities_root(
        name, data_dir, allow_download=allow_download, probe_timeout=probe_timeout
    )
    raw = root / name / "raw"
    downloading = any(not (raw / f).is_file() for f in raw_file_names(name))
    try:
        dataset = Entities(str(root), name)
    except Exception as err:
        if not downloading:
            raise  # the files were there: a processing error is a bug, not missing data
        raise _unavailable(
            name, [_source_raw_dir(name, data_dir), raw], f"the download failed: {err!r}"
        ) from err
    data = dataset[0]
    out = EntityData(
        name=name,
        num_nodes=int(data.num_nodes),
        num_relations=int(dataset.num_relations),
        num_classes=int(dataset.num_classes),
        edge_index=data.edge_index,
        edge_type=data.edge_type,
        train_idx=data.train_idx,
        train_y=data.train_y,
        test_idx=data.test_idx,
        test_y=data.test_y,
        info={"original_num_nodes": int(data.num_nodes),
              "original_num_edges": int(data.edge_index.size(1))},
    )
    hops = (2 if name == "am" else None) if khop is None else khop
    if hops:
        out = restrict_to_khop(out, hops)
    return out


def restrict_to_khop(data: EntityData, hops: int) -> EntityData:
    """Keep the ``hops``-hop in-neighbourhood of the labelled nodes, relabelled to ``0..N'-1``.

    A ``hops``-layer model's outputs on labelled nodes only read this subgraph.  (With
    featureless inputs the first layer's weight has one row per node, so ``N'`` also shrinks the
    parameter count and changes Glorot's initial scale.)
    """
    labelled = torch.cat([data.train_idx, data.test_idx])
    subset, edge_index, mapping, edge_mask = k_hop_subgraph(
        labelled, hops, data.edge_index, relabel_nodes=True, num_nodes=data.num_nodes
    )
    n_train = data.train_idx.numel()
    info = dict(data.info, khop=hops, num_nodes=int(subset.numel()),
                num_edges=int(edge_index.size(1)))
    return EntityData(
        name=data.name,
        num_nodes=int(subset.numel()),
        num_relations=data.num_relations,
        num_classes=data.num_classes,
        edge_index=edge_index,
        edge_type=data.edge_type[edge_mask],
        train_idx=mapping[:n_train],
        train_y=data.train_y,
        test_idx=mapping[n_train:],
        test_y=data.test_y,
        info=info,
    )


def stratified_holdout(y: Tensor, fraction: float, seed: int) -> tuple[Tensor, Tensor]:
    """Split positions ``0..len(y)-1`` into (fit, holdout) with ``fraction`` of each class held out.

    Every class keeps at least one fitting example; ``round(fraction * n_c)`` go to the holdout.
    Returns two sorted long tensors of positions into ``y`` (``[n_fit]``, ``[n_holdout]``).
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fraction must be in (0, 1), got {fraction}")
    gen = torch.Generator().manual_seed(seed)
    fit, hold = [], []
    for cls in torch.unique(y):
        pos = (y == cls).nonzero(as_tuple=True)[0]
        pos = pos[torch.randperm(pos.numel(), generator=gen)]
        n_hold = min(int(round(fraction * pos.numel())), pos.numel() - 1)
        hold.append(pos[:n_hold])
        fit.append(pos[n_hold:])
    return torch.cat(fit).sort().values, torch.cat(hold).sort().values
