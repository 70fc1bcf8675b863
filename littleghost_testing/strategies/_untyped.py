"""Schemas without ``type``: the types their keywords constrain are drawn half the time.

An untyped schema accepts every type, but its keywords speak of some:
``properties`` of objects, ``minLength`` of strings. Drawn alike, each of the
six types came up once in six draws, and an object at an untyped property
with an optional key of its own once in about 150: the keywords were hardly
exercised. The other types still come up (the schema accepts them, and a
tool's own check of them is worth running), each of them less often.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

__all__ = ["CONSTRAINING", "constrained", "evenly", "favouring"]

_NUMERIC = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
_STRING = frozenset({"minLength", "maxLength", "pattern", "format"})
_ARRAY = frozenset(
    {"items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems"}
    | {"uniqueItems", "unevaluatedItems"}
)
_OBJECT = frozenset(
    {"properties", "patternProperties", "additionalProperties", "required", "propertyNames"}
    | {"minProperties", "maxProperties", "dependentRequired", "dependentSchemas"}
    | {"unevaluatedProperties"}
)
CONSTRAINING: Mapping[str, frozenset[str]] = {
    "null": frozenset(),
    "boolean": frozenset(),
    "integer": _NUMERIC,
    "number": _NUMERIC,
    "string": _STRING,
    "array": _ARRAY,
    "object": _OBJECT,
}
"""Per JSON type, the keywords that constrain only values of that type."""


def constrained(node: Mapping[str, Any]) -> frozenset[str]:
    """The types an untyped ``node``'s keywords constrain (none if it names its types)."""
    if "type" in node:
        return frozenset()
    return frozenset(
        kind for kind, keywords in CONSTRAINING.items() if not keywords.isdisjoint(node)
    )


def favouring(
    by_kind: Mapping[str, st.SearchStrategy[Any]], favoured: frozenset[str]
) -> st.SearchStrategy[Any]:
    """Values of every kind in ``by_kind``, the ``favoured`` ones half the time.

    The favoured group comes first, so Hypothesis's simplest value is of a
    type the keywords constrain (an untyped ``properties`` schema shrinks to
    ``{}``, not ``None``). Without a group on both sides, each kind is drawn
    alike.
    """
    first = [strategy for kind, strategy in by_kind.items() if kind in favoured]
    rest = [strategy for kind, strategy in by_kind.items() if kind not in favoured]
    if not first or not rest:
        return st.one_of(list(by_kind.values()))
    return evenly([st.one_of(first), st.one_of(rest)])


def evenly(strategies: Sequence[st.SearchStrategy[T]]) -> st.SearchStrategy[T]:
    """Values of one of ``strategies``, each chosen equally often.

    ``st.one_of`` flattens a branch that is itself a ``one_of`` (even through
    ``.map``) into one branch per part, which are then drawn alike instead.
    """
    return st.sampled_from(strategies).flatmap(_itself)


def _itself(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    return strategy
