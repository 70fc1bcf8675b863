"""The public entry points: tools, caching, build time, health checks."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given, settings

import littleghost as lg
from littleghost_testing.strategies import InvalidInput, from_schema, invalid_inputs, tool_inputs

from .support import large_schema


class OrderLookupTool(lg.Tool):
    description = "Look up an order."
    input_schema = {
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "pattern": "^ORD-\\d{4}$"},
            "include": {
                "type": "array",
                "items": {"enum": ["lines", "payments"]},
                "uniqueItems": True,
            },
        },
        "required": ["order_id"],
        "additionalProperties": False,
    }

    def call(self, input: dict[str, Any]) -> dict[str, Any]:
        return {"order_id": input["order_id"], "status": "shipped"}


async def _execute(value: Any) -> lg.ExecutionResult:
    return await OrderLookupTool().execute(value)


@settings(max_examples=30, database=None, deadline=None)
@given(tool_inputs(OrderLookupTool))
def test_tool_inputs_are_accepted_by_the_tool(value: dict[str, Any]) -> None:
    result = anyio.run(_execute, value)
    assert result.is_success, result.content


@settings(max_examples=30, database=None, deadline=None)
@given(invalid_inputs(OrderLookupTool.input_schema))
def test_invalid_inputs_are_rejected_by_the_tool_at_their_path(record: InvalidInput) -> None:
    result = anyio.run(_execute, record.value)
    assert result.is_error
    assert result.content.startswith("Invalid tool input: ")
    assert record.path in result.content


def test_tool_inputs_needs_a_schema() -> None:
    with pytest.raises(TypeError):
        tool_inputs(int)
    with pytest.raises(TypeError, match="neither a JSON Schema nor a class with an input_schema"):
        invalid_inputs(int)


def test_both_entry_points_take_a_tool_class_or_a_schema() -> None:
    schema = OrderLookupTool.input_schema
    assert tool_inputs(schema) is tool_inputs(OrderLookupTool) is from_schema(schema)
    assert invalid_inputs(OrderLookupTool) is invalid_inputs(schema)


def test_strategies_are_cached_per_schema() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert from_schema(schema) is from_schema(dict(schema))
    assert invalid_inputs(schema) is invalid_inputs(dict(schema))
    assert from_schema(OrderLookupTool.input_schema) is tool_inputs(OrderLookupTool)


@settings(max_examples=20, database=None, deadline=None)
@given(from_schema(large_schema(12)))
def test_large_schemas_pass_the_health_checks(value: dict[str, Any]) -> None:
    assert "group_0" in value
