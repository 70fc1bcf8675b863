r"""ECMA-262 regular expressions as other engines spell them: the shared tables.

JSON Schema patterns are ECMA-262, and no engine littleghost uses reads them
alike: ``\d``, ``\w`` and ``\b`` are ASCII, ``\s`` is ECMA's whitespace, ``.``
stops at line terminators, ``$`` never matches before a trailing newline,
``[]`` matches nothing and ``[^]`` anything. Three translations read a pattern,
each for one engine, and spell these classes from the tables below:

- the validator's linear-time engine (jsonschema-rs, the Rust ``regex``
  crate) already gives the classes their ECMA meaning: only ``\b`` and ``\B``
  are made ASCII (``_validation._compile``);
- lookaround and backreferences run on the backtracking ``regex`` package,
  which must match exactly what the pattern says, lookaround and ``\k<name>``
  included (``_backtracking``);
- the strategies generate strings with Hypothesis from Python ``re``, which
  has no ``\p{...}`` and cannot generate lookaround: their translation spells
  ``\p`` out, drops or approximates lookaround, and tracks the pattern's shape
  to fit lengths (``littleghost_testing.strategies._ecma``). Its strings are
  then judged by the validator's engine, so an approximation never lets a
  wrong string through.

The spellings below are read alike by ``re`` and ``regex``.
"""

from __future__ import annotations

__all__ = [
    "CLASS_ESCAPES",
    "CONTROL_ESCAPES",
    "EMPTY_CLASS",
    "FULL_CLASS",
    "LETTER_ESCAPES",
    "LINE_TERMINATORS",
    "NOT_LINE_TERMINATOR",
    "WHITESPACE",
    "WORD_BOUNDARIES",
]

WHITESPACE = (
    "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
"""What ``\\s`` matches: ECMA-262's WhiteSpace and LineTerminator, as a class body."""

CLASS_ESCAPES = {"d": "0-9", "w": "A-Za-z0-9_", "s": WHITESPACE}
"""``\\d``, ``\\w`` and ``\\s`` as class bodies (``\\D``, ``\\W``, ``\\S`` negate them)."""

CONTROL_ESCAPES = {"t": "\\t", "n": "\\n", "v": "\\v", "f": "\\f", "r": "\\r"}
"""ECMA-262's control escapes."""

LINE_TERMINATORS = "\\n\\r\\u2028\\u2029"
"""What ``.`` does not match, as a class body."""

NOT_LINE_TERMINATOR = f"[^{LINE_TERMINATORS}]"
"""What ``.`` matches."""

_WORD = "[A-Za-z0-9_]"
WORD_BOUNDARIES = {
    "b": f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))",
    "B": f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))",
}
"""ECMA-262's ASCII ``\\b`` and ``\\B`` in lookaround, which every backtracking engine
reads alike: ECMA-262 itself (a draft-07 metaschema's ``format: regex``), fancy-regex,
and every ``regex`` release (2024.4.16, the floor, reads ``(?a:\\b)`` as Unicode-aware)."""

EMPTY_CLASS = "(?!)"
"""ECMA-262's ``[]``: a class that matches nothing."""

FULL_CLASS = "[\\s\\S]"
"""ECMA-262's ``[^]``: any character."""

LETTER_ESCAPES = frozenset("bBdDwWsStnvfrcxukpP")
"""Escapes of an ASCII letter that ECMA-262 defines; any other (``\\A``, ``\\Z``, ``\\h``)
means something else to each engine, or nothing."""
