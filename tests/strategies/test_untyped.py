"""Schemas without ``type`` favour the types their keywords constrain, and still draw every type."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import find

from littleghost_testing.strategies import from_schema
from littleghost_testing.strategies._coverage import measure
from littleghost_testing.strategies._in_turn import draw_outside
from littleghost_testing.strategies._merge import _PLAIN
from littleghost_testing.strategies._untyped import CONSTRAINING, constrained

from .support import compile_schema

CASES = Path(__file__).resolve().parent.parent / "data" / "json_schema_test_suite" / "cases.json"


def _suite_schema(file: str, description: str) -> Any:
    groups = json.loads(CASES.read_text())["files"][file]
    return next(group["schema"] for group in groups if group["description"] == description)


def _first(schema: Any) -> Any:
    """Hypothesis's first example: its simplest choice at every step."""
    drawn = draw_outside(from_schema(schema))
    assert drawn is not None
    return drawn.value


def test_the_suites_untyped_case_reaches_every_valid_shape() -> None:
    # `toString` has no type, nor has the root: an object at `toString` with its
    # optional `length` came up once in about 150 draws, past what seeds look at.
    schema = _suite_schema(
        "draft2020-12/properties.json",
        "properties whose names are Javascript object property names",
    )
    found = measure(schema)
    assert found.part(invalid=False) == (8, 8), found.missed
    assert found.part(invalid=True)[0] == found.part(invalid=True)[1], found.missed


@pytest.mark.parametrize(
    ("schema", "kind"),
    [
        ({"properties": {"a": {"type": "integer"}}}, dict),
        ({"required": ["a"]}, dict),
        ({"minProperties": 1, "propertyNames": {"maxLength": 3}}, dict),
        ({"items": {"type": "string"}}, list),
        ({"prefixItems": [{"type": "null"}], "minItems": 1}, list),
        ({"contains": {"const": 3}}, list),
        ({"minLength": 2}, str),
        ({"pattern": "^ab+$"}, str),
        ({"minimum": 3}, int),
        ({"multipleOf": 0.5, "exclusiveMaximum": -1}, (int, float)),
        ({"properties": {"a": {"const": 1}}, "not": {"type": "object", "required": ["a"]}}, dict),
    ],
)
def test_the_first_example_has_the_type_the_keywords_constrain(
    schema: dict[str, Any], kind: type | tuple[type, ...]
) -> None:
    simplest = _first(schema)
    assert isinstance(simplest, kind) and not isinstance(simplest, bool), simplest


def _is(kind: type) -> Callable[[Any], bool]:
    return lambda value: type(value) is kind


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
        {"minLength": 2, "maxItems": 1},
        {"properties": {"a": {"type": "integer"}}, "not": {"type": "object", "required": ["a"]}},
    ],
)
@pytest.mark.parametrize("kind", [type(None), bool, int, float, str, list, dict])
def test_an_untyped_schema_still_draws_every_type(schema: dict[str, Any], kind: type) -> None:
    assert _is(kind)(find(from_schema(schema), _is(kind)))


def test_a_constrained_type_is_drawn_about_half_the_time() -> None:
    # Six types drawn alike gave objects one draw in six (25 of these 200).
    built = compile_schema({"properties": {"a": {"type": "integer"}}}).checked
    drawn = [draw_outside(built, seed) for seed in range(1, 201)]
    objects = sum(isinstance(seed.value, dict) for seed in drawn if seed is not None)
    assert 60 <= objects <= 140, objects


def test_every_kept_keyword_but_enum_and_const_constrains_one_type_family() -> None:
    # A keyword the builders keep but no type claims would leave its schemas drawn alike.
    claimed = set().union(*CONSTRAINING.values())
    assert _PLAIN - {"enum", "const"} <= claimed


@pytest.mark.parametrize(
    ("node", "kinds"),
    [
        ({"properties": {}, "minLength": 1}, {"object", "string"}),
        ({"maximum": 4}, {"integer", "number"}),
        ({"unevaluatedItems": False}, {"array"}),
        ({"type": ["null", "object"], "properties": {}}, set()),  # its types are named
        ({"title": "no keyword of a type"}, set()),
    ],
)
def test_the_constrained_types(node: dict[str, Any], kinds: set[str]) -> None:
    assert constrained(node) == kinds


def test_invalid_inputs_hold_the_favoured_type_beside_the_violation() -> None:
    # `box` is untyped: the valid objects a violation is placed in favour an object
    # there (drawn alike, 3 of about 40 held one).
    schema = {
        "type": "object",
        "properties": {"size": {"type": "integer"}, "box": {"properties": {"w": {}}}},
        "required": ["size", "box"],
    }
    built = compile_schema(schema).invalid_drawn
    drawn = [draw_outside(built, seed) for seed in range(1, 101)]
    boxes = [
        seed.value.value["box"]
        for seed in drawn
        if seed is not None and isinstance(seed.value.value, dict) and "box" in seed.value.value
    ]
    assert sum(isinstance(box, dict) for box in boxes) >= 0.3 * len(boxes) > 0, boxes
