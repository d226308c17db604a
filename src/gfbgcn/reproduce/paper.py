"""The paper's reported numbers, kept in ``gfbgcn/reproduce/paper_tables/<table>.json`` apart
from ours.

Reports print them beside our measurements; nothing computes with them as if they were ours.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

TABLES: tuple[str, ...] = ("text", "entity", "graphs")


@cache
def paper_table(table: str) -> dict[str, Any]:
    """The paper's numbers for ``table`` (one of :data:`TABLES`)."""
    if table not in TABLES:
        raise ValueError(f"unknown paper table {table!r}; choose one of {', '.join(TABLES)}")
    tables = resources.files("gfbgcn.reproduce.paper_tables")
    text = tables.joinpath(f"{table}.json").read_text(encoding="utf-8")
    return json.loads(text)
