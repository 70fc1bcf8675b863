"""Schema intake in one place: the drafts, the keyword vocabulary, the walks, ECMA-262.

Every reader of a declared schema (the metaschema check, compiling, the
input report, MCP discovery's bounds, the testing kit's strategies) learns
from this package which ``$schema`` URIs name which draft (``_drafts``),
where subschemas sit and what a keyword asserts (``_keywords``), how to step
from a schema to its subschemas (``_walk``), how to check, measure and freeze
a whole tree in one bounded pass (``_fast_walk``, ``_first_use``), and how the
ECMA-262 classes are spelled for each regex engine (``_ecma``).

The rest of littleghost (and the testing kit) imports from this package's
``__init__`` only; its modules are private to it.
"""

from __future__ import annotations

from ._drafts import DRAFTS, LATEST, Draft, declared_draft, draft_named
from ._ecma import (
    CLASS_ESCAPES,
    CONTROL_ESCAPES,
    EMPTY_CLASS,
    FULL_CLASS,
    LETTER_ESCAPES,
    LINE_TERMINATORS,
    NOT_LINE_TERMINATOR,
    WHITESPACE,
    WORD_BOUNDARIES,
)
from ._fast_walk import (
    Measured,
    Regexes,
    compiles_on_first_use_walked,
    freeze_metered,
    freeze_within,
    measure_within,
    nests_within,
    regexes_to_check,
)
from ._first_use import compiles_on_first_use
from ._keywords import (
    ANNOTATION_KEYWORDS,
    DATA_KEYWORDS,
    IDENTIFYING_KEYWORDS,
    NEGATED_BOUNDS,
    REFERENCE_KEYWORDS,
    REGEX_KEYWORDS,
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
)
from ._walk import Steps, map_subschemas

__all__ = [
    "ANNOTATION_KEYWORDS",
    "CLASS_ESCAPES",
    "CONTROL_ESCAPES",
    "DATA_KEYWORDS",
    "DRAFTS",
    "EMPTY_CLASS",
    "FULL_CLASS",
    "IDENTIFYING_KEYWORDS",
    "LATEST",
    "LETTER_ESCAPES",
    "LINE_TERMINATORS",
    "NEGATED_BOUNDS",
    "NOT_LINE_TERMINATOR",
    "REFERENCE_KEYWORDS",
    "REGEX_KEYWORDS",
    "SUBSCHEMA_KEYWORDS",
    "SUBSCHEMA_LIST_KEYWORDS",
    "SUBSCHEMA_MAP_KEYWORDS",
    "WHITESPACE",
    "WORD_BOUNDARIES",
    "Draft",
    "Measured",
    "Regexes",
    "Steps",
    "compiles_on_first_use",
    "compiles_on_first_use_walked",
    "declared_draft",
    "draft_named",
    "freeze_metered",
    "freeze_within",
    "map_subschemas",
    "measure_within",
    "nests_within",
    "regexes_to_check",
]
