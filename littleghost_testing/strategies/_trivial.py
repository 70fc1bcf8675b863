"""Whether a schema provably accepts every value: the one case ``invalid_inputs`` refuses.

A refusal tells the user a tool cannot be tested with invalid input, so it is
made only on proof: every keyword of the schema (through ``$ref``, ``allOf``
and the like) is one that no value can fail, and the validator accepts a
witness of every JSON type. Anything else that yields no constructed
violation is searched for one instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from littleghost._schema import ANNOTATION_KEYWORDS

from ._context import Context, Schema
from ._errors import SchemaError

__all__ = ["WITNESSES", "accepts_every_value", "rejects_every_value"]

# A value of every JSON type (and both kinds of number), empty and not.
WITNESSES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1.5, "", "text", [], [1, "a"], {}, {"key": "value"},
)  # fmt: skip
_ALL_TYPES = frozenset({"null", "boolean", "number", "string", "array", "object"})
# Counts that no value fails at zero, flags no value fails when false.
_ZERO = frozenset({"minLength", "minItems", "minProperties"})
# Keywords whose value is one subschema, or a map or list of them, all of which must hold.
_ONE = frozenset(
    {"items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
     "propertyNames", "then", "else"}
)  # fmt: skip
_MANY = frozenset({"properties", "patternProperties", "dependentSchemas", "prefixItems", "allOf"})


def accepts_every_value(schema: Schema, ctx: Context, is_valid: Callable[[Any], bool]) -> bool:
    """True only if no value can fail ``schema`` (proven keyword by keyword) and witnesses pass."""
    return _trivial(schema, ctx, ()) and all(is_valid(value) for value in WITNESSES)


def _trivial(schema: Schema, ctx: Context, seen: tuple[str, ...]) -> bool:
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return False
    return all(_keyword_trivial(key, value, ctx, seen) for key, value in schema.items())


def _keyword_trivial(key: str, value: Any, ctx: Context, seen: tuple[str, ...]) -> bool:
    if key in ANNOTATION_KEYWORDS:
        return True
    if key in _ZERO:
        return value == 0
    if key == "uniqueItems":
        return value is False
    if key == "required":
        return value == []
    if key == "dependentRequired":
        return all(not needed for needed in value.values())
    if key == "type":
        kinds = {value} if isinstance(value, str) else set(value)
        return kinds >= _ALL_TYPES
    if key in _ONE:
        return _trivial(value, ctx, seen)
    if key in _MANY:
        parts = value.values() if isinstance(value, dict) else value
        return all(_trivial(part, ctx, seen) for part in parts)
    if key == "anyOf":
        return any(_trivial(part, ctx, seen) for part in value)
    if key == "oneOf":
        return len(value) == 1 and _trivial(value[0], ctx, seen)
    if key == "not":
        return value is False
    if key == "if":
        return True  # `then` and `else` are judged on their own
    if key == "$ref":
        return _reference_trivial(value, ctx, seen)
    return False  # bounds, patterns, `contains`, `const`, `$dynamicRef`, unknown keywords


def _reference_trivial(ref: str, ctx: Context, seen: tuple[str, ...]) -> bool:
    try:
        uri, target = ctx.lookup(ref)
    except SchemaError:
        return False
    # A reference back to a schema being judged adds nothing it does not already say.
    return uri in seen or _trivial(target, ctx, (*seen, uri))


def rejects_every_value(schema: Schema, ctx: Context, seen: tuple[str, ...] = ()) -> bool:
    """True only if no value can pass ``schema``: ``false``, a ``not`` of a schema proven
    to accept every value (``{"not": {}}``), or a ``$ref`` (or ``$dynamicRef``) to either."""
    if not isinstance(schema, dict):
        return schema is False
    if "not" in schema and _trivial(schema["not"], ctx, ()):
        return True
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if not isinstance(ref, str):
            continue
        try:
            uri, target = ctx.lookup(ref) if keyword == "$ref" else ctx.dynamic(ref, seen)
        except SchemaError:
            continue
        if uri not in seen and rejects_every_value(target, ctx, (*seen, uri)):
            return True
    return False
