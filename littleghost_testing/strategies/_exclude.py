"""Values of one type that a negated schema (``not``, the other ``oneOf`` branches) rejects.

Filtering by "does not match X" starves Hypothesis when X accepts most values
(``{"oneOf": [{"minimum": 2}, {"maxLength": 3}]}`` leaves only long strings for
the first branch). Per JSON type, X usually says one thing or nothing at all:

- X accepts every value of the type (no keyword of X applies to it): the type
  is ruled out;
- X cannot accept the type (its ``type`` excludes it): nothing to exclude;
- X has one keyword for the type with an exact negation (``minimum: 2`` becomes
  ``exclusiveMaximum: 2``, ``required: [k]`` makes ``k`` absent): the negation
  is merged in and built;
- X is ``not Y``: ``Y`` is merged in (``not: {not: {required: [k]}}`` wants
  ``k``, which a filter would rarely see);
- otherwise the values are filtered by X.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from littleghost._schema import ANNOTATION_KEYWORDS, NEGATED_BOUNDS

from ._context import Context, Schema
from ._errors import SchemaError
from ._merge import flatten, merge

__all__ = ["Excluded", "exclude"]

Node = dict[str, Any]
_NUMERIC = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
_FAMILIES: dict[str, frozenset[str]] = {
    "null": frozenset(),
    "boolean": frozenset(),
    "integer": _NUMERIC,
    "number": _NUMERIC,
    "string": frozenset({"minLength", "maxLength", "pattern"}),
    "array": frozenset(
        {"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"}
    ),
    "object": frozenset(
        {
            "properties", "patternProperties", "additionalProperties", "required",
            "propertyNames", "minProperties", "maxProperties", "dependentRequired",
        }
    ),
}  # fmt: skip
_ANY_TYPE = frozenset({"enum", "const", "allOf"})
# The one type each type-specific keyword constrains (integer and number share theirs).
_KINDS_OF: dict[str, frozenset[str]] = {
    key: frozenset(kind for kind, family in _FAMILIES.items() if key in family)
    for key in frozenset().union(*_FAMILIES.values())
} | {
    "unevaluatedProperties": frozenset({"object"}),
    "dependentSchemas": frozenset({"object"}),
    "unevaluatedItems": frozenset({"array"}),
    "minContains": frozenset({"array"}),
    "maxContains": frozenset({"array"}),
}
_COUNT_OPPOSITE = {
    "minLength": "maxLength",
    "maxLength": "minLength",
    "minItems": "maxItems",
    "maxItems": "minItems",
    "minProperties": "maxProperties",
    "maxProperties": "minProperties",
}


@dataclass
class Excluded:
    """A node of one type, narrowed by exact negations, and the schemas left to filter by."""

    node: Node
    filters: list[Schema] = field(default_factory=list)


def exclude(kind: str, node: Node, negated: list[Schema], ctx: Context) -> Excluded | None:
    """``node`` restricted to ``kind`` and to values none of ``negated`` accepts (None: none)."""
    out = Excluded(merge(node, {"type": [kind]}))
    for schema in negated:
        try:
            flat, _ = flatten(schema, ctx)
        except SchemaError:
            continue  # an unsatisfiable schema rejects everything already
        if not _applies(kind, flat):
            continue
        if set(flat) == {"allOf"} and len(flat["allOf"]) == 1 and set(flat["allOf"][0]) == {"not"}:
            try:  # not (not Y) is Y: built, not filtered (a filter would starve on `required`)
                inner, _ = flatten(flat["allOf"][0]["not"], ctx)
                out.node = merge(out.node, inner)
            except SchemaError:
                return None  # Y accepts no value of this type
            continue
        keys = [key for key in flat if key in _FAMILIES[kind] or key in _ANY_TYPE]
        if "allOf" in keys and all(_silent_on(kind, part) for part in flat["allOf"]):
            keys.remove("allOf")  # {"unevaluatedProperties": false} says nothing of strings
        if "type" in flat and kind == "number" and "number" not in flat["type"]:
            out.filters.append(schema)  # it accepts integers only: floats stay
            continue
        if not keys or _accepts_all(keys, flat):
            return None
        negation = _negation(keys, flat) if len(keys) == 1 else None
        if negation is None:
            out.filters.append(schema)
        else:
            out.node = merge(out.node, negation)
    return out


def _applies(kind: str, flat: Node) -> bool:
    """Whether the schema accepts some value of ``kind`` (else it excludes none of them)."""
    kinds = flat.get("type")
    if kinds is None:
        return True
    return (
        kind in kinds
        or (kind == "integer" and "number" in kinds)
        or (kind == "number" and "integer" in kinds)
    )


def _silent_on(kind: str, part: Schema) -> bool:
    """Whether ``part`` accepts every value of ``kind``: each keyword constrains other types
    only, or is an ``anyOf`` with such a branch (``true`` too) or an ``allOf`` of them."""
    if part is True or part == {}:
        return True
    if not isinstance(part, dict):
        return False
    return all(_keyword_silent_on(kind, key, value) for key, value in part.items())


def _keyword_silent_on(kind: str, key: str, value: Any) -> bool:
    if key in _KINDS_OF:
        return kind not in _KINDS_OF[key]
    if key == "anyOf":
        return any(_silent_on(kind, branch) for branch in value)
    if key == "allOf":
        return all(_silent_on(kind, part) for part in value)
    return key in ANNOTATION_KEYWORDS


def _accepts_all(keys: list[str], flat: Node) -> bool:
    """A lone ``minLength: 0`` (or ``minItems``/``minProperties``) says nothing."""
    return (
        len(keys) == 1
        and keys[0] in _COUNT_OPPOSITE
        and keys[0].startswith("min")
        and (flat[keys[0]] <= 0)
    )


def _negation(keys: list[str], flat: Node) -> Node | None:
    """A node accepting exactly the values (of the type) that fail the one keyword."""
    key = keys[0]
    value = flat[key]
    if key in NEGATED_BOUNDS:
        return {NEGATED_BOUNDS[key]: value}
    if key in _COUNT_OPPOSITE:
        if key.startswith("min"):
            return {_COUNT_OPPOSITE[key]: value - 1}
        return {_COUNT_OPPOSITE[key]: value + 1}
    if key == "required" and len(value) == 1:
        return {"properties": {value[0]: False}}
    if key == "properties" and len(value) == 1:
        name, schema = next(iter(value.items()))
        if schema is not True and schema != {}:
            return {"required": [name], "properties": {name: {"not": schema}}}
    return None
