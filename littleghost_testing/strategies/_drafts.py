"""Read schemas of older drafts as Draft 2020-12, the only dialect the builders speak.

A Tool accepts draft-04, -06, -07 and 2019-09 schemas and validates them by
their own rules. Generation rewrites their keywords into 2020-12 spellings
with the same meaning (``dependencies``, tuple ``items``, draft-04's boolean
exclusive bounds, ``$ref`` that hides its siblings); the validator still judges
every value against the schema as written.
"""

from __future__ import annotations

from typing import Any

from ._errors import SchemaError

__all__ = ["KEYWORD_ALIASES", "to_2020_12"]

_DRAFT_04 = "draft-04"
_OLD_REF = ("draft-04", "draft-06", "draft-07")  # $ref hides its siblings
_TUPLE_ITEMS = (*_OLD_REF, "2019-09")  # `items: [...]` and `additionalItems`
# What a validator of an older draft calls the keyword a rewritten one came from.
KEYWORD_ALIASES: dict[str, frozenset[str]] = {
    "dependentRequired": frozenset({"dependencies"}),
    "prefixItems": frozenset({"items"}),
    "items": frozenset({"additionalItems"}),
    "exclusiveMaximum": frozenset({"maximum"}),
    "exclusiveMinimum": frozenset({"minimum"}),
}
# Keywords a draft does not know yet: its validator ignores them, and so must generation.
_LATER_THAN_2019 = frozenset({"prefixItems", "$dynamicRef", "$dynamicAnchor"})
_LATER_THAN_07 = _LATER_THAN_2019 | {
    "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
    "minContains", "maxContains",
}  # fmt: skip
_LATER_THAN_06 = _LATER_THAN_07 | {"if", "then", "else"}
_UNKNOWN = {
    "2019-09": _LATER_THAN_2019,
    "draft-07": _LATER_THAN_07,
    "draft-06": _LATER_THAN_06,
    "draft-04": _LATER_THAN_06 | {"const", "contains", "propertyNames"},
}
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SINGLE = (
    "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else",
    "unevaluatedProperties", "unevaluatedItems",
)  # fmt: skip


def dialect(schema: Any) -> str | None:
    """The older draft a schema declares (``"draft-07"``, ``"2019-09"``...), or None."""
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    if not isinstance(declared, str):
        return None
    return next((draft for draft in _TUPLE_ITEMS if draft in declared), None)


def to_2020_12(schema: Any) -> Any:
    """``schema`` in Draft 2020-12 spelling (unchanged when it is already 2020-12)."""
    draft = dialect(schema)
    if draft is None:
        return schema
    rewritten = _rewrite(schema, draft, is_root=True)
    if isinstance(rewritten, dict):
        rewritten.pop("$schema", None)
    return rewritten


def _rewrite(schema: Any, draft: str, *, is_root: bool = False) -> Any:
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    if draft == _DRAFT_04 and isinstance(schema.get("id"), str):
        # Draft-04 spells `$id` as `id`: at the root it is the base every `$ref` resolves
        # against; inside, it starts an embedded resource, which is not supported.
        if not is_root:
            raise SchemaError(
                "draft-04 `id` inside a subschema (an embedded resource) is not supported"
            )
        out["$id"] = schema["id"]
    schema = {key: value for key, value in schema.items() if key not in _UNKNOWN[draft]}
    if draft in _OLD_REF and "$ref" in schema:
        # Before 2019-09, $ref replaces the whole schema; only its definitions stay reachable.
        kept = {key: schema[key] for key in ("$ref", "$defs", "definitions") if key in schema}
        schema = kept
    for key, value in schema.items():
        if key in _MAPS and isinstance(value, dict):
            out[key] = {name: _rewrite(item, draft) for name, item in value.items()}
        elif key in _LISTS and isinstance(value, list):
            out[key] = [_rewrite(item, draft) for item in value]
        elif key in _SINGLE:
            out[key] = _rewrite(value, draft)
        elif key not in ("items", "additionalItems", "dependencies", "id"):
            out[key] = value
    _rewrite_items(schema, out, draft)
    if isinstance(schema.get("dependencies"), dict):
        _rewrite_dependencies(schema["dependencies"], out, draft)
    if draft == _DRAFT_04:
        _rewrite_bounds(out)
    return out


def _rewrite_items(schema: dict[str, Any], out: dict[str, Any], draft: str) -> None:
    items = schema.get("items")
    if isinstance(items, list) and draft in _TUPLE_ITEMS:
        out["prefixItems"] = [_rewrite(item, draft) for item in items]
        if "additionalItems" in schema:
            out["items"] = _rewrite(schema["additionalItems"], draft)
    elif "items" in schema:
        out["items"] = _rewrite(items, draft)


def _rewrite_dependencies(dependencies: dict[str, Any], out: dict[str, Any], draft: str) -> None:
    for key, value in dependencies.items():
        if isinstance(value, list):
            out.setdefault("dependentRequired", {})[key] = value
        else:
            out.setdefault("dependentSchemas", {})[key] = _rewrite(value, draft)


def _rewrite_bounds(out: dict[str, Any]) -> None:
    """Draft-04's ``exclusiveMaximum: true`` makes ``maximum`` exclusive."""
    for exclusive, bound in (("exclusiveMaximum", "maximum"), ("exclusiveMinimum", "minimum")):
        flag = out.pop(exclusive, None)
        if flag is True and bound in out:
            out[exclusive] = out.pop(bound)
