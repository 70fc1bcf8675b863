"""Property tests on random schemas: what the strategies promise holds for any schema.

A Hypothesis strategy draws schemas from the keywords tool schemas use (types,
bounds, lengths, patterns, enums, objects, arrays, combinators, older drafts).
For each: the strategies are built or refuse with ``SchemaError`` at build
time; every constructed value passes littleghost's validator (before the
final safety filter); every ``InvalidInput`` fails the validator exactly once,
on the keyword and path it names. Runs are derandomized, so they repeat.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from littleghost._validation import SchemaValidator
from littleghost_testing.strategies import SchemaError
from littleghost_testing.strategies._api import compiled

NAMES = st.sampled_from(["a", "b", "id", "kind", "x-1", "2"])
PATTERNS = st.sampled_from(
    ["^[a-z]+$", "^\\d{2,4}$", "^[A-Z][a-z]*-\\d+$", "ab", "^(?!admin$)[a-z]{1,8}$", "^\\w*$"]
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text("abc", max_size=3))
COUNT = st.integers(0, 4)
# Examples per property: each builds a strategy from a fresh schema.
EXAMPLES = 40


def _optional(**keywords: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=keywords)


def _integer() -> st.SearchStrategy[dict[str, Any]]:
    bounds = _optional(
        minimum=st.integers(-10, 10),
        maximum=st.integers(-10, 30),
        exclusiveMinimum=st.integers(-10, 10),
        multipleOf=st.sampled_from([1, 2, 3, 0.5]),
    )
    return bounds.map(lambda extra: {"type": "integer", **extra})


def _number() -> st.SearchStrategy[dict[str, Any]]:
    bounds = _optional(
        minimum=st.floats(-10, 10, allow_nan=False),
        exclusiveMaximum=st.floats(-10, 40, allow_nan=False),
        multipleOf=st.sampled_from([0.25, 0.1, 2]),
    )
    return bounds.map(lambda extra: {"type": "number", **extra})


def _string() -> st.SearchStrategy[dict[str, Any]]:
    extra = _optional(
        minLength=COUNT,
        maxLength=st.integers(0, 12),
        pattern=PATTERNS,
        format=st.sampled_from(["date", "email", "uuid"]),
    )
    return extra.map(lambda extra: {"type": "string", **extra})


LEAVES = st.one_of(
    _integer(),
    _number(),
    _string(),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.lists(SCALARS, min_size=1, max_size=4, unique_by=json.dumps).map(lambda v: {"enum": v}),
    SCALARS.map(lambda value: {"const": value}),
    st.just({}),
    st.lists(
        st.sampled_from(["string", "integer", "null", "boolean"]),
        min_size=2,
        max_size=3,
        unique=True,
    ).map(lambda kinds: {"type": kinds}),
)


def _object(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        properties = draw(st.dictionaries(NAMES, inner, max_size=4))
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if properties:
            schema["required"] = draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
        schema.update(
            draw(
                _optional(
                    additionalProperties=st.one_of(st.booleans(), inner),
                    minProperties=COUNT,
                    maxProperties=st.integers(0, 6),
                    patternProperties=st.dictionaries(
                        st.sampled_from(["^x-", "^[0-9]+$"]), inner, max_size=1
                    ),
                    dependentRequired=st.dictionaries(
                        NAMES, st.lists(NAMES, max_size=2, unique=True), max_size=1
                    ),
                    unevaluatedProperties=st.just(False),
                )
            )
        )
        return schema

    return build()


def _array(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    extra = _optional(
        items=st.one_of(inner, st.just(False)),
        prefixItems=st.lists(inner, min_size=1, max_size=2),
        minItems=COUNT,
        maxItems=st.integers(0, 6),
        uniqueItems=st.booleans(),
        contains=inner,
        minContains=st.integers(0, 2),
        maxContains=st.integers(1, 3),
    )
    return extra.map(lambda extra: {"type": "array", **extra})


def _combined(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    branches = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        branches.map(lambda parts: {"anyOf": parts}),
        branches.map(lambda parts: {"oneOf": parts}),
        branches.map(lambda parts: {"allOf": parts}),
        st.tuples(inner, LEAVES).map(lambda pair: {**pair[0], "not": pair[1]}),
        st.tuples(inner, inner, inner).map(
            lambda parts: {"if": parts[0], "then": parts[1], "else": parts[2]}
        ),
    )


def _draft_07(schema: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": "http://json-schema.org/draft-07/schema#", **schema}


SCHEMAS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(_object(inner), _array(inner), _combined(inner)),
    max_leaves=8,
)
ROOTS = st.one_of(SCHEMAS, SCHEMAS.map(_draft_07))

RUN = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _built(schema: dict[str, Any]) -> Any | None:
    """The compiled strategies, or None when the schema is refused (always at build time)."""
    try:
        SchemaValidator(schema)
    except Exception:
        return None  # not a schema a Tool accepts: nothing is promised for it
    try:
        return compiled(json.dumps(schema, sort_keys=True))
    except SchemaError:
        return None


@RUN
@given(ROOTS, st.data())
def test_every_constructed_value_is_valid(schema: dict[str, Any], data: st.DataObject) -> None:
    built = _built(schema)
    if built is None:
        return
    for _ in range(3):
        value = data.draw(built.constructed)
        assert built.validator.violations(value) == [], (schema, value)


@RUN
@given(ROOTS, st.data())
def test_every_invalid_input_breaks_exactly_what_it_names(
    schema: dict[str, Any], data: st.DataObject
) -> None:
    built = _built(schema)
    if built is None:
        return
    try:
        invalid = built.invalid
    except SchemaError as error:
        assert "accepts every value" in str(error)
        return
    for _ in range(3):
        record = data.draw(invalid)
        found = [(v.keyword, v.path) for v in built.validator.violations(record.value)]
        assert found == [(record.keyword, record.path)], (schema, record)


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(ROOTS)
def test_a_schema_a_tool_accepts_is_built_or_refused_with_schema_error(
    schema: dict[str, Any],
) -> None:
    try:
        SchemaValidator(schema)
    except Exception:
        return
    with contextlib.suppress(SchemaError):  # any other exception fails the test
        compiled(json.dumps(schema, sort_keys=True))
