"""Schema intake in one place: the draft list, the keyword vocabulary, the walk, ECMA-262.

Each table in ``littleghost._schema`` is checked against the reference it
restates (the drafts' metaschemas, the ``jsonschema`` package, ECMA-262's
whitespace), so that a table that drifts fails here rather than as a
disagreement between two readers of the same schema.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema.validators
import jsonschema_rs
import pytest
import regex
from jsonschema_specifications import REGISTRY as METASCHEMAS

import littleghost as lg
from littleghost._schema import (
    CLASS_ESCAPES,
    DRAFTS,
    LATEST,
    NEGATED_BOUNDS,
    NOT_LINE_TERMINATOR,
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
    WHITESPACE,
    declared_draft,
    draft_named,
    map_subschemas,
)
from littleghost._validation import SchemaValidator, compile_instance_validator

# ECMA-262's WhiteSpace and LineTerminator code points: what ``\s`` matches.
ECMA_WHITESPACE = frozenset(
    "\t\n\v\f\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(map(chr, range(0x2000, 0x200B)))
)
LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")
BMP = [chr(point) for point in range(0x10000) if not 0xD800 <= point < 0xE000]


@pytest.mark.parametrize("draft", DRAFTS, ids=lambda draft: draft.name)
def test_every_uri_of_a_draft_names_the_validator_of_that_draft(draft: Any) -> None:
    number = draft.name.removeprefix("draft-0").replace("-", "")  # "7", "202012"
    unknown = jsonschema.validators.Draft3Validator  # no draft littleghost lists
    found = {jsonschema.validators.validator_for({"$schema": u}, unknown) for u in draft.uris}
    references = found - {unknown}
    assert references  # the reference knows some spelling of it ...
    assert all(draft.path in reference.META_SCHEMA["$schema"] for reference in references)
    for uri in draft.uris:
        assert draft_named(uri) is draft
        native = jsonschema_rs.validator_for({"$schema": uri})  # ... the validator every one
        assert type(native).__name__ == f"Draft{number}Validator", uri


def test_a_schema_without_dollar_schema_is_the_latest_draft_and_an_unknown_one_is_none() -> None:
    assert declared_draft({}) is LATEST
    assert declared_draft({"$schema": "https://example.com/draft-07/schema"}) is None
    assert declared_draft({"$schema": ["http://json-schema.org/draft-07/schema#"]}) is None
    assert draft_named(7) is None


def test_an_unhashable_dollar_schema_is_a_configuration_error() -> None:
    with pytest.raises(lg.ConfigurationError, match=r"\$schema"):
        SchemaValidator({"$schema": ["http://json-schema.org/draft-07/schema#"]})


def _subschema_keywords(metaschema: dict[str, Any]) -> dict[str, str]:
    """Each keyword of a metaschema whose value is a schema, by shape: one, list or map."""
    shapes: dict[str, str] = {}

    def is_schema(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        ref = value.get("$ref") or value.get("$dynamicRef") or value.get("$recursiveRef")
        return ref in ("#", "#meta")

    def is_list(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        ref = value.get("$ref", "")
        if ref.endswith("/schemaArray"):
            return True
        return value.get("type") == "array" and is_schema(value.get("items", {}))

    for keyword, value in metaschema.get("properties", {}).items():
        if not isinstance(value, dict):
            continue
        options = value.get("anyOf", [value])
        if all(is_schema(option) or is_list(option) for option in options):
            shapes[keyword] = "list" if all(map(is_list, options)) else "one"
        elif is_schema(value.get("additionalProperties", {})):
            shapes[keyword] = "map"
    return shapes


def _metaschemas() -> list[dict[str, Any]]:
    """Every draft's metaschema, and 2019-09's and 2020-12's vocabulary metaschemas."""
    uris = [draft.uris[0] for draft in DRAFTS]
    for draft in ("2019-09", "2020-12"):
        for vocabulary in ("core", "applicator", "unevaluated", "content", "validation"):
            uris.append(f"https://json-schema.org/draft/{draft}/meta/{vocabulary}")
    found = []
    for uri in uris:
        try:
            found.append(METASCHEMAS.contents(uri))
        except Exception:  # 2019-09 has no "unevaluated" vocabulary of its own
            continue
    return found


def test_the_vocabulary_puts_subschemas_where_the_metaschemas_do() -> None:
    tables = {
        "one": SUBSCHEMA_KEYWORDS,
        "list": SUBSCHEMA_LIST_KEYWORDS,
        "map": SUBSCHEMA_MAP_KEYWORDS,
    }
    seen: set[str] = set()
    for metaschema in _metaschemas():
        for keyword, shape in _subschema_keywords(metaschema).items():
            seen.add(keyword)
            if keyword == "contentSchema":
                continue  # an annotation: no validator applies it, nor compiles its patterns
            if keyword == "items" and shape == "list":
                shape = "one"  # a tuple before 2020-12: the walk reads both
            assert keyword in tables[shape], (keyword, shape)
    every = SUBSCHEMA_KEYWORDS | SUBSCHEMA_LIST_KEYWORDS | SUBSCHEMA_MAP_KEYWORDS
    assert every <= seen


def test_map_subschemas_visits_each_subschema_with_its_steps_and_leaves_data() -> None:
    visited: list[tuple[Any, tuple[str, ...]]] = []

    def visit(schema: Any, steps: tuple[str, ...]) -> Any:
        visited.append((schema, steps))
        return "seen"

    assert map_subschemas("properties", {"a": {}, "b": True}, visit) == {"a": "seen", "b": "seen"}
    assert map_subschemas("anyOf", [{}, {}], visit) == ["seen", "seen"]
    assert map_subschemas("items", [{}], visit) == ["seen"]  # a tuple, before 2020-12
    assert map_subschemas("not", {"type": "string"}, visit) == "seen"
    assert map_subschemas("enum", [{"type": "string"}], visit) == [{"type": "string"}]
    assert map_subschemas("properties", ["not", "a", "map"], visit) == ["not", "a", "map"]
    assert [steps for _, steps in visited] == [
        ("properties", "a"),
        ("properties", "b"),
        ("anyOf", "0"),
        ("anyOf", "1"),
        ("items", "0"),
        ("not",),
    ]


# ``\b`` is ASCII in ECMA-262: "é" is no word character, so "aé" has a boundary after "a".
_WORD = {"type": "string", "pattern": "^a\\b"}


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"properties": {"x": _WORD}}, {"x": "aé"}),
        ({"anyOf": [_WORD]}, "aé"),
        ({"not": {"not": _WORD}}, "aé"),
        ({"$schema": "https://json-schema.org/draft/2019-09/schema", "items": [_WORD]}, ["aé"]),
    ],
)
def test_a_pattern_in_every_kind_of_subschema_is_read_as_ecma_262(
    schema: dict[str, Any], instance: Any
) -> None:
    assert compile_instance_validator(schema).is_valid(instance)


@pytest.mark.parametrize("engine", [re, regex], ids=["re", "regex"])
def test_the_whitespace_class_is_ecma_262s_in_both_engines(engine: Any) -> None:
    space = engine.compile(f"[{WHITESPACE}]")
    assert {char for char in BMP if space.fullmatch(char)} == ECMA_WHITESPACE
    dot = engine.compile(NOT_LINE_TERMINATOR)
    assert {char for char in BMP if not dot.fullmatch(char)} == LINE_TERMINATORS


def test_the_class_tables_agree_with_the_validators_linear_engine() -> None:
    for letter, body in CLASS_ESCAPES.items():
        native = compile_instance_validator({"pattern": f"^\\{letter}$"})
        table = re.compile(f"[{body}]")
        disagree = [c for c in BMP if native.is_valid(c) != bool(table.fullmatch(c))]
        assert not disagree, (letter, disagree[:5])


def test_each_negated_bound_holds_exactly_where_its_bound_fails() -> None:
    for bound, negation in NEGATED_BOUNDS.items():
        kept = compile_instance_validator({bound: 0})
        negated = compile_instance_validator({negation: 0})
        for number in (-1, 0, 1):
            assert kept.is_valid(number) != negated.is_valid(number), (bound, number)
