"""Which schemas may compile on first use rather than when they are declared.

Compiling a schema into a jsonschema-rs validator is most of what a tool
costs at creation: an MCP catalog of a thousand tools pays it a thousand
times at discovery, though a run calls a few of them. A schema that passed
the metaschema check can still fail to compile in two ways only: a regular
expression (``pattern``, ``patternProperties``) the engines refuse, or a
reference (``$ref`` and its kin, a base URI, a ``$schema`` to resolve) that
does not resolve. A schema with neither compiles on first use; any other
compiles at once, so every invalid schema still fails when it is declared
(discovery, for MCP tools). The one-pass walk of ``_fast_walk`` also lets
local references ("#/$defs/name") wait, once it has resolved each of them
to a subschema the metaschema check has seen, and regexes, once each
compiles alone as the schema's draft compiles it (``_validation.regexes_compile``).
"""

from __future__ import annotations

from ._drafts import declared_draft
from ._keywords import IDENTIFYING_KEYWORDS, REFERENCE_KEYWORDS, REGEX_KEYWORDS

__all__ = ["FALLIBLE_KEYS", "compiles_on_first_use", "declares_known_draft"]

FALLIBLE_KEYS = REGEX_KEYWORDS | REFERENCE_KEYWORDS | IDENTIFYING_KEYWORDS
"""Keys that make compiling fallible; ``$schema`` is fine once, at the root, naming a draft
whose base URIs are ``$id`` (draft-04 spells it ``id``, a common property name)."""
# The same keys as they appear in ``json.dumps`` output. A property or a value
# spelled the same way only makes the check conservative.
_QUOTED = tuple(f'"{key}"' for key in sorted(FALLIBLE_KEYS - {"$schema"}))


def declares_known_draft(schema: dict[str, object]) -> bool:
    """Whether the root ``$schema`` is absent or names a draft whose base URIs are ``$id``."""
    draft = declared_draft(schema)
    return draft is not None and draft.id_keyword == "$id"


def compiles_on_first_use(schema: dict[str, object], text: str) -> bool:
    """Whether ``schema`` (metaschema-valid, ``text`` its ``json.dumps``) cannot fail to compile."""
    if any(key in text for key in _QUOTED):
        return False
    at_root = 1 if "$schema" in schema else 0
    return text.count('"$schema"') == at_root and declares_known_draft(schema)
