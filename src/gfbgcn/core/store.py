"""A directory of finished runs, one JSON file each, so that grids resume after interruption."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from gfbgcn.core.io import atomic_write_json

_SAFE = re.compile(r"[^A-Za-z0-9_.=-]+")


class RunStore:
    """Runs keyed by a mapping such as ``{"dataset": "r8", "model": "gcn", "seed": 0}``.

    Each finished run is one JSON file ``<root>/<k1=v1>__<k2=v2>...json`` written atomically;
    an interrupted grid re-run skips the keys already present.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, key: Mapping[str, Any]) -> Path:
        name = "__".join(f"{k}={_SAFE.sub('-', str(v))}" for k, v in key.items())
        return self.root / f"{name}.json"

    def done(self, key: Mapping[str, Any]) -> bool:
        return self.path(key).is_file()

    def save(self, key: Mapping[str, Any], record: Mapping[str, Any]) -> Path:
        return atomic_write_json(self.path(key), {"key": dict(key), **record})

    def load(self, key: Mapping[str, Any]) -> dict[str, Any]:
        return json.loads(self.path(key).read_text(encoding="utf-8"))

    def records(self) -> Iterator[dict[str, Any]]:
        if not self.root.is_dir():
            return
        for path in sorted(self.root.glob("*=*.json")):  # records, not logs beside them
            yield json.loads(path.read_text(encoding="utf-8"))
