"""Which schemas may compile on first use rather than when they are declared.

Compiling a schema into a jsonschema-rs validator is most of what a tool
costs at creation: an MCP catalog of a thousand tools pays it a thousand
times at discovery, though a run calls a few of them. A schema that passed
the metaschema check can still fail to compile in two ways only: a regular
expression (``pattern``, ``patternProperties``) the engines refuse, or a
reference (``$ref`` and its kin, a base URI, a ``$schema`` to resolve) that
does not resolve. A schema with neither compiles on first use; any other
compiles at once, so every invalid schema still fails when it is declared
(discovery, for MCP tools). The one-pass walk of ``_schema_walk`` also lets
local references ("#/$defs/name") wait, once it has resolved each of them,
and regexes, once each compiles alone (``_validation.regexes_compile``).
"""

from __future__ import annotations

__all__ = ["FALLIBLE_KEYS", "compiles_on_first_use", "declares_known_draft"]

# Keys that make compiling fallible; ``$schema`` is fine once, at the root, naming a
# draft below.
FALLIBLE_KEYS = frozenset(
    {
        "pattern",
        "patternProperties",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$recursiveAnchor",
        "$schema",
    }
)
# The same keys as they appear in ``json.dumps`` output. A property or a value
# spelled the same way only makes the check conservative.
_QUOTED = tuple(f'"{key}"' for key in sorted(FALLIBLE_KEYS - {"$schema"}))
# ``$schema`` values whose drafts name base URIs ``$id``, as the keys above expect
# (draft-04 spells it ``id``, a common property name).
_DRAFTS = frozenset(
    f"{scheme}://json-schema.org/{draft}/schema{suffix}"
    for scheme in ("http", "https")
    for draft in ("draft/2020-12", "draft/2019-09", "draft-07", "draft-06")
    for suffix in ("", "#")
)


def declares_known_draft(schema: dict[str, object]) -> bool:
    """Whether the root ``$schema`` is absent or names one of the drafts above."""
    return "$schema" not in schema or schema["$schema"] in _DRAFTS


def compiles_on_first_use(schema: dict[str, object], text: str) -> bool:
    """Whether ``schema`` (metaschema-valid, ``text`` its ``json.dumps``) cannot fail to compile."""
    if any(key in text for key in _QUOTED):
        return False
    at_root = 1 if "$schema" in schema else 0
    return text.count('"$schema"') == at_root and declares_known_draft(schema)
