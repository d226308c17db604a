"""The fidelity rows as data: ``hypotheses.json`` loads into well-formed rows whose titles hold
no measured number, and a malformed row is refused with its place named."""

from __future__ import annotations

import json
import re

import pytest

from gfbgcn.reproduce.entity.experiment import base_config
from gfbgcn.reproduce.fidelity.experiment import ROWS, load_rows, row_by_id
from gfbgcn.reproduce.fidelity.options import options_of
from gfbgcn.reproduce.fidelity.text_run import text_config
from gfbgcn.reproduce.paper import paper_table


def test_rows_are_well_formed() -> None:
    ids = [r.id for r in ROWS]
    assert len(ids) == len(set(ids)) and row_by_id(ids[0]) is ROWS[0]
    for row in ROWS:
        names = [c.name for c in row.configs]
        assert len(names) == len(set(names)), row.id
        assert any(not c.reference for c in row.configs), row.id
        for c in row.configs:
            assert not c.versus or c.versus in names, (row.id, c.name)
            options_of(c.config, row.task)
            if row.task == "text" and not c.existing:
                text_config(c.config, 0)  # a valid TrainConfig
            if row.task == "entity":  # a valid EntityConfig
                base_config(row.dataset, c.config["model"], **c.config.get("entity", {}))
            assert c.seeds >= 1
        if row.paper_gain_over:
            assert row.paper_gain_over in paper_table("text")["accuracy"], row.id
    with pytest.raises(KeyError, match="unknown fidelity row"):
        row_by_id("no-such-row")


def test_titles_hold_no_measured_number() -> None:
    """Results come from the records; a decimal, a count "of N" or a signed gain in a title is
    a result written by hand."""
    for row in ROWS:
        assert not re.search(r"\d\.\d|[+-]\d|\d+ of \d+", row.title), row.title


def _raw(**config: object) -> list[dict]:
    return [{"id": "r", "task": "text", "dataset": "r8", "model": "gcn", "title": "t",
             "configs": [{"name": "a", "hypothesis": "h", "config": {"model": "gcn",
                                                                     **config}}]}]


def test_malformed_rows_are_refused_naming_their_place() -> None:
    assert load_rows(json.dumps(_raw()))[0].configs[0].name == "a"
    with pytest.raises(ValueError, match=r"row 'r', configuration 'a': config: unknown keys"):
        load_rows(json.dumps(_raw(trace_test=True)))
    with pytest.raises(ValueError, match=r"configuration 'a': options \['readout'\]"):
        load_rows(json.dumps(_raw(options={"readout": "sum"})))
    with pytest.raises(ValueError, match="clip_norm must be a positive"):
        load_rows(json.dumps(_raw(options={"clip_norm": 0})))
    with pytest.raises(ValueError, match="need config\\['existing'\\]"):
        load_rows(json.dumps(_raw(existing={"dataset": "r8"})))
    raw = _raw()
    raw[0]["configs"][0]["versus"] = "b"
    with pytest.raises(ValueError, match="versus 'b'"):
        load_rows(json.dumps(raw))
    raw = _raw()
    raw[0]["task"] = "graphs"
    with pytest.raises(ValueError, match=r"config\['hidden'\] must be a list"):
        load_rows(json.dumps(raw))
    with pytest.raises(ValueError, match="unique"):
        load_rows(json.dumps(_raw() + _raw()))
    raw = _raw()
    raw[0]["colour"] = "red"
    with pytest.raises(ValueError, match=r"row 'r': unknown keys \['colour'\]"):
        load_rows(json.dumps(raw))
