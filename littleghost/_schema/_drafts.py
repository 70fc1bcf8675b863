"""The JSON Schema drafts littleghost knows: their ``$schema`` URIs and how they differ.

One list for every reader of ``$schema``: the metaschema check (a known URI
is checked offline), compiling on first use (a draft that names base URIs
``$id``), and the strategies' rewrite of older drafts into 2020-12 spelling.
A ``$schema`` not listed here is no draft: the reference check decides what
it means, and the validator refuses to fetch it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["DRAFTS", "LATEST", "Draft", "declared_draft", "draft_named"]


@dataclass(frozen=True, slots=True)
class Draft:
    """One draft, and what sets it apart from Draft 2020-12."""

    name: str  # "2020-12", "2019-09", "draft-07", "draft-06", "draft-04"
    path: str  # its place under json-schema.org: "draft/2020-12", "draft-07"
    id_keyword: str  # what names a base URI: "$id", or draft-04's "id"
    ref_hides_siblings: bool  # before 2019-09, ``$ref`` replaces the schema it sits in
    tuple_items: bool  # ``items: [...]`` with ``additionalItems``, before 2020-12
    unknown_keywords: frozenset[str]  # later keywords, which its validator ignores
    regex_format_asserted: bool  # its metaschema checks ``pattern`` as ``format: regex``

    @property
    def uris(self) -> tuple[str, ...]:
        """Every spelling of its metaschema's URI a ``$schema`` may use."""
        return tuple(
            f"{scheme}://json-schema.org/{self.path}/schema{suffix}"
            for scheme in ("http", "https")
            for suffix in ("", "#")
        )


_LATER_THAN_2019 = frozenset({"prefixItems", "$dynamicRef", "$dynamicAnchor"})
_LATER_THAN_07 = _LATER_THAN_2019 | {
    "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
    "minContains", "maxContains",
}  # fmt: skip
_LATER_THAN_06 = _LATER_THAN_07 | {"if", "then", "else"}
_LATER_THAN_04 = _LATER_THAN_06 | {"const", "contains", "propertyNames"}

LATEST = Draft("2020-12", "draft/2020-12", "$id", False, False, frozenset(), False)
"""Draft 2020-12: the draft of a schema without ``$schema``, and the builders' only dialect."""

DRAFTS = (
    LATEST,
    Draft("2019-09", "draft/2019-09", "$id", False, True, _LATER_THAN_2019, False),
    Draft("draft-07", "draft-07", "$id", True, True, _LATER_THAN_07, True),
    Draft("draft-06", "draft-06", "$id", True, True, _LATER_THAN_06, True),
    Draft("draft-04", "draft-04", "id", True, True, _LATER_THAN_04, True),
)
"""Every draft a schema may declare, newest first."""

_BY_URI = {uri: draft for draft in DRAFTS for uri in draft.uris}


def draft_named(uri: object) -> Draft | None:
    """The draft whose metaschema ``uri`` names; ``None`` for any other value."""
    return _BY_URI.get(uri) if isinstance(uri, str) else None


def declared_draft(schema: Mapping[str, object]) -> Draft | None:
    """The draft a root schema declares: 2020-12 without ``$schema``, ``None`` if unknown."""
    if "$schema" not in schema:
        return LATEST
    return draft_named(schema["$schema"])
