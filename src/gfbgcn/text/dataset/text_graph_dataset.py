"""``TextGraphDataset``: a benchmark's Text GCN graph as a PyTorch Geometric dataset.

``TextGraphDataset(root, "R8")`` is the one graph of
:func:`gfbgcn.build_graph("r8") <gfbgcn.text.dataset.build_graph.build_graph>` as PyG's
``InMemoryDataset``: ``dataset[0]`` is its
:meth:`~gfbgcn.text.graph.text_graph.TextGraph.to_pyg` ``Data``, with ``label_names`` and
``vocab`` (word node ``num_docs + i`` is ``vocab[i]``), and ``transform``, ``pre_transform``,
``force_reload`` work as in every PyG dataset.

Where the files live:

* **raw files**: the benchmark's own files under the data root (``data_dir``, else
  ``$GFBGCN_DATA``, else the user cache dir), where ``gfbgcn train --dataset r8`` reads them;
  downloaded there, with the sha256 check of
  :func:`~gfbgcn.text.corpus.benchmarks.ensure_files`, where a canonical source exists.  They
  are not copied under ``root``.
* **processed file**: ``root/<name>/processed/graph-<digest>.pt``, one file per graph setting
  and validation split (the digest covers the settings, ``val_ratio``, ``random_state``, the
  graph format and the raw files' sha256, so another setting or a changed raw file is
  processed anew, never read stale).
* the graph itself also goes through gfbgcn's graph cache (``cache=False`` to skip it), which
  training shares.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torch_geometric.data import InMemoryDataset

from gfbgcn.core.errors import OptionError
from gfbgcn.core.io import sha256_file
from gfbgcn.core.paths import data_root
from gfbgcn.core.validate import SEED_MAX
from gfbgcn.text.corpus.benchmarks import (
    BENCHMARK_FILES,
    canonical_name,
    ensure_files,
    load_benchmark,
)
from gfbgcn.text.dataset.build_graph import build_graph, graph_settings
from gfbgcn.text.graph.cache import GRAPH_FORMAT_VERSION
from gfbgcn.text.params import DEFAULTS
from gfbgcn.text.tokenize.clean import tokenizer_key

#: Bumped when what :meth:`TextGraphDataset.process` writes changes: older files are redone.
DATASET_FORMAT = 1


class TextGraphDataset(InMemoryDataset):
    r"""The Text GCN graph of one of the paper's text benchmarks, as a PyG dataset of one graph.

    Args:
        root: the folder of the processed file (``root/<name>/processed/``).
        name: ``20ng``, ``r8``, ``r52`` or ``ohsumed`` (any case: ``"R8"``).
        val_ratio, random_state: the validation split of ``val_mask`` (``random_state`` a
            whole number here: it names the processed file), as ``gfbgcn train --seed``.
        data_dir: the data root of the raw files (default ``$GFBGCN_DATA``, else the user
            cache dir); missing files are downloaded there where a canonical source exists.
        transform, pre_transform, force_reload, log: as PyG's ``InMemoryDataset`` (no
            ``pre_filter``: the dataset is one graph).
        **params: the graph parameters of :class:`gfbgcn.TextGCNClassifier`
            (:data:`~gfbgcn.text.dataset.build_graph.GRAPH_PARAMETERS`; the defaults are the
            paper's), checked at once.

    ``dataset[0]``: ``edge_index`` ``[2, E]``, ``edge_weight`` ``[E]`` (the raw adjacency,
    both directions, no self-loops: PyG's GCN normalisation gives Text GCN's ``Â``), ``y``
    ``[N]`` (-1 for word nodes), ``train_mask``/``val_mask``/``test_mask`` ``[N]``,
    ``num_docs``, ``label_names`` ``[C]``, ``vocab`` ``[N - num_docs]``; no ``x`` (Text GCN's
    input is the identity: learn a row per node, ``torch.nn.Embedding(data.num_nodes, d)``).
    ``transform=T.ToSparseTensor(attr="edge_weight")`` gives ``data.adj_t`` instead of the edge
    arrays, which PyG's ``GCNConv`` runs on several times faster than on ``edge_index`` (see
    :meth:`~gfbgcn.text.graph.text_graph.TextGraph.to_pyg`)::

        import torch_geometric.transforms as T
        from gfbgcn import TextGraphDataset

        dataset = TextGraphDataset("data/pyg", "R8",
                                   transform=T.ToSparseTensor(attr="edge_weight"))
        data = dataset[0]                  # data.adj_t, data.y, data.train_mask, ...
        dataset.num_classes                # 8
    """

    name: str
    data_root: Path
    val_ratio: float
    random_state: int
    params: dict[str, Any]
    _digest: str | None

    def __init__(self, root: str | os.PathLike[str], name: str, *,
                 val_ratio: float = DEFAULTS["val_ratio"],
                 random_state: int = DEFAULTS["random_state"],
                 data_dir: str | os.PathLike[str] | None = None,
                 transform: Callable[..., Any] | None = None,
                 pre_transform: Callable[..., Any] | None = None,
                 force_reload: bool = False, log: bool = True, **params: Any) -> None:
        self.name = canonical_name(name)  # an unknown name: one line naming the benchmarks
        if (not isinstance(random_state, numbers.Integral) or isinstance(random_state, bool)
                or not 0 <= int(random_state) <= SEED_MAX):
            raise OptionError("{0} of a dataset must be a whole number in [0, {high}] (it "
                              "names the processed file), got {value!r}", "random_state",
                              high=SEED_MAX, value=random_state)
        graph_settings(True, val_ratio, random_state, **params)  # every parameter, checked now
        self.data_root = data_root(data_dir)
        self.val_ratio, self.random_state, self.params = val_ratio, int(random_state), params
        self._digest: str | None = None
        super().__init__(os.fspath(root), transform, pre_transform, log=log,
                         force_reload=force_reload)
        self.load(self.processed_paths[0])

    @property
    def raw_dir(self) -> str:
        """The data root: the benchmark's files are read where training reads them."""
        return str(self.data_root)

    @property
    def raw_file_names(self) -> list[str]:
        return [remote.relpath for remote in BENCHMARK_FILES[self.name]]

    @property
    def processed_dir(self) -> str:
        return str(Path(self.root) / self.name / "processed")

    @property
    def processed_file_names(self) -> list[str]:
        return [f"graph-{self.settings_digest()}.pt"]

    def settings_digest(self) -> str:
        """16 hex digits naming what the processed file holds: the graph settings, the split,
        the formats and the raw files' content (hashed once the raw files are there)."""
        if self._digest is not None:
            return self._digest
        params = {k: (tokenizer_key(v) or repr(v)) if callable(v) else v
                  for k, v in self.params.items()}
        raw = [sha256_file(p) for p in self.raw_paths if Path(p).is_file()]
        fields = {"dataset": DATASET_FORMAT, "graph": GRAPH_FORMAT_VERSION, "name": self.name,
                  "params": params, "val_ratio": self.val_ratio,
                  "random_state": self.random_state, "raw": raw}
        payload = json.dumps(fields, sort_keys=True, default=str)
        digest = hashlib.sha256(payload.encode()).hexdigest()[:16]
        if len(raw) == len(self.raw_paths):
            self._digest = digest
        return digest

    def download(self) -> None:
        """The benchmark's missing files, downloaded into the data root (sha256-checked); a
        one-line error naming them and where to get them where that is impossible."""
        ensure_files(self.name, self.data_root, download=True)

    def process(self) -> None:
        """Build the benchmark's graph (:func:`gfbgcn.build_graph`, through its cache) and
        store its ``to_pyg()`` data in :attr:`processed_dir` (PyG calls this once)."""
        corpus = load_benchmark(self.name, self.data_root, download=False)
        graph = build_graph(corpus, val_ratio=self.val_ratio, random_state=self.random_state,
                            **self.params)
        data = graph.to_pyg()
        data.label_names, data.vocab = list(graph.label_names), list(graph.vocab)
        if self.pre_transform is not None:
            data = self.pre_transform(data)
        self.save([data], self.processed_paths[0])

    @property
    def label_names(self) -> list[str]:
        """Class ``i`` is ``label_names[i]``."""
        return list(self.get(0).label_names)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.name})"

