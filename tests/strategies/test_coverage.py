"""Shape coverage: the strategies reach what a schema allows, not just valid values.

The corpus test runs a deterministic sample of the real tool schemas (every
``STRIDE``-th tool, one derandomized run each) to stay well under a minute on
one core; ``bench/strategies.py --coverage`` measures the whole corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from littleghost._validation import SchemaValidator
from littleghost_testing.strategies import InvalidInput
from littleghost_testing.strategies._coverage import (
    EXAMPLES,
    MAX_REACHABILITY_CHECKS,
    coverage_of,
    measure,
)

CORPUS = Path(__file__).resolve().parent.parent / "data" / "tool_schemas"
# Every STRIDE-th tool of the corpus (sorted by server and listing order): 25 schemas.
STRIDE = 35

ORDER = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "minLength": 3},
        "express": {"type": "boolean"},
        "unit": {"enum": ["each", "box"]},
        "note": {"type": ["string", "null"]},
        "lines": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        "payment": {
            "oneOf": [
                {"type": "object", "properties": {"card": {"type": "string"}}},
                {"type": "null"},
            ]
        },
    },
    "required": ["sku"],
    "additionalProperties": False,
}


def _sample() -> list[tuple[str, dict[str, Any]]]:
    tools = [
        (f"{path.stem}/{tool['name']}", tool["inputSchema"])
        for path in sorted(CORPUS.glob("*.json"))
        for tool in json.loads(path.read_text())["tools"]
    ]
    return tools[::STRIDE]


def test_targets_name_every_shape_the_schema_allows() -> None:
    targets = coverage_of(ORDER, [], []).targets
    assert {t for t in targets if t[0] != "break"} == {
        *(("present", "$", key) for key in ("express", "unit", "note", "lines", "payment")),
        *(("absent", "$", key) for key in ("express", "unit", "note", "lines", "payment")),
        ("boolean", "$.express", "true"),
        ("boolean", "$.express", "false"),
        ("enum", "$.unit", '"each"'),
        ("enum", "$.unit", '"box"'),
        ("type", "$.note", "string"),
        ("type", "$.note", "null"),
        ("empty", "$.lines"),
        ("non-empty", "$.lines"),
        ("branch", "$.payment/oneOf/0"),
        ("branch", "$.payment/oneOf/1"),
        ("present", "$.payment/oneOf/0", "card"),
        ("absent", "$.payment/oneOf/0", "card"),
    }
    assert {t for t in targets if t[0] == "break"} == {
        ("break", "type", "$"),
        ("break", "required", "$.sku"),
        ("break", "additionalProperties", "$.*"),
        ("break", "type", "$.sku"),
        ("break", "minLength", "$.sku"),
        ("break", "type", "$.express"),
        ("break", "enum", "$.unit"),
        ("break", "type", "$.note"),
        ("break", "type", "$.lines"),
        ("break", "type", "$.lines[]"),
        ("break", "minimum", "$.lines[]"),
    }


def test_a_min_length_the_pattern_implies_is_no_target() -> None:
    def breaks(pattern: str) -> set[str]:
        schema = {"type": "string", "minLength": 1, "pattern": pattern}
        return {target[1] for target in coverage_of(schema, [], []).targets}

    assert breaks("^[a-z]+$") == {"type", "pattern"}  # "" fails the pattern as well
    assert breaks("^[a-z]*$") == {"type", "pattern", "minLength"}


def test_values_reach_targets_by_location() -> None:
    values = [{"sku": "abc", "lines": []}, {"sku": "abcd", "lines": [3], "note": None}]
    broken = [InvalidInput({"sku": "abc", "lines": [0]}, "minimum", "$.lines[0]")]
    found = coverage_of(ORDER, values, broken)
    assert {("empty", "$.lines"), ("non-empty", "$.lines"), ("type", "$.note", "null")} <= (
        found.reached
    )
    assert ("break", "minimum", "$.lines[]") in found.reached
    assert ("present", "$", "express") in found.missed


def test_every_valid_shape_of_a_small_schema_is_reached_within_the_budget() -> None:
    found = measure(ORDER)
    assert [target for target in found.missed if target[0] != "break"] == []


def test_the_corpus_sample_reaches_its_shapes() -> None:
    valid = [0, 0]
    invalid = [0, 0]
    low: list[str] = []
    for tool, schema in _sample():
        found = measure(schema, EXAMPLES)
        for total, part in (
            (valid, found.part(invalid=False)),
            (invalid, found.part(invalid=True)),
        ):
            total[0] += part[0]
            total[1] += part[1]
            if part[1] and part[0] / part[1] < 0.9:
                low.append(tool)
    assert valid[1] > 250 and invalid[1] > 150
    assert valid[0] / valid[1] >= 0.99, valid  # 285 / 285
    assert invalid[0] / invalid[1] >= 0.99, invalid  # 192 / 192 (187 before seeds in tiers)
    assert low == []


def test_a_constraint_no_value_breaks_alone_is_no_target() -> None:
    def breaks(schema: dict[str, Any]) -> set[tuple[str, ...]]:
        return {t for t in coverage_of(schema, [], []).targets if t[0] == "break"}

    # Suite cases (uniqueItems.json, minLength.json, multipleOf.json, oneOf.json).
    assert breaks({"uniqueItems": False, "minItems": 0, "minLength": 0}) == set()
    assert breaks({"type": "integer", "multipleOf": 1e-8}) == {("break", "type", "$")}
    assert ("break", "multipleOf", "$") in breaks({"type": "integer", "multipleOf": 0.5 + 1e-9})
    # Every non-string passes both branches: a wrong type breaks oneOf too.
    assert breaks({"type": "string", "oneOf": [{"minLength": 2}, {"maxLength": 4}]}) == set()
    assert breaks({"type": "string", "anyOf": [{"minLength": 2}, {"maxLength": 4}]}) == {
        ("break", "type", "$")
    }


def test_a_shape_no_valid_value_has_is_unreachable_not_missed() -> None:
    # dependentSchemas.json: "dependent subschema incompatible with root".
    schema = {
        "properties": {"foo": {}},
        "dependentSchemas": {"foo": {"properties": {"bar": {}}, "additionalProperties": False}},
    }
    found = coverage_of(schema, [{}], [])
    assert found.unreachable == {("present", "$", "foo")}
    assert found.ratio == 1.0
    # ref.json: "ref creates new scope when adjacent to keywords".
    scoped = {
        "$defs": {"A": {"unevaluatedProperties": False}},
        "$ref": "#/$defs/A",
        "properties": {"prop1": {"type": "string"}},
    }
    # prop1 is never present, so its type is never broken either.
    assert coverage_of(scoped, [{}], []).unreachable == {
        ("present", "$", "prop1"),
        ("break", "type", "$.prop1"),
    }
    # oneOf.json: "oneOf with empty schema": every number also matches `{}`.
    either = {"oneOf": [{"type": "number"}, {}]}
    assert ("branch", "$/oneOf/0") not in coverage_of(either, [], []).targets
    # A shape merely not reached stays a miss.
    assert ("present", "$", "express") in coverage_of(ORDER, [{"sku": "abc"}], []).missed


def test_a_missing_key_reaches_its_own_target_where_no_property_declares_it() -> None:
    schema = {"required": ["foo\nbar", "foo"]}  # required.json: "required with escaped characters"
    broken = [InvalidInput({"foo": 1}, "required", '$["foo\\nbar"]')]
    found = coverage_of(schema, [], broken)
    assert found.reached >= {("break", "required", "$.foo\nbar")}
    assert ("break", "required", "$.foo") in found.missed


# unevaluatedProperties.json: "unevaluatedProperties with not". An object with `foo` must have
# `bar` (the doubled `not`), and `not` evaluates nothing, so `bar` is unevaluated.
UNEVALUATED_WITH_NOT = {
    "not": {"not": {"properties": {"bar": {"const": "bar"}}, "required": ["bar"]}},
    "properties": {"foo": {"type": "string"}},
    "unevaluatedProperties": False,
}


def test_a_constraint_no_input_breaks_alone_is_unreachable_not_missed() -> None:
    found = coverage_of(UNEVALUATED_WITH_NOT, [], [])
    # No object is valid, so `foo` is neither present nor absent in one either.
    assert found.unreachable == {
        ("break", "type", "$.foo"),
        ("present", "$", "foo"),
        ("absent", "$", "foo"),
    }
    assert found.ratio == 1.0
    # Where an `allOf` part wants `bar` instead, it evaluates `bar`: `{"foo": 1, "bar": "bar"}`
    # breaks `type` alone, and a run without it misses the target.
    evaluated = {**UNEVALUATED_WITH_NOT, "allOf": [UNEVALUATED_WITH_NOT["not"]["not"]]}
    del evaluated["not"]
    assert ("break", "type", "$.foo") in coverage_of(evaluated, [], []).missed


@settings(max_examples=50, deadline=None, derandomize=True)
@given(st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3)))
def test_no_object_with_foo_breaks_only_its_type(value: dict[str, Any]) -> None:
    # The proof the measure relies on, checked by the validator on arbitrary objects.
    found = SchemaValidator(UNEVALUATED_WITH_NOT).violations({**value, "foo": 1})
    assert {(v.keyword, v.path) for v in found} - {("type", "$.foo")}


def test_a_shape_inside_array_items_is_judged_for_reachability() -> None:
    # As DynamoDB's compute_performances_and_costs: a oneOf discriminator in each item. An item
    # without `op` passes both branches, so "absent" is unreachable in each.
    def branch(op: str, *required: str) -> dict[str, Any]:
        properties = {"op": {"const": op}, "x": {"type": "string"}, "y": {"type": "integer"}}
        return {"type": "object", "properties": properties, "required": ["x", *required]}

    def listing(*branches: dict[str, Any]) -> dict[str, Any]:
        return {"type": "array", "items": {"oneOf": list(branches)}}

    absent = ("absent", "$[]/oneOf/0", "op")
    assert absent in coverage_of(listing(branch("a"), branch("b")), []).unreachable
    # Where the other branch needs `y`, an item with `x` alone passes the first one only.
    assert absent in coverage_of(listing(branch("a"), branch("b", "y")), []).missed


def test_contains_and_dependent_required_are_constraints() -> None:
    def breaks(schema: dict[str, Any]) -> set[tuple[str, ...]]:
        return {t for t in coverage_of(schema, [], []).targets if t[0] == "break"}

    assert breaks({"contains": {"const": 1}}) == {("break", "contains", "$")}
    assert breaks({"contains": {"const": 1}, "minContains": 0}) == set()
    assert breaks({"contains": {"const": 1}, "minContains": 2, "maxContains": 3}) == {
        ("break", "minContains", "$"),
        ("break", "maxContains", "$"),
    }
    # Beside maxContains alone, the validator names too few matches `maxContains` too.
    assert breaks({"contains": {"const": 1}, "maxContains": 1}) == {("break", "maxContains", "$")}
    assert breaks({"dependentRequired": {"a": ["b"], "c": []}}) == {
        ("break", "dependentRequired", "$")
    }
    # Draft 7's array form of `dependencies` is the same target, spelled as the draft does.
    draft_7 = {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}
    found = coverage_of(draft_7, [], [InvalidInput({"a": 1}, "dependencies", "$")])
    assert found.reached >= {("break", "dependentRequired", "$")}
    assert found.missed == []


def test_invalid_coverage_with_more_missed_shapes_than_reachability_checks() -> None:
    # Past MAX_REACHABILITY_CHECKS missed shapes, the unchecked ones were taken for
    # constraints and the measure raised a ValueError (the 2020-12 metaschema has
    # about 1,500 shapes, none reached without values).
    metaschema = "https://json-schema.org/draft/2020-12/schema"
    found = coverage_of({"$schema": metaschema, "$ref": metaschema}, [], [])
    assert len(found.targets) > MAX_REACHABILITY_CHECKS
    assert found.part(invalid=True)[1] > 50
