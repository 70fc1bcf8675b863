"""Issue 20: invalid inputs for the newest Draft 2020-12 keywords, refusals only on proof."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import Phase, given, settings

from littleghost._validation import SchemaValidator
from littleghost_testing.strategies import InvalidInput, SchemaError, from_schema, invalid_inputs

DRAFT_04 = "http://json-schema.org/draft-04/schema#"


def broken(schema: Any, count: int = 30) -> list[InvalidInput]:
    out: list[InvalidInput] = []

    @settings(
        max_examples=count, database=None, deadline=None, derandomize=True,
        phases=[Phase.generate],
    )  # fmt: skip
    @given(invalid_inputs(schema))
    def run(record: InvalidInput) -> None:
        out.append(record)

    run()
    return out


def values_of(schema: Any, count: int) -> list[Any]:
    """The valid values a derandomized test of ``count`` examples sees."""
    out: list[Any] = []

    @settings(max_examples=count, database=None, deadline=None, derandomize=True)
    @given(from_schema(schema))
    def run(value: Any) -> None:
        out.append(value)

    run()
    return out


def _non_empty_object(value: Any) -> bool:
    return isinstance(value, dict) and len(value) > 0


@pytest.mark.parametrize("schema", [True, {}, {"title": "anything", "minLength": 0}])
def test_a_schema_that_provably_accepts_every_value_is_refused(schema: Any) -> None:
    with pytest.raises(SchemaError, match="accepts every value: no input can be invalid"):
        invalid_inputs(schema).validate()
        broken(schema, 1)


def test_a_schema_with_no_invalid_input_found_is_refused_without_a_claim() -> None:
    # It does accept every value, but no keyword-by-keyword proof says so.
    schema = {"oneOf": [True, False]}
    with pytest.raises(SchemaError, match="no input found that the schema rejects"):
        broken(schema, 1)


@pytest.mark.parametrize(
    ("schema", "keyword", "check"),
    [
        (
            {"properties": {"foo": {"type": "string"}}, "unevaluatedProperties": False},
            "unevaluatedProperties",
            lambda value: isinstance(value, dict) and set(value) - {"foo"},
        ),
        (
            {"unevaluatedProperties": {"type": "string", "minLength": 3}},
            "unevaluatedProperties",
            lambda value: isinstance(value, dict) and value,
        ),
        (
            {"prefixItems": [{"type": "string"}], "unevaluatedItems": False},
            "unevaluatedItems",
            lambda value: isinstance(value, list) and len(value) > 1,
        ),
        ({"contains": True}, "contains", lambda value: value == []),
        (
            {"oneOf": [{"type": "number"}, {}]},
            "oneOf",
            lambda value: isinstance(value, int | float),
        ),
        (
            {"propertyNames": False},
            "propertyNames",
            lambda value: isinstance(value, dict) and value,
        ),
        (
            {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"bar": False}},
            None,
            lambda value: isinstance(value, dict) and "bar" in value,
        ),
        (
            {"dependentSchemas": {"bar": {"required": ["foo"]}}},
            "required",
            lambda value: isinstance(value, dict) and "bar" in value and "foo" not in value,
        ),
    ],
)
def test_keywords_the_old_refusal_missed_are_broken(schema: Any, keyword: Any, check: Any) -> None:
    records = broken(schema)
    validator = SchemaValidator(schema)
    assert records
    assert all(not validator.is_valid(record.value) for record in records)
    hits = [r for r in records if check(r.value) and (keyword is None or r.keyword == keyword)]
    assert hits, records


def test_breaking_a_property_under_unevaluated_properties_names_the_property() -> None:
    schema = {
        "type": "object",
        "properties": {"foo": {"type": "string"}},
        "allOf": [{"properties": {"bar": {"type": "integer"}}}],
        "unevaluatedProperties": False,
    }
    records = broken(schema, 60)
    assert ("type", "$.foo") in {(r.keyword, r.path) for r in records}
    # The broken `allOf` part no longer evaluates `bar`: the validator reports that too.
    bar = [r for r in records if r.path == "$.bar"]
    assert bar and all(r.keyword == "type" for r in bar)


def test_unevaluated_properties_inside_an_all_of_part_sees_only_that_part() -> None:
    cousins = {"allOf": [{"properties": {"foo": True}}, {"unevaluatedProperties": False}]}
    values = values_of(cousins, 30)
    assert {} in values
    assert not [value for value in values if isinstance(value, dict) and value]


def test_draft_04_id_at_the_root_sets_the_base_and_inside_names_a_subschema() -> None:
    root = {
        "$schema": DRAFT_04,
        "id": "file:///folder/file.json",
        "definitions": {"foo": {"type": "number"}},
        "allOf": [{"$ref": "#/definitions/foo"}],
    }
    assert {r.keyword for r in broken(root)} == {"type"}
    inside = {
        "$schema": DRAFT_04,
        "allOf": [{"$ref": "#foo"}],
        "definitions": {"A": {"id": "#foo", "type": "integer"}},
    }
    values = values_of(inside, 20)
    assert values and all(isinstance(value, int) for value in values), values


@pytest.mark.parametrize(
    ("keyword", "bound", "kinds", "edge"),
    [
        ("minimum", 5, ["integer", "number"], 4),
        ("maximum", 5, ["number"], 6),
        ("exclusiveMinimum", 5, ["integer"], 5),
        ("minimum", 2.5, ["integer"], 2),
        ("maximum", 2.5, ["integer"], 3),
        ("exclusiveMinimum", 2.5, ["integer"], 2),
        ("exclusiveMaximum", 2.5, ["integer"], 3),
    ],
)
def test_a_bound_is_also_broken_just_past_it(
    keyword: str, bound: float, kinds: list[str], edge: float
) -> None:
    # The tighter of two merged bounds (items' minimum 5, a prefixItems' minimum 3) can be
    # broken alone only between them: the input nearest the bound is one of them.
    schema = {"type": kinds, keyword: bound}
    assert edge in [record.value for record in broken(schema)]


def test_an_all_of_part_s_own_contains_is_broken() -> None:
    # unevaluatedItems.json: "unevaluatedItems depends on multiple nested contains". Two parts'
    # `contains` cannot merge into one node; [3] or [2] breaks one of them alone.
    schema = {
        "allOf": [{"contains": {"multipleOf": 2}}, {"contains": {"multipleOf": 3}}],
        "unevaluatedItems": {"multipleOf": 5},
    }
    records = broken(schema, 50)
    assert ("contains", "$") in {(record.keyword, record.path) for record in records}


def test_a_doubled_not_is_built_as_the_schema_it_negates_twice() -> None:
    # unevaluatedProperties.json: "unevaluatedProperties with not", without the closing keyword.
    # Filtering by "not (not required bar)" starved: no object was ever drawn.
    schema = {
        "not": {"not": {"properties": {"bar": {"const": "bar"}}, "required": ["bar"]}},
        "properties": {"foo": {"type": "string"}},
    }
    values = values_of(schema, 50)
    objects = [value for value in values if isinstance(value, dict)]
    assert objects and all(value["bar"] == "bar" for value in objects)
    assert all(SchemaValidator(schema).is_valid(value) for value in values)
