"""Which schemas may compile on first use rather than when they are declared.

Compiling a schema into a jsonschema-rs validator is most of what a tool
costs at creation: an MCP catalog of a thousand tools pays it a thousand
times at discovery, though a run calls a few of them. A schema that passed
the metaschema check can still fail to compile in two ways only: a regular
expression (``pattern``, ``patternProperties``) the engines refuse, or a
reference (``$ref`` and its kin, a base URI, a ``$schema`` to resolve) that
does not resolve. A schema with neither compiles on first use; any other
compiles at once, so every invalid schema still fails when it is declared
(discovery, for MCP tools).
"""

from __future__ import annotations

__all__ = ["compiles_on_first_use"]

# Keys that make compiling fallible, as they appear in ``json.dumps`` output.
# A property or value spelled the same way only makes the check conservative.
_FALLIBLE = (
    '"pattern"',
    '"patternProperties"',
    '"$ref"',
    '"$dynamicRef"',
    '"$recursiveRef"',
    '"$id"',
    '"$anchor"',
    '"$dynamicAnchor"',
    '"$recursiveAnchor"',
)
# ``$schema`` values whose drafts name base URIs ``$id``, as the keys above expect
# (draft-04 spells it ``id``, a common property name).
_DRAFTS = frozenset(
    f"{scheme}://json-schema.org/{draft}/schema{suffix}"
    for scheme in ("http", "https")
    for draft in ("draft/2020-12", "draft/2019-09", "draft-07", "draft-06")
    for suffix in ("", "#")
)


def compiles_on_first_use(schema: dict[str, object], text: str) -> bool:
    """Whether ``schema`` (metaschema-valid, ``text`` its ``json.dumps``) cannot fail to compile."""
    if any(key in text for key in _FALLIBLE):
        return False
    declared = text.count('"$schema"')
    return declared == 0 or (declared == 1 and schema.get("$schema") in _DRAFTS)
