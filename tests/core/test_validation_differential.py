"""Differential validation: ``SchemaValidator`` (jsonschema-rs) against ``jsonschema``.

``littleghost._validation`` validates tool input with jsonschema-rs; the Python
``jsonschema`` package is the reference. For a set of schemas covering the
keywords tools use, Hypothesis generates arbitrary JSON instances (plus values
at and around every number, string and constant in the schema) and checks that
both agree, and that ``is_valid`` agrees with ``violations``.

Known, deliberate divergences are pinned by their own tests below:

- ``multipleOf`` with a fractional divisor: jsonschema-rs follows the decimal
  value of the JSON number (``0.3`` is a multiple of ``0.1``); the reference
  divides binary floats (``0.3 / 0.1 == 2.9999999999999996``) and rejects it.
  Here the reference is compared with an exact decimal ``multipleOf``, for
  numbers up to 2**53 in magnitude.
- Input must be plain JSON. NaN and infinities (Python's ``json.loads`` parses
  them), lone surrogates (what it makes of an unpaired ``\\ud800`` escape),
  non-string keys and non-JSON objects are invalid under every schema. The
  reference accepts NaN as a number within any bounds; jsonschema-rs alone
  lets infinity through ``maximum`` and cannot encode lone surrogates at all.
- ``pattern`` is only compared with ASCII patterns on ASCII strings without
  line terminators: Python ``re`` differs from ECMA-262 on Unicode classes and
  on ``$`` before a trailing newline.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import jsonschema
import jsonschema.validators
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import littleghost as lg
from littleghost._validation import SchemaValidator

pytestmark = pytest.mark.anyio

INTEGER_BOUNDARIES = [
    0,
    1,
    -1,
    2,
    3,
    2**31 - 1,
    2**31,
    2**53 - 1,
    2**53,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64 - 1,
    2**64,
    2**64 + 1,
    10**20,
    -(10**30),
]
FLOAT_BOUNDARIES = [
    0.0,
    -0.0,
    0.1,
    0.2,
    0.3,
    0.1 + 0.2,
    0.5,
    1.0,
    -1.0,
    1.5,
    2.5,
    3.0,
    1e-300,
    5e-324,
    -5e-324,
    2.0**53,
    2.0**53 + 2,
    2.0**63,
    2.0**64,
    1e20,
    1e308,
    -1e308,
    1.7976931348623157e308,
]

# -- the schemas -------------------------------------------------------------------------

TREE = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 3},
            },
            "required": ["value"],
            "additionalProperties": False,
        }
    },
    "$ref": "#/$defs/node",
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "empty": {},
    "ticket": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 5},
            "count": {"type": "integer", "minimum": 0, "maximum": 10},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        },
        "required": ["name", "count"],
        "additionalProperties": False,
    },
    "additional-schema": {
        "type": "object",
        "properties": {"a": {"type": "null"}},
        "additionalProperties": {"type": "integer"},
    },
    "boolean-subschemas": {"properties": {"a": False, "b": True}, "items": False},
    "type-union": {"type": ["integer", "string", "null"]},
    "number": {"type": "number"},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
    "enum-mixed": {"enum": [1, "1", None, True, [1, 2], {"a": 1}, 1.5, 0, "", []]},
    "enum-false-zero": {"enum": [False, 1.0]},
    "const-object": {"const": {"a": [1, 2.0, None], "b": False}},
    "const-zero": {"const": 0},
    "const-false": {"const": False},
    "const-big": {"const": 2**64 + 1},
    "const-float": {"const": 0.1},
    "bounds-float": {"minimum": -1.5, "maximum": 2.5},
    "bounds-exclusive": {"exclusiveMinimum": 0, "exclusiveMaximum": 1e-300},
    "bounds-exclusive-float": {"exclusiveMinimum": 0.1, "exclusiveMaximum": 0.30000000000000004},
    "bounds-int64": {"type": "integer", "minimum": -(2**63), "maximum": 2**64},
    "bounds-2**53": {"minimum": 2**53, "exclusiveMaximum": 2**53 + 2},
    "bounds-huge": {"exclusiveMinimum": 10**20, "maximum": 1e308},
    "multiple-of-int": {"multipleOf": 3},
    "multiple-of-one": {"multipleOf": 1},
    "multiple-of-big-int": {"type": "integer", "multipleOf": 2**40},
    "string-length": {"type": "string", "minLength": 2, "maxLength": 3},
    "string-length-zero": {"maxLength": 0},
    "unique-items": {"type": "array", "uniqueItems": True},
    "unique-items-false": {"uniqueItems": False, "maxItems": 2},
    "tuple": {"prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False},
    "prefix-and-items": {
        "type": "array",
        "prefixItems": [{"const": 1}],
        "items": {"type": "boolean"},
        "minItems": 1,
        "maxItems": 3,
    },
    "contains": {"contains": {"type": "null"}, "minContains": 2, "maxContains": 3},
    "any-of": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 5}]},
    "one-of": {"oneOf": [{"multipleOf": 2}, {"multipleOf": 3}]},
    "one-of-types": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]},
    "all-of": {"allOf": [{"minimum": 0}, {"maximum": 5}, {"type": "integer"}]},
    "not": {"not": {"type": ["string", "null"]}},
    "if-then-else": {
        "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        "then": {"required": ["a"]},
        "else": {"required": ["b"]},
    },
    "ref-tree": TREE,
    "ref-root-recursion": {"type": ["array", "integer"], "items": {"$ref": "#"}},
    "ref-chain": {
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "string", "maxLength": 2}},
        "properties": {"x": {"$ref": "#/$defs/a"}},
    },
    "dependent-required": {"dependentRequired": {"a": ["b", "c"], "b": []}},
    "dependent-schemas": {"dependentSchemas": {"a": {"required": ["z"]}}},
    "min-max-properties": {"minProperties": 1, "maxProperties": 2},
    "property-names": {"propertyNames": {"maxLength": 1, "not": {"const": "b"}}},
    "property-names-enum": {"type": "object", "propertyNames": {"enum": ["a", "b", "c"]}},
    "unevaluated-properties": {
        "properties": {"a": {}},
        "allOf": [{"properties": {"b": {}}}],
        "unevaluatedProperties": False,
    },
    "unevaluated-items": {"prefixItems": [{}], "unevaluatedItems": {"type": "integer"}},
    "format-not-asserted": {"format": "email", "type": "string"},
    "nested": {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string", "minLength": 1},
                        "quantity": {"type": "integer", "minimum": 1},
                    },
                    "required": ["sku", "quantity"],
                },
                "minItems": 1,
            }
        },
        "required": ["items"],
    },
}

FLOAT_MULTIPLE_OF: dict[str, dict[str, Any]] = {
    "multiple-of-float-integral": {"multipleOf": 2.0},
    "multiple-of-0.1": {"multipleOf": 0.1},
    "multiple-of-0.01": {"multipleOf": 0.01},
    "multiple-of-0.25": {"multipleOf": 0.25},
    "multiple-of-1.5": {"multipleOf": 1.5},
    "multiple-of-0.07": {"multipleOf": 0.07},
    "price": {"type": "number", "minimum": 0, "multipleOf": 0.01},
}

PATTERN_SCHEMAS: dict[str, dict[str, Any]] = {
    "pattern-anchored": {"type": "string", "pattern": "^[a-z]+[0-9]{2,3}$"},
    "pattern-unanchored": {"pattern": "b+c"},
    "pattern-classes": {"pattern": "^\\d{2}-\\w+$"},
    "pattern-alternation": {"pattern": "^(ab|cd)*e?$"},
    "pattern-properties": {
        "type": "object",
        "patternProperties": {"^x-": {"type": "string"}, "[0-9]$": {"type": "integer"}},
        "additionalProperties": False,
    },
    "pattern-property-names": {"propertyNames": {"pattern": "^[a-c]{1,2}$"}},
}

# ASCII without line terminators or the controls Python's \s matches but ECMA's does not.
ASCII = string.ascii_letters + string.digits + string.punctuation + " "


# -- the instances ------------------------------------------------------------------------


def walk(schema: Any) -> Iterator[Any]:
    """Every value anywhere inside ``schema`` (keys included)."""
    yield schema
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            yield from walk(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from walk(item)


def near(number: int | float) -> list[int | float]:
    """``number`` and its finite neighbours, as ints and floats."""
    found: list[int | float] = [number, -number, number * 2]
    if isinstance(number, int):
        found += [number - 1, number + 1, float(number) if abs(number) < 2**1023 else number]
    else:
        found += [
            math.nextafter(number, math.inf),
            math.nextafter(number, -math.inf),
            number / 2,
            number * 3,
            number * 7,
        ]
        if number.is_integer():
            found.append(int(number))
    return [n for n in found if isinstance(n, int) or math.isfinite(n)]


def instances(
    schema: dict[str, Any],
    *,
    text: st.SearchStrategy[str] | None = None,
    numbers: st.SearchStrategy[int | float] | None = None,
) -> st.SearchStrategy[Any]:
    """Arbitrary JSON values, leaning on what ``schema`` mentions."""
    mentioned = list(walk(schema))
    schema_numbers = sorted(
        {
            n
            for v in mentioned
            if isinstance(v, int | float) and not isinstance(v, bool)
            for n in near(v)
        },
        key=repr,
    )
    schema_strings = sorted({v for v in mentioned if isinstance(v, str)})
    schema_values = [v for v in mentioned if isinstance(v, list | dict | bool) or v is None]
    lengths = [
        v for v in mentioned if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 6
    ]
    longest = max(lengths, default=3) + 2

    base_text = st.text(max_size=longest) if text is None else text
    if numbers is None:
        numbers = st.one_of(
            st.integers(-10, 10),
            st.integers(),
            st.sampled_from(INTEGER_BOUNDARIES),
            st.floats(allow_nan=False, allow_infinity=False),
            st.sampled_from(FLOAT_BOUNDARIES),
        )
    leaves: list[st.SearchStrategy[Any]] = [st.none(), st.booleans(), numbers, base_text]
    if schema_numbers:
        leaves.append(st.sampled_from(schema_numbers))
    keys = base_text
    if schema_strings and text is None:  # a pattern schema's strings are not ASCII-safe
        leaves.append(st.sampled_from(schema_strings))
        keys = st.one_of(st.sampled_from(schema_strings), base_text)
    if schema_values:
        leaves.append(st.sampled_from(schema_values))
    return st.recursive(
        st.one_of(leaves),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(keys, children, max_size=4),
        ),
        max_leaves=12,
    )


# -- the reference -------------------------------------------------------------------------


def _decimal(value: int | float) -> Fraction:
    """The exact value of the JSON number a float was parsed from (its shortest repr)."""
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _decimal_multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "number"):
        return
    if (_decimal(instance) / _decimal(divisor)).denominator != 1:
        yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {divisor!r}")


DecimalReference = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"multipleOf": _decimal_multiple_of}
)

COMPILED: dict[str, tuple[SchemaValidator, Any, Any]] = {}


def compiled(name: str, schema: dict[str, Any]) -> tuple[SchemaValidator, Any, Any]:
    if name not in COMPILED:
        jsonschema.Draft202012Validator.check_schema(schema)
        COMPILED[name] = (
            SchemaValidator(schema),
            jsonschema.Draft202012Validator(schema),
            DecimalReference(schema),
        )
    return COMPILED[name]


def assert_agrees(
    name: str, schema: dict[str, Any], instance: Any, *, decimal: bool = False
) -> None:
    ours, reference, decimal_reference = compiled(name, schema)
    expected = (decimal_reference if decimal else reference).is_valid(instance)
    got = ours.is_valid(instance)
    assert got == expected, (
        f"divergence: schema={json.dumps(schema)} instance={instance!r} "
        f"jsonschema-rs={got} jsonschema={expected}"
    )
    violations = ours.violations(instance)
    assert (not violations) == got, f"is_valid={got} but violations={violations!r}"


DIFFERENTIAL = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- unhappy paths: input that is not plain JSON ---------------------------------------------


SURROGATE_SCHEMAS = {
    "anything": {},
    "type": {"type": "string"},
    "length": {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}},
    "enum": {"properties": {"name": {"enum": ["a", "b"]}}},
    "pattern": {"properties": {"name": {"pattern": "^[a-z]+$"}}},
    "property-names": {"propertyNames": {"maxLength": 3}},
    "properties": {"type": "object", "properties": {"a": {"type": "integer"}}},
    "required": {"type": "object", "required": ["a"]},
    "closed": {"type": "object", "additionalProperties": False},
    "unique": {"type": "array", "uniqueItems": True},
    "items": {"items": {"type": "string"}},
}
SURROGATE_DOCUMENTS = {
    '"\\ud800"': "$ is not valid Unicode (a lone surrogate)",
    '{"name": "\\udfff"}': "$.name is not valid Unicode (a lone surrogate)",
    '{"\\ud800": 1}': "$ has a key that is not valid Unicode",
    '["a", "\\ud83d"]': "$[1] is not valid Unicode (a lone surrogate)",
    '{"a": ["ok", "\\ud800x"]}': "$.a[1] is not valid Unicode (a lone surrogate)",
}


@pytest.mark.parametrize("schema", SURROGATE_SCHEMAS.values(), ids=list(SURROGATE_SCHEMAS))
@pytest.mark.parametrize("document", list(SURROGATE_DOCUMENTS))
def test_lone_surrogates_are_invalid_under_every_schema(
    schema: dict[str, Any], document: str
) -> None:
    """``json.loads`` makes a lone surrogate of ``\\ud800``: jsonschema-rs cannot encode it."""
    instance = json.loads(document)
    validator = SchemaValidator(schema)
    assert validator.is_valid(instance) is False
    violations = validator.violations(instance)
    assert violations
    assert all(v.path.startswith("$") and v.message for v in violations)
    if not schema:  # nothing else to report: exactly the lone surrogate, located
        assert [v.message for v in violations] == [SURROGATE_DOCUMENTS[document]]


async def test_a_lone_surrogate_is_an_invalid_input_result_naming_where() -> None:
    class Greet(lg.Tool):
        description = "Greet someone."
        input_schema = {
            "type": "object",
            "properties": {"name": {"type": "string", "maxLength": 10, "pattern": "^[^0-9]*$"}},
            "required": ["name"],
            "additionalProperties": False,
        }

        def call(self, input: Any) -> Any:
            return "hi"

    result = await Greet().execute(json.loads('{"name": "\\ud800"}'))
    assert result.is_error
    assert result.content == "Invalid tool input: $.name is not valid Unicode (a lone surrogate)"
    assert isinstance(result.error, lg.ToolError)


NON_FINITE_SCHEMAS = {
    "anything": {},
    "number-bounded": {"type": "number", "minimum": 0, "maximum": 10},
    "bounds-only": {"minimum": 0, "maximum": 1e308},
    "exclusive-only": {"exclusiveMaximum": 5},
    "multiple-of": {"multipleOf": 0.5},
    "property": {"type": "object", "properties": {"x": {"maximum": 100}}},
    "not-string": {"not": {"type": "string"}},
}


@pytest.mark.parametrize("schema", NON_FINITE_SCHEMAS.values(), ids=list(NON_FINITE_SCHEMAS))
@pytest.mark.parametrize("document", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_invalid_under_every_schema(
    schema: dict[str, Any], document: str
) -> None:
    validator = SchemaValidator(schema)
    for instance in (
        json.loads(document),
        json.loads(f'{{"x": {document}}}'),
        [1, json.loads(document)],
    ):
        assert validator.is_valid(instance) is False
        violations = validator.violations(instance)
        assert violations and all(v.path.startswith("$") for v in violations)
    if not schema:
        assert [v.message for v in validator.violations(json.loads(f'{{"x": {document}}}'))] == [
            f"$.x must be a finite number, not {float(document)!r}"
        ]


def test_non_finite_numbers_divide_jsonschema_rs_and_the_reference() -> None:
    """Why the JSON check exists: neither engine alone rejects them."""
    import jsonschema_rs

    assert jsonschema_rs.validator_for({"maximum": 1e308}).is_valid(math.inf)
    assert jsonschema.Draft202012Validator({"type": "number", "maximum": 10}).is_valid(math.nan)
    assert not SchemaValidator({"maximum": 1e308}).is_valid(math.inf)
    assert not SchemaValidator({"type": "number", "maximum": 10}).is_valid(math.nan)


def test_deeply_nested_non_json_input_is_located_without_exhausting_the_stack() -> None:
    instance: Any = math.nan
    for _ in range(5000):
        instance = [instance]
    validator = SchemaValidator({"type": "array"})
    assert validator.is_valid(instance) is False
    (violation,) = validator.violations(instance)
    assert violation.path == "$" + "[0]" * 5000
    plain: Any = 1
    for _ in range(5000):
        plain = {"a": [plain]}
    assert validator.is_valid([plain]) is True


@pytest.mark.parametrize(
    "instance",
    [
        {1: "int key"},
        {(1, 2): "tuple key"},
        {"a": {1, 2}},
        {"b": {1, 2}},
        b"bytes",
        {"a": object()},
        {"b": [1, 2j]},
        {"b": "ok", "c": bytearray(b"x")},
    ],
    ids=["int-key", "tuple-key", "set", "unchecked-set", "bytes", "object", "complex", "bytearray"],
)
async def test_non_json_input_is_an_invalid_input_result_not_an_exception(instance: Any) -> None:
    class Lenient(lg.Tool):
        description = "Checks only that a is an array."
        input_schema = {"type": "object", "properties": {"a": {"type": "array"}}}

        def call(self, input: Any) -> Any:
            return "ran"

    validator = Lenient._validator
    assert validator.is_valid(instance) is False
    assert validator.violations(instance)
    result = await Lenient().execute(instance)
    assert result.is_error
    assert result.content.startswith("Invalid tool input: $")
    assert result.content != "Invalid tool input: "


# -- pinned divergences --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("divisor", "instance"),
    [
        (0.1, 0.3),
        (0.1, 0.7),
        (0.1, 2.3),
        (0.01, 0.07),
        (0.01, 19.99),
        (0.07, -7.0),
        (0.07, 1106),
        (0.05, -99999.9),
        (1e-8, 2.55),
    ],
)
def test_fractional_multiple_of_follows_the_decimal_value_unlike_the_reference(
    divisor: float, instance: float
) -> None:
    schema = {"multipleOf": divisor}
    assert (_decimal(instance) / _decimal(divisor)).denominator == 1
    assert SchemaValidator(schema).is_valid(instance)
    assert not jsonschema.Draft202012Validator(schema).is_valid(instance)


@pytest.mark.parametrize(
    ("divisor", "instance"),
    [(2.0, 2**53 + 1), (2.0, 2**60 + 2**8 + 1), (0.3, 1e20), (1.5, 1e20), (0.3, 10**20 + 1)],
)
def test_float_multiple_of_rejects_large_non_multiples_the_reference_accepts(
    divisor: float, instance: Any
) -> None:
    """The reference divides in binary floating point: ``(2**53 + 1) / 2.0`` rounds to a whole."""
    schema = {"multipleOf": divisor}
    assert (_decimal(instance) / _decimal(divisor)).denominator != 1
    assert not SchemaValidator(schema).is_valid(instance)
    assert jsonschema.Draft202012Validator(schema).is_valid(instance)


@pytest.mark.parametrize(
    ("divisor", "instance"),
    [(0.1, 0.30000000000000004), (0.01, 0.001), (0.25, 0.3), (0.07, 0.1), (2.0, 5)],
)
def test_float_multiple_of_rejects_decimal_non_multiples(divisor: float, instance: Any) -> None:
    assert (_decimal(instance) / _decimal(divisor)).denominator != 1
    assert not SchemaValidator({"multipleOf": divisor}).is_valid(instance)


# -- the differential ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_matches_the_reference(name: str) -> None:
    schema = SCHEMAS[name]

    @DIFFERENTIAL
    @given(instances(schema))
    def check(instance: Any) -> None:
        assert_agrees(name, schema, instance)

    check()


SAFE_NUMBERS = st.one_of(
    st.integers(),
    st.sampled_from(INTEGER_BOUNDARIES),
    st.floats(min_value=-(2.0**53), max_value=2.0**53),
    st.integers(-(10**6), 10**6).map(lambda k: k / 10),
    st.integers(-(10**6), 10**6).map(lambda k: k / 100),
    st.integers(-1000, 1000).map(lambda k: k * 0.07),
    st.sampled_from([f for f in FLOAT_BOUNDARIES if abs(f) <= 2.0**53]),
)


@pytest.mark.parametrize("name", list(FLOAT_MULTIPLE_OF))
def test_fractional_multiple_of_matches_an_exact_decimal_reference(name: str) -> None:
    schema = FLOAT_MULTIPLE_OF[name]

    @DIFFERENTIAL
    @given(instances(schema, numbers=SAFE_NUMBERS))
    def check(instance: Any) -> None:
        assert_agrees(name, schema, instance, decimal=True)

    check()


@pytest.mark.parametrize("name", list(PATTERN_SCHEMAS))
def test_ascii_patterns_on_ascii_strings_match_the_reference(name: str) -> None:
    schema = PATTERN_SCHEMAS[name]
    pieces = "abcdex-0123456789"
    ascii_text = st.one_of(
        st.text(alphabet=ASCII, max_size=8),
        st.text(alphabet=pieces, max_size=8),
        st.lists(st.sampled_from(["ab", "cd", "e", "x-", "b", "c", "7", "-"]), max_size=5).map(
            "".join
        ),
    )

    @DIFFERENTIAL
    @given(instances(schema, text=ascii_text))
    def check(instance: Any) -> None:
        assert_agrees(name, schema, instance)

    check()


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("integer", 1.0),
        ("integer", 1e300),
        ("integer", -0.0),
        ("integer", True),
        ("number", False),
        ("const-zero", False),
        ("const-zero", 0.0),
        ("const-zero", -0.0),
        ("const-false", 0),
        ("enum-false-zero", 0),
        ("enum-false-zero", 1),
        ("enum-false-zero", True),
        ("enum-mixed", [True, 2]),
        ("enum-mixed", {"a": 1.0}),
        ("enum-mixed", {"a": True}),
        ("const-object", {"b": False, "a": [1.0, 2, None]}),
        ("const-object", {"b": 0, "a": [1, 2, None]}),
        ("const-big", 2**64 + 1),
        ("const-big", float(2**64)),
        ("const-float", 0.1),
        ("unique-items", [1, 1.0]),
        ("unique-items", [1, True]),
        ("unique-items", [0, False]),
        ("unique-items", [{"a": 1}, {"a": 1.0}]),
        ("unique-items", [[1], [True]]),
        ("unique-items", [2**64 + 1, 2**64]),
        ("bounds-2**53", 2**53 + 1),
        ("bounds-2**53", 2**53 + 2),
        ("bounds-2**53", 2.0**53),
        ("bounds-exclusive", 5e-324),
        ("bounds-exclusive", 1e-300),
        ("bounds-exclusive-float", 0.30000000000000004),
        ("bounds-exclusive-float", 0.3),
        ("bounds-huge", 10**20),
        ("bounds-huge", 10**20 + 1),
        ("bounds-huge", 10**400),
        ("bounds-int64", 2**64 + 1),
        ("bounds-int64", -(2**63) - 1),
        ("multiple-of-int", 10**20 + 2),
        ("multiple-of-int", 1e308),
        ("multiple-of-int", 3.0),
        ("multiple-of-big-int", 2**41),
        ("multiple-of-big-int", 2**41 + 1),
        ("multiple-of-one", 1.5),
        ("multiple-of-float-integral", 4.0),
        ("multiple-of-float-integral", 5),
        ("multiple-of-float-integral", 2**53 + 1),
        ("multiple-of-float-integral", 2**64 + 2),
        ("multiple-of-0.1", 0.3),
        ("multiple-of-0.1", 0.1 + 0.2),
        ("price", 19.99),
        ("price", -0.01),
        ("price", 0.005),
        ("string-length", "\U0001f600\U0001f600"),
        ("string-length", "e\u0301"),
        ("string-length", "\U0001f600"),
        ("ref-tree", {"value": 1, "children": [{"value": 2, "children": [{"value": "3"}]}]}),
        ("ref-tree", {"value": 1, "children": [{"value": 2, "children": []}]}),
        ("ref-root-recursion", [[[1, [2]]], 3]),
        ("ref-root-recursion", [[[1, ["2"]]]]),
        ("if-then-else", {"kind": "a", "b": 1}),
        ("if-then-else", {"kind": "b", "b": 1}),
        ("dependent-required", {"a": 1, "b": 2}),
        ("dependent-required", {"b": 2}),
        ("property-names", {"a": 1, "b": 2}),
        ("unevaluated-properties", {"a": 1, "b": 2, "c": 3}),
        ("unevaluated-items", ["x", 1, "y"]),
        ("format-not-asserted", "not an email"),
        ("contains", [None, 1, None]),
        ("contains", [None, None, None, None]),
        ("one-of", 6),
        ("one-of-types", 1),
        ("one-of-types", 1.5),
        ("one-of-types", -1),
    ],
)
def test_boundary_examples_match_the_reference(name: str, instance: Any) -> None:
    if name in FLOAT_MULTIPLE_OF:
        assert_agrees(name, FLOAT_MULTIPLE_OF[name], instance, decimal=True)
    else:
        assert_agrees(name, SCHEMAS[name], instance)
