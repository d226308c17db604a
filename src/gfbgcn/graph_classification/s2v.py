"""Reader for the S2V / DGCNN / GIN graph text format, straight from its zip archive.

Format (whitespace separated integers, one record per line)::

    G                       # number of graphs
    n l                     # graph header: n nodes, label l            (G times)
    t m v_1 ... v_m         # node line: tag t, m neighbours, 0-based   (n times per graph)

The zips in ``<data_root>/tu_s2v/`` hold ``<NAME>/<NAME>.txt`` plus ``10fold_idx/`` and macOS
junk (``.DS_Store``, ``__MACOSX/``), which are ignored.  The conversion reproduces what PyG's
``TUDataset`` gives for the same data (checked on REDDIT-BINARY in the tests):

* ``edge_index``: node ``j`` of graph ``g`` with neighbour ``k`` gives the directed edge
  ``(j, k)`` (graph-local ids); self loops removed and edges coalesced (sorted, de-duplicated),
  as ``torch_geometric.io.read_tu_data`` does.
* ``y``: DGCNN wrote ``label - min(label)`` of the TU labels; PyG maps TU labels to their rank
  among the distinct labels (``unique(return_inverse=True)``).  Both are order-preserving, so
  ``y = rank of the S2V label among the distinct S2V labels`` equals TUDataset's ``y``.
* ``num_nodes``: ``n`` of the graph header.
* node tags are kept as ``node_tag`` ([n] long); they are all 0 in REDDIT-BINARY and COLLAB,
  which have no TU node labels, so they are not turned into features.

Parsing is vectorised with NumPy over the whole byte buffer (no Python loop over nodes or
edges; one loop over graph headers only).  The parsed tensors are cached with ``torch.save``
as a dict of plain tensors and read back with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor
from torch_geometric.data import Data
from torch_geometric.utils import coalesce, remove_self_loops

from gfbgcn.core.errors import UserError
from gfbgcn.core.io import atomic_write, sha256_file


class S2VFormatError(UserError):
    """An S2V file that is not one (bad structure, non-integer tokens): bad input data, named
    with its archive by :func:`read_s2v_zip`."""


CACHE_VERSION = 1


@dataclass(frozen=True)
class S2VGraphs:
    """All graphs of one S2V file in concatenated (PyG "collated") form.

    Attributes:
        edge_index: [2, E] graph-local node ids, per graph sorted by (row, col).
        edge_ptr: [G + 1] offsets of each graph's edges in ``edge_index``.
        num_nodes: [G] nodes per graph.
        node_tag: [sum(num_nodes)] node tags.
        y: [G] class index (rank of the S2V label).
        raw_label: [G] the S2V label as written in the file.
    """

    edge_index: Tensor
    edge_ptr: Tensor
    num_nodes: Tensor
    node_tag: Tensor
    y: Tensor
    raw_label: Tensor

    def __len__(self) -> int:
        return int(self.num_nodes.numel())

    def to_data_list(self) -> list[Data]:
        """One PyG ``Data(edge_index, y, num_nodes)`` per graph (``y`` of shape [1])."""
        node_ptr = torch.cat([torch.zeros(1, dtype=torch.long), self.num_nodes.cumsum(0)])
        out = []
        for g in range(len(self)):
            e0, e1 = int(self.edge_ptr[g]), int(self.edge_ptr[g + 1])
            n0, n1 = int(node_ptr[g]), int(node_ptr[g + 1])
            out.append(
                Data(
                    edge_index=self.edge_index[:, e0:e1].clone(),
                    y=self.y[g : g + 1].clone(),
                    num_nodes=n1 - n0,
                    node_tag=self.node_tag[n0:n1].clone(),
                )
            )
        return out

    def to_dict(self) -> dict[str, Tensor]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _member_name(zf: zipfile.ZipFile, name: str | None) -> str:
    """The ``<NAME>.txt`` graph file in the archive, skipping macOS junk and fold files."""
    candidates = [
        m
        for m in zf.namelist()
        if m.endswith(".txt")
        and "__MACOSX" not in m
        and not Path(m).name.startswith(".")
        and "fold_idx" not in m
    ]
    if name is not None:
        candidates = [m for m in candidates if Path(m).name == f"{name}.txt"]
    if len(candidates) != 1:
        raise S2VFormatError(f"expected one S2V graph file in the archive, found {candidates}")
    return candidates[0]


def _tokens_by_line(buf: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tokens, first token of each non-empty line, tokens per line)``, all integers."""
    b = np.frombuffer(buf, dtype=np.uint8)
    is_space = (b == ord(" ")) | (b == ord("\t")) | (b == ord("\r")) | (b == ord("\n"))
    # token starts: non-space byte preceded by a space (or at position 0)
    prev_space = np.empty_like(is_space)
    prev_space[0] = True
    prev_space[1:] = is_space[:-1]
    tok_start = np.flatnonzero(~is_space & prev_space)
    newline = np.flatnonzero(b == ord("\n"))
    tok_line = np.searchsorted(newline, tok_start)  # line index of every token
    tokens = np.fromstring(buf, dtype=np.int64, sep=" ")  # any whitespace separates
    if tokens.size != tok_start.size:
        raise S2VFormatError("token count mismatch: non-integer tokens in S2V file?")
    # keep only non-empty lines, renumbered 0..L-1
    _, line_first, line_len = np.unique(tok_line, return_index=True, return_counts=True)
    return tokens, line_first, line_len


def _graph_headers(tokens: np.ndarray, line_first: np.ndarray, line_len: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(header line, node count, label)`` of every graph (one Python step per graph)."""
    num_graphs = int(tokens[0])
    if line_len[0] != 1:
        raise S2VFormatError("first line must hold only the number of graphs")
    header_lines = np.empty(num_graphs, dtype=np.int64)
    num_nodes = np.empty(num_graphs, dtype=np.int64)
    labels = np.empty(num_graphs, dtype=np.int64)
    line = 1
    for g in range(num_graphs):
        if line >= line_len.size or line_len[line] != 2:
            raise S2VFormatError(f"graph {g}: expected a header line 'n l' at line {line}")
        header_lines[g] = line
        num_nodes[g] = tokens[line_first[line]]
        labels[g] = tokens[line_first[line] + 1]
        line += 1 + int(num_nodes[g])
    if line != line_len.size:
        raise S2VFormatError(f"{line_len.size - line} trailing lines after {num_graphs} graphs")
    return header_lines, num_nodes, labels


def _local_edges(src_node: np.ndarray, nbr: np.ndarray, num_nodes: np.ndarray
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """``(edge_index with node ids local to each graph, edge_ptr [G + 1])``: no self-loops,
    no duplicates, sorted by (row, col)."""
    num_graphs, total_nodes = len(num_nodes), int(num_nodes.sum())
    graph_of_node = np.repeat(np.arange(num_graphs), num_nodes)
    node_offset = np.concatenate([[0], np.cumsum(num_nodes)[:-1]])
    src_graph = graph_of_node[src_node]
    if nbr.size and (nbr.min() < 0 or (nbr >= num_nodes[src_graph]).any()):
        raise S2VFormatError("neighbour index out of range of its graph")
    ei = torch.stack([torch.from_numpy(src_node), torch.from_numpy(nbr + node_offset[src_graph])])
    ei, _ = remove_self_loops(ei)
    ei = coalesce(ei, num_nodes=total_nodes)  # sorted by (row, col), duplicates dropped
    edge_graph = torch.from_numpy(graph_of_node)[ei[0]]
    edge_ptr = torch.zeros(num_graphs + 1, dtype=torch.long)
    edge_ptr[1:] = torch.bincount(edge_graph, minlength=num_graphs).cumsum(0)
    local = ei - torch.from_numpy(node_offset)[edge_graph]
    return local.contiguous(), edge_ptr


def parse_s2v_bytes(buf: bytes) -> S2VGraphs:
    """Parse S2V text (bytes) into :class:`S2VGraphs`; :class:`S2VFormatError` on bad structure.

    Node lines with extra tokens (continuous node attributes, as in some S2V files) are
    rejected: the datasets read here have none.
    """
    tokens, line_first, line_len = _tokens_by_line(buf)
    header_lines, num_nodes, labels = _graph_headers(tokens, line_first, line_len)
    is_node_line = np.ones(line_len.size, dtype=bool)
    is_node_line[0] = False
    is_node_line[header_lines] = False
    first = line_first[np.flatnonzero(is_node_line)]  # one node line per node, in file order
    tags, degree = tokens[first], tokens[first + 1]
    if not np.array_equal(degree + 2, line_len[is_node_line]):
        raise S2VFormatError("node lines must be 't m v_1 .. v_m' (extra attributes unsupported)")
    # neighbour tokens: positions first + 2 .. first + 1 + m of every node line
    src_node = np.repeat(np.arange(int(num_nodes.sum())), degree)
    starts = np.repeat(first + 2 - np.concatenate([[0], np.cumsum(degree)[:-1]]), degree)
    nbr = tokens[starts + np.arange(int(degree.sum()))]
    edge_index, edge_ptr = _local_edges(src_node, nbr, num_nodes)
    _, y = np.unique(labels, return_inverse=True)
    return S2VGraphs(
        edge_index=edge_index,
        edge_ptr=edge_ptr,
        num_nodes=torch.from_numpy(num_nodes),
        node_tag=torch.from_numpy(tags.copy()),
        y=torch.from_numpy(y.reshape(-1).astype(np.int64)),
        raw_label=torch.from_numpy(labels),
    )


def read_s2v_zip(
    zip_path: str | Path, name: str | None = None, cache_dir: str | Path | None = None
) -> S2VGraphs:
    """Read ``<NAME>/<NAME>.txt`` from an S2V zip; cache the tensors under ``cache_dir``.

    The cache file name carries the zip's SHA-256 prefix, so a changed archive is re-parsed.
    """
    zip_path = Path(zip_path)
    cache_file = None
    if cache_dir is not None:
        digest = sha256_file(zip_path)[:16]
        cache_file = Path(cache_dir) / f"{zip_path.stem}-{digest}-v{CACHE_VERSION}.pt"
        if cache_file.is_file():
            obj = torch.load(cache_file, weights_only=True)
            return S2VGraphs(**obj)
    try:
        with zipfile.ZipFile(zip_path) as zf:
            buf = zf.read(_member_name(zf, name))
        graphs = parse_s2v_bytes(buf)
    except (S2VFormatError, zipfile.BadZipFile) as err:
        raise S2VFormatError(f"{zip_path}: {err}") from None
    if cache_file is not None:
        atomic_write(cache_file, lambda p: torch.save(graphs.to_dict(), p))
    return graphs
