"""Read schemas of older drafts as Draft 2020-12, the only dialect the builders speak.

A Tool accepts draft-04, -06, -07 and 2019-09 schemas and validates them by
their own rules. Generation rewrites their keywords into 2020-12 spellings
with the same meaning (``dependencies``, tuple ``items``, draft-04's boolean
exclusive bounds, ``$ref`` that hides its siblings); the validator still judges
every value against the schema as written.
"""

from __future__ import annotations

import re
from typing import Any

from littleghost._schema import LATEST, Draft, declared_draft, map_subschemas

from ._errors import SchemaError

__all__ = ["KEYWORD_ALIASES", "to_2020_12"]

# What a validator of an older draft calls the keyword a rewritten one came from.
KEYWORD_ALIASES: dict[str, frozenset[str]] = {
    "dependentRequired": frozenset({"dependencies"}),
    "prefixItems": frozenset({"items"}),
    "items": frozenset({"additionalItems"}),
    "exclusiveMaximum": frozenset({"maximum"}),
    "exclusiveMinimum": frozenset({"minimum"}),
}
# What Draft 2020-12 allows as an `$anchor` (an older draft's `id` fragment must be one).
_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")
# Rewritten apart from the other keywords: they change names or shapes.
_REWRITTEN = ("items", "additionalItems", "dependencies", "id")


def to_2020_12(schema: Any) -> Any:
    """``schema`` in Draft 2020-12 spelling (unchanged when it is already 2020-12).

    Keywords the declared draft does not know yet are dropped: its validator
    ignores them, and so must generation.
    """
    draft = declared_draft(schema) if isinstance(schema, dict) else None
    if draft is None or draft is LATEST:
        return schema
    rewritten = _rewrite(schema, draft, is_root=True)
    if isinstance(rewritten, dict):
        rewritten.pop("$schema", None)
    return rewritten


def _rewrite(schema: Any, draft: Draft, *, is_root: bool = False) -> Any:
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    if draft.id_keyword == "id" and is_root and isinstance(schema.get("id"), str):
        out["$id"] = schema["id"]  # draft-04 spells `$id` as `id`
    elif draft.ref_hides_siblings and not is_root:
        out.update(_identifiers(schema, draft))
        schema = {key: value for key, value in schema.items() if key != draft.id_keyword}
    schema = {key: value for key, value in schema.items() if key not in draft.unknown_keywords}
    if draft.ref_hides_siblings and "$ref" in schema:
        # Before 2019-09, $ref replaces the whole schema; only its definitions stay reachable.
        kept = {key: schema[key] for key in ("$ref", "$defs", "definitions") if key in schema}
        schema = kept
    for key, value in schema.items():
        if key not in _REWRITTEN:
            out[key] = map_subschemas(key, value, lambda item, _: _rewrite(item, draft))
    _rewrite_items(schema, out, draft)
    if isinstance(schema.get("dependencies"), dict):
        _rewrite_dependencies(schema["dependencies"], out, draft)
    if draft.id_keyword == "id":  # draft-04
        _rewrite_bounds(out)
    return out


def _identifiers(schema: dict[str, Any], draft: Draft) -> dict[str, str]:
    """A subschema's ``id`` (``$id`` in draft-06/-07) as Draft 2020-12's ``$id`` and ``$anchor``.

    Before 2019-09 one keyword says both: ``"#foo"`` names the subschema (an
    anchor), a URI starts an embedded resource; beside ``$ref`` it says nothing.
    """
    value = schema.get(draft.id_keyword)
    if not isinstance(value, str) or "$ref" in schema:
        return {}
    uri, _, name = value.partition("#")
    out = {"$id": uri} if uri else {}
    if name and not _ANCHOR.fullmatch(name):
        raise SchemaError(
            f"{draft.name} {draft.id_keyword} {value!r} has a fragment that is not a plain name"
        )
    if name:
        out["$anchor"] = name
    return out


def _rewrite_items(schema: dict[str, Any], out: dict[str, Any], draft: Draft) -> None:
    items = schema.get("items")
    if isinstance(items, list) and draft.tuple_items:
        out["prefixItems"] = [_rewrite(item, draft) for item in items]
        if "additionalItems" in schema:
            out["items"] = _rewrite(schema["additionalItems"], draft)
    elif "items" in schema:
        out["items"] = _rewrite(items, draft)


def _rewrite_dependencies(dependencies: dict[str, Any], out: dict[str, Any], draft: Draft) -> None:
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
