"""Issue 20: no refusal, timeout or exception on a satisfiable schema (JSON-Schema-Test-Suite)."""

from __future__ import annotations

from typing import Any

import pytest

from littleghost_testing.strategies import _build
from littleghost_testing.strategies._api import compiled

from .test_issue_20 import broken


def _fanned_out(width: int) -> dict[str, Any]:
    """``width`` properties that each refer to the whole schema, beside one integer: about
    ``width``³ subschemas once expanded, and small values (one key per object)."""
    return {
        "properties": {"count": {"type": "integer"}}
        | {f"n{i}": {"$ref": "#"} for i in range(width)},
        "maxProperties": 1,
    }


def test_each_site_has_its_own_expansion_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # Past half of MAX_EXPANSIONS: the sites' containers, counted together with the
    # valid strategy, went past the budget and nothing nested was broken. A lower
    # budget keeps the schema small: the cost grows with width³.
    monkeypatch.setattr(_build, "MAX_EXPANSIONS", 2_000)
    compiled.cache_clear()
    schema = _fanned_out(11)
    assert _build.MAX_EXPANSIONS / 2 < 11**3 < _build.MAX_EXPANSIONS
    assert ("type", "$.count") in {(record.keyword, record.path) for record in broken(schema)}
