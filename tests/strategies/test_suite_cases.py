"""The strategies on the JSON-Schema-Test-Suite's own cases, one test per keyword family.

The cases are vendored in tests/data/json_schema_test_suite (see vendor.py
there). For each case group, judged by ``jsonschema`` as an independent oracle:
``from_schema`` builds (or refuses with the listed reason) and draws valid
values without a health-check failure; ``invalid_inputs`` never claims that a schema the suite
shows rejecting a value accepts every value, and each input it draws is
rejected, on exactly the keyword and path it names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import regex
from hypothesis import Phase, given, settings

from littleghost_testing.strategies import InvalidInput, SchemaError
from littleghost_testing.strategies._coverage import coverage_of, measure
from littleghost_testing.strategies._invalid import beside_unevaluated

from .support import compile_schema

CASES = Path(__file__).resolve().parent.parent / "data" / "json_schema_test_suite" / "cases.json"
FILES: dict[str, list[dict[str, Any]]] = json.loads(CASES.read_text())["files"]
EXAMPLES = 10
FAMILIES = {
    "unevaluatedProperties": ["draft2020-12/unevaluatedProperties.json"],
    "unevaluatedItems": ["draft2020-12/unevaluatedItems.json"],
    "contains": [
        "draft2020-12/contains.json",
        "draft2020-12/minContains.json",
        "draft2020-12/maxContains.json",
    ],
    "oneOf": ["draft2020-12/oneOf.json"],
    "dependencies": [
        "draft7/dependencies.json",
        "draft2020-12/dependentSchemas.json",
        "draft2020-12/dependentRequired.json",
    ],
    "boolean subschemas": ["draft2020-12/boolean_schema.json", "draft2020-12/propertyNames.json"],
    "draft-04 id": ["draft4/ref.json"],
    "multipleOf": ["draft2020-12/multipleOf.json"],
    "not": ["draft2020-12/not.json"],
    "dynamicRef": ["draft2020-12/dynamicRef.json"],
}
# Case groups whose schema is `{"$ref": <a draft's metaschema>}`.
METASCHEMA_CASES = ["validate definition against metaschema", "remote ref, containing refs itself"]
# Case groups whose every reachable coverage target (valid shapes, constraints broken
# alone) is reached within COVERAGE_EXAMPLES values and inputs each.
COVERED = [
    "unevaluatedItems with tuple",  # items beside unevaluatedItems are broken one by one
    "unevaluatedItems with nested tuple",
    "item is evaluated in an uncle schema to unevaluatedItems",
    "in-place applicator siblings, anyOf has unevaluated",
    "in-place applicator siblings, allOf has unevaluated",  # bar present: no value reaches it
    "property is evaluated in an uncle schema to unevaluatedProperties",  # likewise faz
    "items does not look in applicators, valid case",  # 4 at $[0] breaks items' minimum 5 alone
    # foo's type is one constraint, though two allOf parts reach the same $ref for it
    "evaluating the same schema location against the same data location twice is not a sign "
    "of an infinite loop",
    "required with escaped characters",
    "oneOf with base schema",
    "dependent subschema incompatible with root",
    "ref creates new scope when adjacent to keywords",
    "uniqueItems=false validation",
    "small multiple of large integer",
    "unevaluatedProperties with not",  # foo's type is never broken alone: no target
    "unevaluatedItems depends on multiple nested contains",  # each part's contains broken
    "maxContains with contains",  # too few matches is named maxContains: one target
]
COVERAGE_EXAMPLES = 20
# Case groups the strategies refuse, and the reason their SchemaError gives.
REFUSED = {
    "boolean schema 'false'": "accepts no value",
    "forbid everything with empty schema": "rules out every value",
    "forbid everything with boolean schema true": "rules out every value",
    "oneOf with boolean schemas, all true": "oneOf",
    "oneOf with boolean schemas, more than one true": "oneOf",
    "oneOf with boolean schemas, all false": "oneOf",
}


def _refs(schema: Any) -> list[str]:
    if isinstance(schema, dict):
        own = [schema["$ref"]] if isinstance(schema.get("$ref"), str) else []
        return own + [ref for value in schema.values() for ref in _refs(value)]
    if isinstance(schema, list):
        return [ref for value in schema for ref in _refs(value)]
    return []


# dynamicRef.json: its remote documents are not vendored (the resources a group embeds are read).
REFUSED.update(
    {
        group["description"]: "not present in a registry"
        for group in FILES["draft2020-12/dynamicRef.json"]
        if any("localhost" in ref or ".json" in ref for ref in _refs(group["schema"]))
    }
)

# Open gaps of issue 20, each failing today (strict: a fix makes the entry stale and fails).
KNOWN_GAPS: dict[str, tuple[bool, str]] = {}


def _groups(family: str) -> list[Any]:
    return [
        pytest.param(
            group,
            id=f"{name.split('/')[0]}: {group['description']}",
            marks=_gap(group["description"]),
        )
        for name in FAMILIES[family]
        for group in FILES[name]
    ]


def _gap(description: str) -> list[pytest.MarkDecorator]:
    if description not in KNOWN_GAPS:
        return []
    strict, reason = KNOWN_GAPS[description]
    return [pytest.mark.xfail(strict=strict, reason=reason)]


def _oracle(schema: Any) -> Any:
    """``jsonschema``, reading with the ``regex`` package the patterns Python's ``re`` cannot
    (``\\p{...}``)."""

    def search(pattern: str, text: str) -> bool:
        try:
            return re.search(pattern, text) is not None
        except re.error:
            return regex.search(pattern, text) is not None

    def pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not search(pattern, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")

    def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "object"):
            for key, value in instance.items():
                for each, subschema in patterns.items():
                    if search(each, key):
                        yield from validator.descend(value, subschema, path=key)

    base = jsonschema.validators.validator_for(schema)
    keywords = {"pattern": pattern, "patternProperties": pattern_properties}
    return jsonschema.validators.extend(base, keywords)(schema)


def _check_group(group: dict[str, Any]) -> None:
    schema = group["schema"]
    oracle = _oracle(schema)
    refusal = REFUSED.get(group["description"])
    try:
        built = compile_schema(schema)
    except SchemaError as error:
        assert refusal is not None and refusal in str(error), error
        return
    assert refusal is None, "built, though listed as refused"
    run = settings(
        max_examples=EXAMPLES, database=None, deadline=None, derandomize=True,
        phases=[Phase.generate],
    )  # fmt: skip

    @run
    @given(built.checked)  # constructed, then the safety check (with health checks on)
    def valid(value: Any) -> None:
        assert oracle.is_valid(value), value

    valid()
    rejects_some = any(not test["valid"] for test in group["tests"])
    try:
        strategy = built.invalid_drawn
        strategy.validate()
        built.sites  # noqa: B018 -- builds the sites, or refuses
    except SchemaError as error:
        assert not rejects_some, f"refused, though the suite rejects a value: {error}"
        return

    @run
    @given(strategy)
    def invalid(record: InvalidInput) -> None:
        assert not oracle.is_valid(record.value), record
        found = beside_unevaluated(built.validator.violations(record.value))
        assert [(v.keyword, v.path) for v in found] == [(record.keyword, record.path)]

    invalid()


@pytest.mark.parametrize("group", _groups("unevaluatedProperties"))
def test_unevaluated_properties(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("unevaluatedItems"))
def test_unevaluated_items(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("contains"))
def test_contains_min_contains_max_contains(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("oneOf"))
def test_one_of(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("dependencies"))
def test_dependencies_in_every_form(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("boolean subschemas"))
def test_boolean_subschemas(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("draft-04 id"))
def test_draft_04_id(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("multipleOf"))
def test_multiple_of_agrees_with_float_division(group: dict[str, Any]) -> None:
    # jsonschema divides float steps in floats: a value both readings agree on only.
    _check_group(group)


@pytest.mark.parametrize("group", _groups("not"))
def test_not(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups("dynamicRef"))
def test_dynamic_ref(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize(
    "group",
    [
        pytest.param(group, id=f"{name.split('/')[0]}: {group['description']}")
        for name in ["draft2020-12/defs.json", "draft2020-12/ref.json"]
        for group in FILES[name]
        if group["description"] in METASCHEMA_CASES
    ],
)
def test_a_ref_to_the_metaschema(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("description", COVERED)
def test_every_reachable_target_is_reached(description: str) -> None:
    found = [
        group["schema"]
        for groups in FILES.values()
        for group in groups
        if group["description"] == description
    ]
    assert found, description
    for schema in found:
        assert measure(schema, COVERAGE_EXAMPLES).missed == []


def test_a_shape_inside_a_branch_is_left_out_only_where_no_value_reaches_it() -> None:
    # The in-place sibling case without its unevaluatedProperties: bar can be present.
    schema = {"allOf": [{"properties": {"foo": True}}], "anyOf": [{"properties": {"bar": True}}]}
    assert ("present", "$/anyOf/0", "bar") in coverage_of(schema).targets
    closed = {**schema, "allOf": [{"properties": {"foo": True}, "unevaluatedProperties": False}]}
    assert ("present", "$/anyOf/0", "bar") in coverage_of(closed).unreachable
