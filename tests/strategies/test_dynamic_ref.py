"""``$dynamicRef`` resolves through the dynamic scope, as Draft 2020-12 says.

A ``$dynamicRef`` whose static target carries the ``$dynamicAnchor`` it names
goes to the outermost resource in scope that declares that anchor: the 2020-12
metaschema's vocabularies say ``{"$dynamicRef": "#meta"}`` for every subschema,
which means the whole metaschema (or a stricter one extending it), not the one
vocabulary's own keywords. The suite's "strict-tree" case says the same with
remote documents; here the extended document is the metaschema itself.
"""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import Phase, find, given, settings
from jsonschema_specifications import REGISTRY as METASCHEMAS

from littleghost_testing.strategies import InvalidInput, invalid_inputs
from littleghost_testing.strategies._context import Context

from .support import compile_schema
from .test_suite_cases import _check_group

METASCHEMA = "https://json-schema.org/draft/2020-12/schema"
APPLICATOR = "https://json-schema.org/draft/2020-12/meta/applicator"
# A metaschema extending 2020-12's (as strict-tree.json extends tree.json): every subschema,
# at any depth, is an object that says at most these keywords.
STRICT = {
    "$schema": METASCHEMA,
    "$id": "https://example.com/strict-meta",
    "$dynamicAnchor": "meta",
    "$ref": METASCHEMA,
    "type": "object",
    "propertyNames": {"enum": ["type", "properties", "items", "required"]},
}


def _subschemas(schema: Any) -> list[Any]:
    """``schema`` and every subschema under ``properties`` and ``items``, at any depth."""
    found = [schema]
    if isinstance(schema, dict):
        for value in schema.get("properties", {}).values():
            found += _subschemas(value)
        if "items" in schema:
            found += _subschemas(schema["items"])
    return found


def test_a_dynamic_ref_goes_to_the_outermost_dynamic_anchor_in_scope() -> None:
    ctx = Context(STRICT)
    assert ctx.dynamic(f"{APPLICATOR}#meta", [])[0] == "https://example.com/strict-meta"
    # The metaschema alone: its own root, not the vocabulary that says `#meta`.
    plain = Context({"$ref": METASCHEMA})
    assert plain.dynamic(f"{APPLICATOR}#meta", [METASCHEMA, APPLICATOR])[0] == METASCHEMA
    assert plain.dynamic(f"{APPLICATOR}#meta", [APPLICATOR])[0] == APPLICATOR
    # A fragment that is a pointer, or names no dynamic anchor, is a plain $ref.
    assert plain.dynamic(f"{APPLICATOR}#/$defs/schemaArray", [METASCHEMA])[0] == (
        f"{APPLICATOR}#/$defs/schemaArray"
    )


def test_values_of_the_metaschema_nest_the_whole_metaschema() -> None:
    # Every subschema under `properties` (an applicator keyword) is the whole metaschema:
    # resolved statically it was the applicator vocabulary alone, no other's keywords,
    # and no value below had one (find then raises NoSuchExample).
    schema = {"$ref": METASCHEMA}
    oracle = jsonschema.Draft202012Validator(schema)
    built = compile_schema(schema)
    vocabularies = [METASCHEMAS.contents(uri) for uri in METASCHEMAS if "/2020-12/meta/" in uri]
    others = {key for vocabulary in vocabularies for key in vocabulary.get("properties", {})}
    others -= set(METASCHEMAS.contents(APPLICATOR)["properties"])

    def nests_another_vocabulary(value: Any) -> bool:
        assert oracle.is_valid(value), value
        nested = _subschemas(value)[1:]
        return any(isinstance(schema, dict) and set(schema) & others for schema in nested)

    quick = settings(
        max_examples=500, database=None, deadline=None, derandomize=True,
        phases=[Phase.generate],
    )  # fmt: skip
    find(built.checked, nests_another_vocabulary, settings=quick)


def test_values_of_an_extended_metaschema_honour_it_at_every_depth() -> None:
    oracle = jsonschema.Draft202012Validator(STRICT)
    built = compile_schema(STRICT)
    nested: list[Any] = []

    @settings(max_examples=50, database=None, deadline=None, derandomize=True)
    @given(built.checked)
    def run(value: Any) -> None:
        assert oracle.is_valid(value), value
        for schema in _subschemas(value):
            assert isinstance(schema, dict), value
            assert set(schema) <= {"type", "properties", "items", "required"}, value
        nested.extend(_subschemas(value)[1:])

    run()
    assert any(isinstance(schema, dict) and "type" in schema for schema in nested), nested


def test_invalid_inputs_of_an_extended_metaschema_break_it_where_they_say() -> None:
    _check_group(
        {
            "description": "strict metaschema",
            "schema": STRICT,
            "tests": [{"data": {"minimum": 1}, "valid": False}],
        }
    )
    oracle = jsonschema.Draft202012Validator(STRICT)

    @settings(max_examples=30, database=None, deadline=None)
    @given(invalid_inputs(STRICT))
    def run(record: InvalidInput) -> None:
        assert not oracle.is_valid(record.value), record

    run()
