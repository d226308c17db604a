"""The on-disk cache of built text graphs: one file per corpus and graph setting.

A graph is cached as ``<corpus>-<key>.npz`` under ``$GFBGCN_CACHE/graphs``
(:func:`gfbgcn.text.graph.text_graph.build_text_graph` looks it up before building):

* **The key** (:func:`graph_cache_key`) hashes the corpus content (texts, labels, splits), the
  graph settings, the tokenizer's identity (and a stop-word file's content) and
  :data:`GRAPH_FORMAT_VERSION`: any change rebuilds the graph.
* **The file** is an uncompressed zip of ``.npy`` members (what ``np.load`` reads), written by
  :func:`savez_converted`: ``edge_index`` is stored as int32 and converted a slice at a time,
  because ``np.savez(edge_index=a.astype(np.int32))`` would first make that copy whole (at 383k
  documents about 2 GB on top of the graph at the build's peak).  The data of both edge arrays
  starts at a multiple of :data:`ALIGN` bytes (a padding field in the zip header where needed,
  which readers skip), so that they can be mapped in place.
* **Mapping** (:func:`map_member`): a member's data is mapped copy-on-write
  (``np.memmap(mode="c")``): nothing is read until a page is touched, touched pages belong to the
  page cache (the kernel can drop and re-read them), and writes stay private to the process.  A
  training process can so keep the graph's ``[2, E]`` edge arrays at no resident cost once its
  ``Â`` exists (:meth:`~gfbgcn.text.graph.text_graph.TextGraph.release_edges`).  A member that
  is compressed, not a plain numeric array, empty, or misaligned for its item size (a file this
  writer did not write) is not mapped (``None``): the caller reads it the ordinary way.
* **The seal** (:func:`seal`): neither the file name nor the arrays say that the arrays inside
  are the ones built for that key -- a file copied from another corpus, or rewritten with valid
  arrays (every label set to 0), loads as well as the real one.  The seal is one more member,
  ``seal.npy``, holding the key and the SHA-256 of the key and of every other member's name,
  size and CRC-32.  Checking it is cheap (:func:`check_seal`): the CRC-32 of a member is read
  from the zip's directory, not recomputed, and the load that follows reads every member through
  ``zipfile``, which refuses bytes that do not match that CRC (the mapped edge arrays too,
  :func:`verify_members`).  So a member changed after sealing fails either the seal (directory
  CRC changed) or the read (bytes changed, CRC kept).  This guards against accidents and naive
  edits, not against someone who re-seals on purpose.
* **Content checks** (:func:`check_metadata`, :func:`check_cached_graph`): a file that passes
  the seal but holds what no build writes (a re-sealed edit, another gfbgcn, a bug) is caught
  before it can fail deep inside training or train on NaN: the metadata's fields and types,
  the arrays' shapes and dtypes against them, node ids inside the graph, and finite,
  non-negative edge weights (one pass over the edge arrays, in slices: a mapped file is read
  through, not copied).  The caller warns and rebuilds.

This module works on the graph's fields and never imports
:class:`~gfbgcn.text.graph.text_graph.TextGraph` (which imports it).
"""

from __future__ import annotations

import hashlib
import json
import struct
import zipfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from gfbgcn.core.io import atomic_write

# ---------------------------------------------------------------------------------------------
# The key

#: 2: both edge arrays aligned in the file, so both can be mapped
#: .  Another version is rebuilt, never read.
GRAPH_FORMAT_VERSION = 2


def corpus_digest(corpus: Any) -> str:
    """SHA-256 of a corpus's labels, splits and texts, in order."""
    h = hashlib.sha256()
    for text, label, flag in zip(corpus.texts, corpus.labels, corpus.is_train):
        h.update(label.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f1" if flag else b"\x1f0")
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\x1e")
    return h.hexdigest()


def graph_cache_key(corpus: Any, config: Any, tokenizer: str) -> str:
    """24 hex digits naming the graph of ``corpus`` built with ``config`` (a ``GraphConfig``)
    and the tokenizer identified by ``tokenizer``."""
    from gfbgcn.text.tokenize.stop_words import stop_words_digest

    fields = {
        "format": GRAPH_FORMAT_VERSION,
        "corpus": corpus_digest(corpus),
        "config": asdict(config),
        "tokenizer": tokenizer,
    }
    digest = stop_words_digest(config.stop_words)
    if digest is not None:  # a stop-word file: its content, not only its path, keys the graph
        fields["stop_words_file"] = digest
    payload = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


# ---------------------------------------------------------------------------------------------
# Writing: np.savez without a second copy of the largest array

#: elements converted per slice
SLICE = 1 << 22
#: alignment of every member's data in the file (numpy pads ``.npy`` headers to 64 bytes too)
ALIGN = 64
_PADDING_ID = 0xD935  # the zip extra-field id that Android's zipalign uses for padding
_ZIP64_EXTRA = 20  # what zipfile appends to a force_zip64 local header


def _aligned(fh: BinaryIO, name: str) -> zipfile.ZipInfo | str:
    """A member header for ``name`` whose data (after the 30-byte local header, the name, the
    extra fields and the 64-byte-padded ``.npy`` header) starts at a multiple of :data:`ALIGN`,
    given that the header is written at ``fh.tell()`` (just ``name`` where it does already)."""
    used = fh.tell() + 30 + len(name.encode()) + _ZIP64_EXTRA
    if used % ALIGN == 0:
        return name
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_STORED
    pad = -(used + 4) % ALIGN
    info.extra = struct.pack("<HH", _PADDING_ID, pad) + bytes(pad)
    return info


def _write_member(fh: BinaryIO, zf: zipfile.ZipFile, name: str, array: np.ndarray,
                  dtype: np.dtype) -> None:
    array = np.ascontiguousarray(array)
    header = np.lib.format.header_data_from_array_1_0(array)
    header["descr"] = np.lib.format.dtype_to_descr(np.dtype(dtype))
    with zf.open(_aligned(fh, name + ".npy"), "w", force_zip64=True) as out:
        np.lib.format.write_array_header_2_0(out, header)
        flat = array.reshape(-1)
        for start in range(0, len(flat), SLICE):
            out.write(flat[start : start + SLICE].astype(dtype).data)  # .data: its buffer


def savez_converted(
    fh: BinaryIO, converted: dict[str, tuple[np.ndarray, type]],
    aligned: tuple[str, ...] = (), **arrays: np.ndarray
) -> None:
    """Like ``np.savez(fh, **arrays)``, plus ``converted`` arrays written as ``(array, dtype)``
    a slice at a time (the values must fit the dtype: ``astype`` semantics).  The converted
    arrays and those named in ``aligned`` start at a multiple of :data:`ALIGN` bytes."""
    with zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, (array, dtype) in converted.items():
            _write_member(fh, zf, name, array, np.dtype(dtype))
        for name, array in arrays.items():
            member = _aligned(fh, name + ".npy") if name in aligned else name + ".npy"
            with zf.open(member, "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asanyarray(array), allow_pickle=False)


# ---------------------------------------------------------------------------------------------
# Mapping members from the file

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # the zip local file header (30 bytes)


def _data_offset(fh, info: zipfile.ZipInfo) -> int:
    """Where the member's bytes start: after its local header, name and extra fields."""
    fh.seek(info.header_offset)
    fields = _LOCAL_HEADER.unpack(fh.read(_LOCAL_HEADER.size))
    return info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]


def map_member(path: str | Path, name: str) -> np.ndarray | None:
    """Member ``name`` (without ``.npy``) of the ``.npz`` at ``path`` as a copy-on-write
    memory map, or ``None`` when it cannot be mapped in place (see the module docstring)."""
    try:
        with zipfile.ZipFile(path) as zf, open(path, "rb") as fh:
            info = zf.getinfo(name + ".npy")
            if info.compress_type != zipfile.ZIP_STORED:
                return None
            fh.seek(_data_offset(fh, info))
            version = np.lib.format.read_magic(fh)
            read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                    else np.lib.format.read_array_header_2_0)
            shape, fortran, dtype = read(fh)
            offset = fh.tell()
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    if dtype.hasobject or fortran or offset % dtype.itemsize or 0 in shape:
        return None
    return np.memmap(path, dtype=dtype, mode="c", offset=offset, shape=shape)


def map_edges(path: str | Path) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(edge_index, edge_weight)`` of a graph cache file, each mapped or ``None``."""
    return map_member(path, "edge_index"), map_member(path, "edge_weight")


def verify_members(path: str | Path, names: list[str], chunk: int = 1 << 24) -> None:
    """Read members ``names`` through, ``chunk`` bytes at a time, so that zipfile checks their
    CRC-32 (a damaged cache fails here, as ``np.load`` would, without holding the arrays);
    raises ``zipfile.BadZipFile`` on a mismatch."""
    with zipfile.ZipFile(path) as zf:
        for name in names:
            with zf.open(name + ".npy") as member:
                while member.read(chunk):
                    pass


# ---------------------------------------------------------------------------------------------
# The seal

SEAL = "seal.npy"


def seal_digest(zf: zipfile.ZipFile, key: str) -> str:
    """SHA-256 of ``key`` and of the name, size and CRC-32 of every member but the seal."""
    members = sorted((i.filename, i.file_size, i.CRC) for i in zf.infolist()
                     if i.filename != SEAL)
    payload = json.dumps({"key": key, "members": members}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def seal(path: str | Path, key: str) -> None:
    """Append the seal of ``key`` to the (just written, not yet published) cache file."""
    with zipfile.ZipFile(path, mode="a", compression=zipfile.ZIP_STORED,
                         allowZip64=True) as zf:
        record = json.dumps({"key": key, "sha256": seal_digest(zf, key)})
        with zf.open(SEAL, "w") as out:
            np.lib.format.write_array(out, np.array(record), allow_pickle=False)


def check_seal(path: str | Path, key: str) -> str | None:
    """``None`` when the cache file at ``path`` was sealed for ``key`` and its members are
    those sealed; otherwise the problem, in words (the caller warns and rebuilds).  A file
    that is not a readable zip raises what ``zipfile`` raises (a corrupt cache)."""
    with zipfile.ZipFile(path) as zf:
        if SEAL not in zf.namelist():
            return "it has no content digest (written by another version, or rewritten)"
        with zf.open(SEAL) as member:
            record = json.loads(str(np.lib.format.read_array(member, allow_pickle=False)))
        if not isinstance(record, dict):
            return "its content digest is unreadable"
        if record.get("key") != key:
            return (f"it was built for key {record.get('key')!r}, not {key!r} "
                    "(another corpus's or setting's graph)")
        if record.get("sha256") != seal_digest(zf, key):
            return "its arrays differ from those it was written with"
    return None


# ---------------------------------------------------------------------------------------------
# Consistency of a graph read back

#: Elements of an edge array checked at once (bounds the temporaries of the checks).
CHECK_SLICE = 1 << 24


def check_metadata(meta: Any) -> None:
    """The metadata of a graph file hold what a build writes: ``ValueError`` naming the first
    field that is missing or of another type (read before any object is built from them)."""
    if not isinstance(meta, dict):
        raise ValueError("its metadata are not an object")
    kinds: dict[str, tuple[type, ...]] = {
        "num_docs": (int,), "num_doc_word": (int,), "num_word_word": (int,),
        "num_windows": (int,), "label_names": (list,), "tokenizer": (str,),
        "corpus_name": (str,), "key": (str,), "build_seconds": (int, float), "notes": (list,),
        "config": (dict,)}
    for name, types in kinds.items():
        value = meta.get(name)
        if not isinstance(value, types) or isinstance(value, bool):
            raise ValueError(f"metadata field {name}: {value!r:.40} is not "
                             f"{' or '.join(t.__name__ for t in types)}")
    if not all(isinstance(n, str) for n in meta["notes"]):
        raise ValueError("metadata field notes: not a list of strings")
    config = meta["config"]
    expected: dict[str, tuple[type, ...]] = {
        "window": (int,), "min_freq": (int,), "stop_words": (str, type(None)),
        "cooccurrence": (str,)}
    if set(config) != set(expected):
        raise ValueError(f"metadata field config: fields {sorted(config)}, expected "
                         f"{sorted(expected)}")
    for name, types in expected.items():
        if not isinstance(config[name], types) or isinstance(config[name], bool):
            raise ValueError(f"metadata field config.{name}: {config[name]!r:.40} has the "
                             "wrong type")


def check_edges(edge_index: np.ndarray, edge_weight: np.ndarray, num_nodes: int) -> None:
    """Node ids of ``edge_index`` integers in ``[0, num_nodes)`` and ``edge_weight`` finite and
    non-negative (``ValueError`` naming the first problem), one slice at a time."""
    if edge_index.dtype.kind not in "iu":
        raise ValueError(f"edge_index has dtype {edge_index.dtype}, not an integer dtype")
    if edge_weight.dtype.kind != "f":
        raise ValueError(f"edge_weight has dtype {edge_weight.dtype}, not a floating dtype")
    for start in range(0, edge_weight.shape[0], CHECK_SLICE):
        ids = edge_index[:, start:start + CHECK_SLICE]
        if ids.size and (ids.min() < 0 or ids.max() >= num_nodes):
            raise ValueError(f"edge_index holds node ids outside [0, {num_nodes}) (node ids "
                             f"{int(ids.min())}..{int(ids.max())})")
        weights = edge_weight[start:start + CHECK_SLICE]
        if not np.isfinite(weights).all():
            raise ValueError("edge_weight holds non-finite values (NaN or infinity)")
        if weights.size and weights.min() < 0:
            raise ValueError("edge_weight holds negative weights")


def check_cached_graph(graph: Any) -> None:
    """Metadata and arrays of a cached graph (a ``TextGraph``; not imported: that module
    imports this one) agree (sizes, label range, edge counts) and its edges are a graph's
    (:func:`check_edges`): checks that keep a file a build did not write from failing deep
    inside training or training on NaN.  ``ValueError`` names the first problem."""
    d, v = graph.num_docs, graph.num_words
    if not isinstance(d, int) or isinstance(d, bool) or d < 0:
        raise ValueError(f"num_docs {d!r} is not a document count")
    if not (isinstance(graph.label_names, list)
            and all(isinstance(n, str) for n in graph.label_names)):
        raise ValueError("label_names is not a list of strings")
    for name, array, size, kinds in (("labels", graph.labels, d, "iu"),
                                     ("is_train", graph.is_train, d, "b"),
                                     ("doc_lengths", graph.doc_lengths, d, "iu"),
                                     ("idf", graph.idf, v, "f"),
                                     ("word_count", graph.word_count, v, "iu")):
        if array.shape != (size,) or array.dtype.kind not in kinds:
            raise ValueError(f"{name} has shape {array.shape} and dtype {array.dtype}, the "
                             f"metadata imply ({size},)")
    if d and (graph.labels.min() < 0 or graph.labels.max() >= len(graph.label_names)):
        raise ValueError(f"labels outside [0, {len(graph.label_names)}) (label_names has "
                         f"{len(graph.label_names)})")
    edges = graph.edge_index.shape
    counts = (graph.num_doc_word, graph.num_word_word)
    if not all(isinstance(c, int) and c >= 0 for c in counts):
        raise ValueError(f"edge counts {counts!r} are not counts")
    if len(edges) != 2 or edges[0] != 2 or graph.edge_weight.shape != (edges[1],):
        raise ValueError(f"edge arrays of shapes {edges} and {graph.edge_weight.shape}")
    if edges[1] != 2 * sum(counts):
        raise ValueError(f"{edges[1]} directed edges, the metadata count "
                         f"{2 * sum(counts)}")
    if graph.idf.size and not np.isfinite(graph.idf).all():
        raise ValueError("idf holds non-finite values")
    check_edges(graph.edge_index, graph.edge_weight, d + v)


# ---------------------------------------------------------------------------------------------
# A graph's file: written and read back

#: The fields of a cached graph stored as arrays and in its metadata, as they are.
CACHED_ARRAYS = ("idf", "word_count", "doc_lengths", "labels", "is_train")
CACHED_META = ("num_docs", "label_names", "num_doc_word", "num_word_word", "num_windows",
               "tokenizer", "corpus_name", "key", "build_seconds", "notes")


def write_graph(graph: Any, path: Path) -> None:
    """Write ``graph`` (a ``TextGraph``) to the cache file ``path``, sealed for ``graph.key``,
    atomically (a killed write leaves no file under ``path``)."""
    meta = {"format": GRAPH_FORMAT_VERSION, "config": asdict(graph.config),
            **{name: getattr(graph, name) for name in CACHED_META}}

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            savez_converted(  # edge_index as int32, converted a slice at a time
                fh,
                {"edge_index": (graph.edge_index, np.int32)},
                aligned=("edge_weight",),  # both edge arrays can be mapped
                edge_weight=graph.edge_weight,
                vocab=np.array(graph.vocab, dtype=str),
                idf=graph.idf,
                word_count=graph.word_count,
                doc_lengths=graph.doc_lengths,
                labels=graph.labels,
                is_train=graph.is_train,
                meta=np.array(json.dumps(meta)),
            )
        seal(tmp, graph.key)  # the key and the members' digest, checked on every load

    atomic_write(path, write)


def read_graph(path: str | Path, key: str) -> dict[str, Any]:
    """The fields of the graph cached at ``path`` for ``key`` (``config`` as a dict): its edge
    arrays mapped from the file where it allows (checked against their CRC first), else read
    (``edge_index`` then as int64).  ``ValueError`` where its format or key disagree."""
    path = Path(path)
    edge_index, edge_weight = map_edges(path)
    mapped = [name for name, a in (("edge_index", edge_index), ("edge_weight", edge_weight))
              if a is not None]
    verify_members(path, mapped)
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        if not isinstance(meta, dict) or meta.get("format") != GRAPH_FORMAT_VERSION:
            raise ValueError(f"graph format {meta.get('format')!r}, this gfbgcn reads format "
                             f"{GRAPH_FORMAT_VERSION}")
        if meta.get("key") != key:
            raise ValueError(f"its metadata name key {meta.get('key')!r}, not {key!r}")
        check_metadata(meta)
        return {
            "edge_index": z["edge_index"].astype(np.int64) if edge_index is None else edge_index,
            "edge_weight": z["edge_weight"] if edge_weight is None else edge_weight,
            "vocab": [str(w) for w in z["vocab"]], "config": meta["config"],
            **{name: z[name] for name in CACHED_ARRAYS},
            **{name: meta[name] for name in CACHED_META},
        }
