"""Hand-written hard cases: each keyword family, generated valid and broken on purpose."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from hypothesis import find, given, settings

from littleghost_testing.strategies import SchemaError, from_schema, invalid_inputs
from littleghost_testing.strategies._build import MAX_ITEMS, MAX_LENGTH
from littleghost_testing.strategies._ecma import MAX_GROUP_DEPTH

from .support import check_invalid, check_valid

TREE = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["value"],
            "additionalProperties": False,
        }
    },
    "$ref": "#/$defs/node",
}

HARD = {
    "recursive $ref": TREE,
    "$anchor": {
        "$defs": {"name": {"$anchor": "name", "type": "string", "minLength": 2}},
        "type": "array",
        "items": {"$ref": "#name"},
    },
    "prefixItems": {
        "type": "array",
        "prefixItems": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0}],
        "items": False,
        "minItems": 1,
    },
    "if/then/else": {
        "type": "object",
        "properties": {"kind": {"enum": ["digits", "flag"]}},
        "required": ["kind"],
        "if": {"properties": {"kind": {"const": "digits"}}},
        "then": {"properties": {"x": {"type": "string", "pattern": "^\\d+$"}}, "required": ["x"]},
        "else": {"properties": {"y": {"type": "boolean"}}, "required": ["y"]},
    },
    "overlapping oneOf": {
        "oneOf": [{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": 10}]
    },
    "discriminated oneOf": {
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "kind": {"const": "card"},
                    "last4": {"type": "string", "pattern": "^\\d{4}$"},
                },
                "required": ["kind", "last4"],
            },
            {
                "type": "object",
                "properties": {
                    "kind": {"const": "iban"},
                    "iban": {"type": "string", "minLength": 15},
                },
                "required": ["kind", "iban"],
            },
        ]
    },
    "uniqueItems, small enum": {
        "type": "array",
        "items": {"enum": ["a", "b", "c"]},
        "uniqueItems": True,
        "minItems": 3,
    },
    "float multipleOf": {"type": "number", "multipleOf": 0.1, "minimum": 0.3, "maximum": 0.9},
    "exclusive bounds": {"type": "integer", "exclusiveMinimum": 5, "exclusiveMaximum": 7},
    "tiny float range": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1e-300},
    "contains counts": {
        "type": "array",
        "items": {"type": ["string", "integer"]},
        "contains": {"type": "string"},
        "minContains": 2,
        "maxContains": 3,
    },
    "patternProperties only": {
        "type": "object",
        "patternProperties": {"^x-[a-z]+$": {"type": "integer"}},
        "additionalProperties": False,
        "minProperties": 2,
    },
    "dependentRequired": {
        "type": "object",
        "properties": {
            "card": {"type": "string"},
            "cvv": {"type": "string", "pattern": "^\\d{3}$"},
        },
        "dependentRequired": {"card": ["cvv"]},
        "maxProperties": 2,
    },
    "allOf intersection": {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"a": {"maxLength": 2}, "b": {"type": "null"}}, "required": ["b"]},
        ]
    },
    "nullable (pydantic Optional)": {
        "type": "object",
        "properties": {"limit": {"anyOf": [{"type": "integer", "maximum": 50}, {"type": "null"}]}},
        "required": ["limit"],
    },
    "not": {"type": ["string", "integer", "null"], "not": {"type": "string"}},
    "unevaluatedProperties": {
        "type": "object",
        "allOf": [{"properties": {"a": {"type": "integer"}}}],
        "anyOf": [
            {"properties": {"b": {"type": "string"}}},
            {"properties": {"c": {"type": "null"}}},
        ],
        "unevaluatedProperties": False,
    },
    "unevaluatedItems": {
        "type": "array",
        "prefixItems": [{"type": "boolean"}],
        "unevaluatedItems": False,
    },
    "propertyNames": {
        "type": "object",
        "propertyNames": {"pattern": "^[a-z]{1,5}$"},
        "additionalProperties": {"type": "boolean"},
    },
    "formats": {
        "type": "object",
        "properties": {
            name: {"type": "string", "format": name}
            for name in (
                "date-time",
                "date",
                "time",
                "duration",
                "email",
                "hostname",
                "ipv4",
                "ipv6",
                "uri",
                "uri-reference",
                "uuid",
                "regex",
                "json-pointer",
            )
        },
        "required": ["date-time", "email", "uuid"],
    },
    "nested arrays of objects": {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "pattern": "^[A-Z][a-z]+$", "maxLength": 8},
                        "qty": {"type": "integer", "minimum": 1},
                        "unit": {"enum": ["kg", "g"]},
                    },
                    "required": ["name", "qty"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["items"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize("schema", HARD.values(), ids=HARD.keys())
def test_constructed_values_are_valid(schema: dict[str, Any]) -> None:
    check_valid(schema)


@pytest.mark.parametrize("schema", HARD.values(), ids=HARD.keys())
def test_invalid_inputs_break_exactly_their_keyword(schema: dict[str, Any]) -> None:
    check_invalid(schema)


def _depth(node: dict[str, Any]) -> int:
    return 1 + max((_depth(child) for child in node.get("children", ())), default=0)


def test_recursion_is_reached_and_bounded() -> None:
    deep = find(from_schema(TREE), lambda tree: _depth(tree) >= 3)
    assert _depth(deep) == 3

    @settings(max_examples=60, database=None, deadline=None)
    @given(from_schema(TREE))
    def bounded(tree: dict[str, Any]) -> None:
        assert _depth(tree) <= 8

    bounded()


def test_both_branches_of_if_then_else_are_generated() -> None:
    schema = HARD["if/then/else"]
    assert find(from_schema(schema), lambda v: v["kind"] == "digits")["x"] == "0"
    assert find(from_schema(schema), lambda v: v["kind"] == "flag") == {"kind": "flag", "y": False}


def test_exclusive_bounds_leave_one_integer() -> None:
    assert find(from_schema(HARD["exclusive bounds"]), lambda v: True) == 6


def test_integers_are_never_bools() -> None:
    @settings(max_examples=100, database=None, deadline=None)
    @given(from_schema({"type": "array", "items": {"type": ["integer", "number"]}, "minItems": 1}))
    def run(values: list[Any]) -> None:
        assert all(type(value) in (int, float) for value in values)

    run()


def test_shrinks_to_the_smallest_example() -> None:
    schema = HARD["nested arrays of objects"]
    small = find(from_schema(schema), lambda v: len(v["items"]) >= 2)
    assert small == {"items": [{"name": "Aa", "qty": 1}, {"name": "Aa", "qty": 1}]}


UNSATISFIABLE = {
    "minLength > maxLength": ({"type": "string", "minLength": 5, "maxLength": 2}, "minLength"),
    "disjoint allOf types": ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "types"),
    "no integer in range": ({"type": "integer", "minimum": 1.2, "maximum": 1.8}, "bounds"),
    "enum of the wrong type": ({"type": "string", "enum": [1, 2]}, "enum"),
    "required false": (
        {"type": "object", "properties": {"a": False}, "required": ["a"]},
        "required property 'a'",
    ),
    "endless recursion": (
        {
            "$defs": {
                "n": {
                    "type": "object",
                    "properties": {"next": {"$ref": "#/$defs/n"}},
                    "required": ["next"],
                }
            },
            "$ref": "#/$defs/n",
        },
        "recurses",
    ),
    "lookbehind before the start": ({"type": "string", "pattern": "^(?<=a)b"}, "pattern"),
    "false": (False, "false"),
    "too few unique values": (
        {"type": "array", "items": {"type": "boolean"}, "uniqueItems": True, "minItems": 3},
        "uniqueItems",
    ),
}


@pytest.mark.parametrize("case", UNSATISFIABLE.values(), ids=UNSATISFIABLE.keys())
def test_unsatisfiable_schemas_raise_a_clear_error(case: tuple[Any, str]) -> None:
    schema, named = case
    with pytest.raises(SchemaError, match=named):
        from_schema(schema)


def test_a_schema_accepting_everything_has_no_invalid_inputs() -> None:
    with pytest.raises(SchemaError, match="accepts every value"):
        invalid_inputs({"description": "anything"})


# -- what a strategy raises: values, or SchemaError when it is built (issue 19, point 5) --


def _chain(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    return schema


def _wide(width: int) -> dict[str, Any]:
    return {"type": "object", "properties": {f"p{i}": {"$ref": "#"} for i in range(width)}}


# Valid ECMA-262 that the validator runs, nested past what the generator translates.
DEEP_GROUPS = "(" * (MAX_GROUP_DEPTH + 1) + "a" + ")" * (MAX_GROUP_DEPTH + 1)

REFUSED_WHEN_BUILT = {
    "500-deep properties chain": (_chain(500), "nested deeper than 128 levels"),
    "a pattern too large to compile": (
        {"type": "string", "pattern": "^[a-z]{100000}$"},
        "MAX_PATTERN_REPETITIONS",
    ),
    "nested repetitions": ({"type": "string", "pattern": "^(a{1000}){1000}$"}, "MAX_PATTERN"),
    "minProperties 1e6": ({"type": "object", "minProperties": 1_000_000}, "MAX_PROPERTIES"),
    "minItems 1e9": ({"type": "array", "minItems": 1_000_000_000}, "MAX_ITEMS"),
    "minContains 1e9": (
        {"type": "array", "contains": {"type": "integer"}, "minContains": 10**9},
        "MAX_ITEMS",
    ),
    "minLength 1e9": ({"type": "string", "minLength": 1_000_000_000}, "MAX_LENGTH"),
    "no multiple of 0.7 in (0, 0.5]": (
        {"type": "number", "multipleOf": 0.7, "exclusiveMinimum": 0, "maximum": 0.5},
        "no multiple of 0.7",
    ),
    "a fractional multipleOf past the float range": (
        {"type": "number", "multipleOf": 0.5, "minimum": 10**400},
        "past the float range",
    ),
    "a closed object with too few lookaround keys": (
        {
            "type": "object",
            "patternProperties": {"^(?=a)a$": {}},
            "additionalProperties": False,
            "minProperties": 2,
        },
        "in 16 tries",
    ),
    "a 50-wide recursive $ref": (_wide(50), "MAX_EXPANSIONS"),
    "an optional property whose pattern cannot be generated": (
        {"type": "object", "properties": {"code": {"type": "string", "pattern": DEEP_GROUPS}}},
        "property 'code' cannot be generated",
    ),
}


@pytest.mark.parametrize("case", REFUSED_WHEN_BUILT.values(), ids=REFUSED_WHEN_BUILT.keys())
def test_a_schema_past_a_limit_is_a_schema_error_when_built(case: tuple[Any, str]) -> None:
    schema, named = case
    started = time.monotonic()
    with pytest.raises(SchemaError, match=re.escape(named)):
        from_schema(schema)
    assert time.monotonic() - started < 10  # refused up front, not after minutes of drawing


def test_invalid_inputs_of_a_deep_chain_are_refused_when_built() -> None:
    with pytest.raises(SchemaError, match="nested deeper than 128 levels"):
        invalid_inputs(_chain(500))


def test_an_optional_property_that_cannot_be_generated_is_named_for_invalid_inputs_too() -> None:
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": DEEP_GROUPS}}}
    with pytest.raises(SchemaError, match="property 'code' cannot be generated"):
        invalid_inputs(schema)


def test_ecma_2025_modifiers_generate() -> None:
    check_valid({"type": "string", "pattern": "^(?i:ab)-(?-i:c)$"}, examples=10)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "minimum": 10**400},
        {"type": "number", "maximum": -(10**400)},
        {"type": "number", "minimum": 10**400, "multipleOf": 3},
    ],
)
def test_bounds_past_the_float_range_generate(schema: dict[str, Any]) -> None:
    check_valid(schema, examples=10)
    check_invalid(schema, examples=10)


def test_the_size_limits_still_generate_at_the_limit() -> None:
    check_valid({"type": "string", "minLength": MAX_LENGTH, "maxLength": MAX_LENGTH}, 2)
    check_valid({"type": "array", "items": {"type": "integer"}, "minItems": MAX_ITEMS}, 2)
    check_valid(_wide(10), 2)  # about 1 200 subschemas expanded
