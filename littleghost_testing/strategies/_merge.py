"""Flatten ``$ref`` and ``allOf`` into one node by intersecting constraints.

Generation then builds one strategy per node instead of filtering values of one
branch by the others. What cannot be intersected (combinators, a second
``pattern``) stays in the node's ``allOf`` list as an extra constraint.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ._context import Context, Schema, canonical
from ._errors import SchemaError
from ._patterns import search

__all__ = ["TYPES", "flatten", "merge"]

Node = dict[str, Any]
TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
# Keywords kept on the node as they are; everything else not handled below is an
# annotation (title, description, default, $defs, ...) and is dropped.
_PLAIN = frozenset(
    {
        "enum", "const", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minLength", "maxLength", "pattern", "items", "prefixItems", "minItems",
        "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "properties",
        "patternProperties", "additionalProperties", "required", "propertyNames",
        "minProperties", "maxProperties", "dependentRequired",
    }
)  # fmt: skip
_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})
# Extras whose passing subschemas evaluate keys or items for an `unevaluated*` beside them.
_EVALUATING = frozenset({"anyOf", "oneOf", "if", "dependentSchemas"})
_EXTRA = ("anyOf", "oneOf", "not", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems")
# Counts: a whole float (`minItems: 2.0`) is the integer it equals.
_COUNTS = (
    "minLength", "maxLength", "minItems", "maxItems", "minContains", "maxContains",
    "minProperties", "maxProperties",
)  # fmt: skip
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


def flatten(
    schema: Schema, ctx: Context, seen: tuple[str, ...] = (), scope: tuple[str, ...] = ()
) -> tuple[Node, list[str]]:
    """One node equivalent to ``schema``, and the ``$ref`` URIs expanded to get it.

    ``scope`` is the URIs expanded further out, outermost first (a ``RefStack``'s
    refs), which a ``$dynamicRef`` resolves against. A schema that is an embedded
    resource's root enters that resource: its URI joins the scope and the refs.
    """
    if schema is True:
        return {}, []
    if schema is False:
        raise SchemaError("the schema `false` accepts no value")
    if not isinstance(schema, dict):
        raise SchemaError(f"a schema must be an object or a boolean, not {schema!r}")
    node: Node = {key: value for key, value in schema.items() if key in _PLAIN}
    for key in _COUNTS:
        if isinstance(node.get(key), float):
            node[key] = int(node[key])
    if "type" in schema:
        kind = schema["type"]
        node["type"] = [kind] if isinstance(kind, str) else list(kind)
    extras = [{key: schema[key]} for key in _EXTRA if key in schema]
    if "if" in schema and ("then" in schema or "else" in schema):
        extras.append({key: schema[key] for key in ("if", "then", "else") if key in schema})
    if extras:
        node["allOf"] = extras
    expanded: list[str] = []
    resource = ctx.entered(schema)
    if resource is not None and resource not in seen[-1:]:  # entered by nesting, not by $ref
        seen, expanded = (*seen, resource), [resource]
    parts: list[Schema] = list(schema.get("allOf", ()))
    for keyword in ("$ref", "$dynamicRef"):
        if keyword in schema:
            if keyword == "$ref":
                uri, target = ctx.lookup(schema[keyword])
            else:
                uri, target = ctx.dynamic(schema[keyword], (*scope, *seen))
            if uri in seen:
                raise SchemaError(f"{keyword} {schema[keyword]!r} refers to itself")
            part, inner = flatten(target, ctx, (*seen, uri), scope)
            node = merge(node, scoped(part))
            expanded += [uri, *inner]
    for part in parts:
        flat, inner = flatten(part, ctx, seen, scope)
        node = merge(node, scoped(flat))
        expanded += inner
    return node, expanded


def scoped(part: Node) -> Node:
    """An ``allOf`` part or ``$ref`` target whose ``unevaluated*`` sees only the part itself.

    Such a keyword judges what its own schema evaluated, not its siblings'
    parts: with no branch inside the part, that is what ``additionalProperties``
    and ``items`` say on it, before it is merged with the rest.
    """
    extras: list[Node] = part.get("allOf", [])
    closing = [extra for extra in extras if set(extra) <= _UNEVALUATED]
    if not closing or any(set(extra) & _EVALUATING for extra in extras):
        return part
    out = {**part, "allOf": [extra for extra in extras if extra not in closing]}
    if not out["allOf"]:
        del out["allOf"]
    for extra in closing:
        if "unevaluatedProperties" in extra and "additionalProperties" not in out:
            out["additionalProperties"] = extra["unevaluatedProperties"]
        if "unevaluatedItems" in extra and "items" not in out and "contains" not in out:
            out["items"] = extra["unevaluatedItems"]
        elif "unevaluatedItems" in extra:
            out.setdefault("allOf", []).append(extra)  # `contains` evaluates items too
    return out


def merge(a: Node, b: Node) -> Node:
    """The intersection of two flat nodes (a node valid exactly where both are)."""
    if not a:
        return b
    if not b:
        return a
    out: Node = {**b, **a}
    extras = [*a.get("allOf", ()), *b.get("allOf", ())]
    for key, combine in _COMBINED.items():
        if key in a and key in b:
            out[key] = combine(a[key], b[key])
    for key, split in _SPLIT.items():
        if key in a and key in b:
            extras += split(a, b, out)
    if "uniqueItems" in a or "uniqueItems" in b:
        out["uniqueItems"] = bool(a.get("uniqueItems")) or bool(b.get("uniqueItems"))
    if "prefixItems" in a or "prefixItems" in b:
        out["prefixItems"] = _merge_prefix(a, b)
    if any(key in node for node in (a, b) for key in ("properties", "patternProperties")):
        _merge_properties(a, b, out)
    if extras:
        out["allOf"] = extras
    return out


def _same_const(a: Any, b: Any) -> Any:
    if canonical(a) != canonical(b):
        raise SchemaError("allOf requires two different `const` values")
    return a


def _common_enum(a: list[Any], b: list[Any]) -> list[Any]:
    allowed = {canonical(value) for value in b}
    return [value for value in a if canonical(value) in allowed]


def _all_required(a: list[str], b: list[str]) -> list[str]:
    return list(dict.fromkeys([*a, *b]))


def _all_dependencies(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, list[str]]:
    deps = {key: list(value) for key, value in a.items()}
    for key, value in b.items():
        deps[key] = list(dict.fromkeys([*deps.get(key, ()), *value]))
    return deps


def _split_multiple(a: Node, b: Node, out: Node) -> list[Node]:
    out["multipleOf"], extra = _multiple(a["multipleOf"], b["multipleOf"])
    return extra


def _split_pattern(a: Node, b: Node, out: Node) -> list[Node]:
    return [] if a["pattern"] == b["pattern"] else [{"pattern": b["pattern"]}]


def _split_contains(a: Node, b: Node, out: Node) -> list[Node]:
    """One ``contains`` (with its counts) stays; the other's becomes an ``allOf`` part."""
    for key in _CONTAINS:
        out.pop(key, None)
        if key in a:
            out[key] = a[key]
    return [{key: b[key] for key in _CONTAINS if key in b}]


def both(a: Schema, b: Schema) -> Schema:
    """A raw schema valid where ``a`` and ``b`` are; flattened when it is built."""
    if a is True or a == b:
        return b
    if b is True:
        return a
    if a is False or b is False:
        return False
    return {"allOf": [a, b]}


def _intersect_types(a: list[str], b: list[str]) -> list[str]:
    kinds = [kind for kind in a if kind in b]
    if "integer" not in kinds and (
        ("integer" in a and "number" in b) or ("number" in a and "integer" in b)
    ):
        kinds.append("integer")
    if not kinds:
        raise SchemaError(f"allOf requires types {a} and {b}, which have no value in common")
    return kinds


def _multiple(a: float, b: float) -> tuple[float, list[Node]]:
    if isinstance(a, int) and isinstance(b, int):
        return math.lcm(a, b), []
    big, small = max(a, b), min(a, b)
    if (big / small).is_integer():
        return big, []
    return a, [{"multipleOf": b}]


def _merge_prefix(a: Node, b: Node) -> list[Schema]:
    length = max(len(a.get("prefixItems", ())), len(b.get("prefixItems", ())))
    return [both(_position(a, index), _position(b, index)) for index in range(length)]


def _position(node: Node, index: int) -> Schema:
    prefix = node.get("prefixItems", ())
    return prefix[index] if index < len(prefix) else node.get("items", True)


def _merge_properties(a: Node, b: Node, out: Node) -> None:
    keys = dict.fromkeys([*a.get("properties", {}), *b.get("properties", {})])
    out["properties"] = {key: both(governing(a, key), governing(b, key)) for key in keys}
    patterns = dict.fromkeys([*a.get("patternProperties", {}), *b.get("patternProperties", {})])
    if patterns:
        out["patternProperties"] = {
            pattern: both(
                a.get("patternProperties", {}).get(pattern, a.get("additionalProperties", True)),
                b.get("patternProperties", {}).get(pattern, b.get("additionalProperties", True)),
            )
            for pattern in patterns
        }


def governing(node: Node, key: str) -> Schema:
    """The schema a property named ``key`` must satisfy under ``node`` alone."""
    found: list[Schema] = []
    if key in node.get("properties", {}):
        found.append(node["properties"][key])
    for pattern, schema in node.get("patternProperties", {}).items():
        if search(pattern, key):
            found.append(schema)
    if not found:
        return node.get("additionalProperties", True)
    result = found[0]
    for schema in found[1:]:
        result = both(result, schema)
    return result


_CONTAINS = ("contains", "minContains", "maxContains")
# Keywords both nodes carry: how the two values become one (in this order).
_COMBINED: dict[str, Callable[[Any, Any], Any]] = {
    "type": _intersect_types,
    **dict.fromkeys(_LOWER, max),
    **dict.fromkeys(_UPPER, min),
    "const": _same_const,
    "enum": _common_enum,
    "required": _all_required,
    "dependentRequired": _all_dependencies,
    **dict.fromkeys(("items", "propertyNames", "additionalProperties"), both),
}
# Keywords both nodes carry whose values may not fit in one: the rest goes to ``allOf``.
_SPLIT: dict[str, Callable[[Node, Node, Node], list[Node]]] = {
    "multipleOf": _split_multiple,
    "pattern": _split_pattern,
    "contains": _split_contains,
}
