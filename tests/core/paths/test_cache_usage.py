"""``cache_info``: entries and bytes per kind, the root, the cap, what is not gfbgcn's."""

from __future__ import annotations

from pathlib import Path

from gfbgcn.core import paths


def test_cache_info_per_kind_with_the_root_and_the_cap(root: Path) -> None:
    info = paths.cache_info()
    assert info.root == root and info.exists and info.cap == paths.DEFAULT_CACHE_MAX
    assert info.kinds["graphs"] == paths.KindUsage(2, 1300)
    assert info.kinds["embeddings"] == paths.KindUsage(2, 300)
    assert info.kinds["other"].entries == 2 and info.total.entries == 6
    assert info.unknown == ["mine"]
    assert info.to_dict()["kinds"]["graphs"] == {"entries": 2, "bytes": 1300}
    missing = paths.cache_info(root / "nowhere")
    assert not missing.exists and missing.total == paths.KindUsage(0, 0)
