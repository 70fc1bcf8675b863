"""One test per bug reported in issue 10, each on the reproducer the issue gives."""

from __future__ import annotations

import socket
import threading
from typing import Any

import pytest
from hypothesis import Phase, find, given, seed, settings
from hypothesis import strategies as st

from littleghost._validation import SchemaValidator
from littleghost_testing.strategies import InvalidInput, SchemaError, from_schema, invalid_inputs

from .support import check_invalid, check_valid

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_04 = "http://json-schema.org/draft-04/schema#"


def draws(strategy: st.SearchStrategy[Any], count: int = 60) -> list[Any]:
    """``count`` values from one seeded run, health checks on."""
    out: list[Any] = []

    @settings(max_examples=count, database=None, deadline=None, derandomize=True)
    @given(strategy)
    def run(value: Any) -> None:
        out.append(value)

    run()
    return out


def broken(schema: Any, count: int = 60) -> set[tuple[str, str]]:
    return {(record.keyword, record.path) for record in draws(invalid_inputs(schema), count)}


# 1. unevaluatedProperties / unevaluatedItems


def test_1_unevaluated_properties_and_items_are_built() -> None:
    required = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "unevaluatedProperties": False,
    }
    assert all(set(value) == {"a"} for value in draws(from_schema(required)))
    optional = {**required, "required": []}
    assert {frozenset(value) for value in draws(from_schema(optional))} == {
        frozenset(),
        frozenset({"a"}),
    }
    union = {
        "type": "object",
        "oneOf": [
            {"properties": {"k": {"const": "x"}, "a": {"type": "integer"}}, "required": ["k"]},
            {"properties": {"k": {"const": "y"}, "b": {"type": "string"}}, "required": ["k"]},
        ],
        "unevaluatedProperties": False,
    }
    find(from_schema(union), lambda value: value["k"] == "x" and "a" in value)
    find(from_schema(union), lambda value: value["k"] == "y" and "b" in value)
    check_valid(union)
    tuples = {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "unevaluatedItems": False,
    }
    assert find(from_schema(tuples), lambda value: len(value) == 2)
    assert {len(value) for value in draws(from_schema({**tuples, "minItems": 1}))} == {1, 2}


# 2. minProperties


def test_2_min_properties_varies_the_optional_keys() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {}, "b": {}},
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": False,
    }
    assert {next(iter(value)) for value in draws(from_schema(schema), 200)} == {"a", "b"}


# 3. whole-number floats, maxContains < minContains


@pytest.mark.parametrize(
    ("schema", "length"),
    [
        ({"type": "string", "minLength": 2.0, "maxLength": 2.0}, 2),
        ({"type": "array", "minItems": 2.0, "maxItems": 2.0}, 2),
        ({"type": "object", "minProperties": 1.0, "maxProperties": 1.0}, 1),
    ],
)
def test_3_whole_number_floats_are_counts(schema: dict[str, Any], length: int) -> None:
    assert {len(value) for value in draws(from_schema(schema), 20)} == {length}
    check_invalid(schema, 20)


def test_3_max_contains_below_min_contains_is_refused_at_build_time() -> None:
    schema = {"type": "array", "contains": {"type": "integer"}, "minContains": 3, "maxContains": 1}
    with pytest.raises(SchemaError, match="maxContains 1 is less than minContains 3"):
        from_schema(schema)


# 4. older drafts


def test_4_older_drafts_are_read_as_their_validator_reads_them() -> None:
    dependencies = {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "dependencies": {"a": ["b"]},
    }
    values = draws(from_schema(dependencies))
    assert any("a" in value for value in values)
    assert all("b" in value for value in values if "a" in value)
    assert ("dependencies", "$") in broken(dependencies)

    exclusive = {
        "$schema": DRAFT_04,
        "type": "integer",
        "minimum": 0,
        "maximum": 5,
        "exclusiveMaximum": True,
    }
    assert set(draws(from_schema(exclusive))) == {0, 1, 2, 3, 4}

    tuple_items = {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"t": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}},
        "required": ["t"],
    }
    pair = find(from_schema(tuple_items), lambda value: len(value["t"]) == 2)
    assert pair == {"t": [0, ""]}
    check_valid(tuple_items)
    check_invalid(tuple_items)


# 5. no network, SchemaError for every refusal


class _Listener:
    """A local TCP listener that records whether anything connected to it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connected = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            self.connected.set()
            connection.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.server.close()


@pytest.mark.anyio
async def test_5_refusals_are_schema_errors_and_never_reach_the_network(lg_leaks: Any) -> None:
    snapshot = lg_leaks()
    listener = _Listener()
    try:
        for schema in (
            {"$schema": f"http://127.0.0.1:{listener.port}/meta", "type": "integer"},
            {"$ref": f"http://127.0.0.1:{listener.port}/other.json"},
        ):
            with pytest.raises(SchemaError, match=r"\$ref|schema"):
                from_schema(schema)
            with pytest.raises(SchemaError):
                invalid_inputs(schema)
    finally:
        listener.close()
    assert not listener.connected.is_set()
    await snapshot.assert_released()
    with pytest.raises(SchemaError, match=r"\$ref"):
        from_schema({"$ref": "other.json"})


# 6. health checks


def test_6_untyped_one_of_branches_and_not_pass_the_health_checks() -> None:
    schema = {"oneOf": [{"minimum": 2}, {"maxLength": 3}]}
    for run_seed in range(20):

        @seed(run_seed)
        @settings(max_examples=30, database=None, deadline=None, phases=[Phase.generate])
        @given(from_schema(schema))
        def run(value: Any) -> None:
            assert isinstance(value, str) or value < 2 or value >= 2

        run()
    with pytest.raises(SchemaError, match="`not` rules out every value"):
        from_schema({"not": True})
    assert ("anyOf", "$") in broken({"anyOf": [{"type": "integer"}, {"minimum": 2}]})


# 7. invalid_inputs for schemas that do reject values


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"patternProperties": {"f.*o": {"type": "integer"}}}, "type"),
        ({"additionalProperties": {"type": "boolean"}}, "type"),
        ({"properties": {"bar": False}}, "properties"),
        ({"items": False}, "items"),
        ({"if": {"type": "integer"}, "then": {"minimum": 3}}, "minimum"),
    ],
)
def test_7_schemas_that_reject_values_have_invalid_inputs(
    schema: dict[str, Any], expected: str
) -> None:
    assert expected in {keyword for keyword, _ in broken(schema)}
    check_invalid(schema, 30)


def test_7_each_dependent_of_a_dependent_required_is_broken() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {}, "b": {}, "c": {}},
        "dependentRequired": {"a": ["b", "c"]},
    }
    found = draws(invalid_inputs(schema), 100)
    missing = {
        next(key for key in ("b", "c") if key not in record.value)
        for record in found
        if record.keyword == "dependentRequired"
    }
    assert missing == {"b", "c"}


# 8. prefixItems false, unknown \p names, metaschema $ref


def test_8_prefix_items_false_ends_the_array_there() -> None:
    schema = {"prefixItems": [True, False]}
    assert find(from_schema(schema), lambda value: isinstance(value, list) and len(value) == 1)
    check_valid(schema)
    assert ("prefixItems", "$[1]") in broken(schema)


def test_8_unicode_property_classes_keep_the_string_type() -> None:
    schema = {"type": ["string", "integer"], "pattern": "^\\p{Greek}{2,4}$"}
    text = find(from_schema(schema), lambda value: isinstance(value, str))
    assert 2 <= len(text) <= 4
    check_valid(schema)


def test_8_a_ref_to_a_draft_metaschema_generates_schemas() -> None:
    schema = {"$ref": "https://json-schema.org/draft/2020-12/schema"}
    validator = SchemaValidator(schema)
    generated = draws(from_schema(schema), 10)
    assert all(validator.is_valid(value) for value in generated)
    assert any(isinstance(value, dict) and value for value in generated)


def test_invalid_inputs_keep_their_record_type() -> None:
    record = find(invalid_inputs({"type": "integer"}), lambda record: True)
    assert isinstance(record, InvalidInput)
    assert record.keyword == "type"


def test_8_a_pattern_that_cannot_be_generated_is_never_silently_dropped() -> None:
    # The Tool's engine also accepts Rust's inline flags, which ECMA-262 lacks:
    # refused when built, not by leaving the string type out of the union.
    with pytest.raises(SchemaError, match="pattern"):
        from_schema({"type": ["string", "integer"], "pattern": "(?i)abc"})
    text = find(from_schema({"type": ["string", "integer"], "pattern": "^\\u{1F600}$"}), _is_text)
    assert text == "\U0001f600"


def _is_text(value: Any) -> bool:
    return isinstance(value, str)
