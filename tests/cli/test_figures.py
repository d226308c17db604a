"""``gfbgcn figures pooling``: the PNG is written into ``--out`` and nothing else is left there."""

from __future__ import annotations

import argparse
from pathlib import Path

from gfbgcn.cli import figures as verb
from gfbgcn.cli import main


def test_cli_renders_png(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    verb.figures_pooling_arguments(parser)
    assert parser.parse_args([]).out is None  # the checkout's docs/figures, or required
    out = tmp_path / "sub"
    args = parser.parse_args(["--out", str(out)])
    assert verb.figures_pooling(args) == 0
    data = (out / "pooling.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # four shaded surfaces, not an empty canvas
    assert [p.name for p in out.iterdir()] == ["pooling.png"]  # no temporary left behind


def test_gfbgcn_figures_pooling_writes_into_the_directory(tmp_path: Path, capsys) -> None:
    assert main(["figures", "pooling", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "pooling.png").read_bytes()[:4] == b"\x89PNG"
    assert f"wrote {tmp_path / 'pooling.png'}" in capsys.readouterr().out
