"""The JSON Schema keyword vocabulary: where subschemas sit, and what a keyword asserts.

Every pass over a schema that must tell a subschema from data (compiling
patterns, reporting a violation's keyword, rewriting an older draft,
generating values) reads these tables, so that a keyword added here is
walked everywhere at once.
"""

from __future__ import annotations

__all__ = [
    "ANNOTATION_KEYWORDS",
    "DATA_KEYWORDS",
    "IDENTIFYING_KEYWORDS",
    "NEGATED_BOUNDS",
    "REFERENCE_KEYWORDS",
    "REGEX_KEYWORDS",
    "SUBSCHEMA_KEYWORDS",
    "SUBSCHEMA_LIST_KEYWORDS",
    "SUBSCHEMA_MAP_KEYWORDS",
]

SUBSCHEMA_KEYWORDS = frozenset(
    {
        "items", "additionalItems", "contains", "additionalProperties", "unevaluatedProperties",
        "unevaluatedItems", "propertyNames", "not", "if", "then", "else",
    }
)  # fmt: skip
"""Keywords whose value is one subschema (``items`` is a list of them before 2020-12)."""

SUBSCHEMA_LIST_KEYWORDS = frozenset({"prefixItems", "allOf", "anyOf", "oneOf"})
"""Keywords whose value is a list of subschemas."""

SUBSCHEMA_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
"""Keywords whose value maps names (not keywords) to subschemas."""

DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
"""Keywords whose value is instance data: a ``$ref`` or ``$id`` in it is no keyword."""

REGEX_KEYWORDS = frozenset({"pattern", "patternProperties"})
"""Keywords holding ECMA-262 regexes (``patternProperties`` in its keys)."""

REFERENCE_KEYWORDS = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})
"""Keywords naming another schema by URI."""

IDENTIFYING_KEYWORDS = frozenset(
    {"$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema"}
)
"""Keywords that name a schema or its dialect (draft-04 spells ``$id`` as ``id``)."""

ANNOTATION_KEYWORDS = frozenset(
    {
        "$schema", "$id", "$anchor", "$dynamicAnchor", "$comment", "$defs", "definitions",
        "$vocabulary", "title", "description", "default", "examples", "deprecated", "readOnly",
        "writeOnly", "format", "contentEncoding", "contentMediaType", "contentSchema",
        "minContains", "maxContains",
    }
)  # fmt: skip
"""Keywords no value fails, whatever their value: annotations, identifiers, definitions.

``format`` is an annotation (littleghost never asserts it); ``minContains`` and
``maxContains`` assert nothing without ``contains``.
"""

NEGATED_BOUNDS = {
    "minimum": "exclusiveMaximum",
    "exclusiveMinimum": "maximum",
    "maximum": "exclusiveMinimum",
    "exclusiveMaximum": "minimum",
}
"""Each numeric bound, and the bound that holds exactly for the numbers failing it."""
