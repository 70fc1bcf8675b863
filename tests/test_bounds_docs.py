"""The bounds tables of docs/mcp.md and docs/tools.md match the code's one declaration.

Each limit is declared once (a class attribute, or a module constant where no
attribute raises it); the docs' tables are checked against it here, row by row,
so a changed default cannot leave the guide behind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import littleghost as lg
from littleghost import _validation
from littleghost.mcp import Toolset
from littleghost.mcp._bounds import Bounds

DOCS = Path(__file__).parent.parent / "docs"
_UNITS = {"": 1, "KiB": 1024, "MiB": 1024 * 1024, "s": 1}
_QUANTITY = re.compile(r"(\d[\d ]*(?:\.\d+)?)\s*(KiB|MiB|s)?\b")


def table_rows(document: str, heading: str) -> list[list[str]]:
    """The body rows of the first table under ``heading``, each a list of cells."""
    text = (DOCS / document).read_text()
    section = text.split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def quantity(cell: str) -> float:
    """The first number in a table cell, in bytes or seconds: ``16 KiB`` is 16384."""
    found = _QUANTITY.search(cell)
    assert found is not None, f"no quantity in {cell!r}"
    return float(found.group(1).replace(" ", "")) * _UNITS[found.group(2) or ""]


def test_the_mcp_bounds_table_lists_every_toolset_limit_with_its_default() -> None:
    rows = table_rows("mcp.md", "## Bounds on untrusted servers")
    documented = {row[0].strip("`"): quantity(row[1]) for row in rows}
    declared = {name: getattr(Toolset, name) for name in Bounds.__slots__}
    declared |= {"discovery_timeout": Toolset.discovery_timeout}
    declared |= {"call_timeout": Toolset.call_timeout}
    declared |= {"MAX_PATTERN_REPETITIONS": _validation.MAX_PATTERN_REPETITIONS}
    assert documented == declared


def test_bounds_read_every_limit_from_the_toolset_and_declare_no_default() -> None:
    limits = {name for name in vars(Toolset) if name.startswith("max_")}
    assert set(Bounds.__slots__) == limits
    bounds = Bounds.of(Toolset)
    assert all(getattr(bounds, name) == getattr(Toolset, name) for name in limits)


@pytest.mark.parametrize(
    ("bound", "declared"),
    [
        ("`Tool.max_input_depth`", lg.Tool.max_input_depth),
        ("`Tool.regex_timeout`", lg.Tool.regex_timeout),
        ("`ToolRegistry.close_timeout`, `Run.close_timeout`", lg.ToolRegistry.close_timeout),
        ("shared containers (programmatic input)", _validation.MAX_EXPANDED_VALUES),
        ("violations listed in one result", _validation.MAX_LISTED_VIOLATIONS),
        ("input size for a full violation list", _validation.FULL_REPORT_VALUES),
        ("lookaround in `patternProperties`", _validation.PATTERN_PROPERTIES_STEPS),
        ("schema nesting", _validation.MAX_SCHEMA_DEPTH),
        ("pattern size", _validation.MAX_PATTERN_REPETITIONS),
    ],
)
def test_the_tools_bounds_table_states_each_declared_default(bound: str, declared: float) -> None:
    rows = {row[0]: row[1] for row in table_rows("tools.md", "## Bounds")}
    assert quantity(rows[bound]) == declared


def test_the_registry_and_the_run_share_one_close_timeout() -> None:
    assert lg.ToolRegistry.close_timeout == lg.Run.close_timeout


def test_the_tools_bounds_table_quotes_the_excerpt_length() -> None:
    rows = {row[0]: row[1] for row in table_rows("tools.md", "## Bounds")}
    assert (
        f"at most {_validation.EXCERPT_CHARS} characters" in rows["violations listed in one result"]
    )
