"""Shared checks: generated values judged by littleghost's own validator."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings

from littleghost_testing.strategies._api import Compiled, compiled
from littleghost_testing.strategies._invalid import beside_unevaluated


def compile_schema(schema: Any) -> Compiled:
    return compiled(json.dumps(schema, sort_keys=True))


def check_valid(schema: Any, examples: int = 40) -> None:
    """Constructed values (before the safety filter) all pass the validator."""
    built = compile_schema(schema)

    @settings(max_examples=examples, database=None, deadline=None)
    @given(built.constructed)
    def run(value: Any) -> None:
        violations = built.validator.violations(value)
        assert not violations, (value, violations)

    run()


def check_invalid(schema: Any, examples: int = 40) -> None:
    """Every invalid input fails the validator exactly on its keyword and path.

    Besides what the annotation rule leaves unevaluated (see ``beside_unevaluated``).
    """
    built = compile_schema(schema)

    @settings(max_examples=examples, database=None, deadline=None)
    @given(built.invalid)
    def run(record: Any) -> None:
        violations = beside_unevaluated(built.validator.violations(record.value))
        found = [(v.keyword, v.path) for v in violations]
        assert found == [(record.keyword, record.path)], (record, found)

    run()


def large_schema(width: int, tag: str = "x") -> dict[str, Any]:
    """``width`` arrays of objects with ``width`` properties each; ``tag`` defeats the cache."""
    item = {
        "type": "object",
        "properties": {
            f"field_{i}": {"type": ["string", "integer", "null"][i % 3], "description": tag}
            for i in range(width)
        },
        "required": [f"field_{i}" for i in range(0, width, 4)],
    }
    return {
        "type": "object",
        "properties": {f"group_{i}": {"type": "array", "items": item} for i in range(width)},
        "required": ["group_0"],
    }
