"""Issue 20: no refusal, timeout or exception on a satisfiable schema (JSON-Schema-Test-Suite)."""

from __future__ import annotations

from typing import Any

from littleghost_testing.strategies._build import MAX_EXPANSIONS

from .test_issue_20 import broken


def _fanned_out(width: int) -> dict[str, Any]:
    """``width`` properties that each refer to the whole schema, beside one integer: about
    ``width``³ subschemas once expanded, and small values (one key per object)."""
    return {
        "properties": {"count": {"type": "integer"}}
        | {f"n{i}": {"$ref": "#"} for i in range(width)},
        "maxProperties": 1,
    }


def test_each_site_has_its_own_expansion_budget() -> None:
    # Past half of MAX_EXPANSIONS: the sites' containers, counted together with the
    # valid strategy, went past the budget and nothing nested was broken.
    schema = _fanned_out(24)
    assert MAX_EXPANSIONS / 2 < 24**3 < MAX_EXPANSIONS
    assert ("type", "$.count") in {(record.keyword, record.path) for record in broken(schema)}
