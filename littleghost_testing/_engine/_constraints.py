"""The constraint a tool's refusal of a schema-valid input names, and its schema lacks.

A tool that raises ``ValueError("max_results must be an integer >= 1")`` for
``{"max_results": 0}`` did not crash: it checks a rule its ``inputSchema`` does
not state (``minimum: 1``), so an agent cannot know it before calling. The rule
is read from the refusal's words ("at least 3 characters", "must be one of",
"cannot be empty"), and the property from the schema's names it mentions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._crashes import MAX_EXAMINED_CHARS, refusal_in_crash_words
from ._hollow import masked

__all__ = ["looser_schema", "missing_constraint"]

_NUMBER = r"(-?\d+(?:\.\d+)?)"
_UNIT = r"(?:\s+(characters?|chars?|letters?|items?|elements?|entries|values?))?"
_LENGTHS = {"minimum": "minLength", "maximum": "maxLength"}
_COUNTS = {"minimum": "minItems", "maximum": "maxItems"}

_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\bbetween\s+{_NUMBER}\s+and\s+{_NUMBER}{_UNIT}", re.I), "range"),
    (
        re.compile(
            rf"(?:>=|≥|=>|\bat least|\bno (?:less|fewer) than|\bnot (?:less|fewer) than"
            rf"|\bminimum(?: is| of)?:?)\s*{_NUMBER}{_UNIT}",
            re.I,
        ),
        "minimum",
    ),
    (
        re.compile(
            rf"(?:<=|≤|=<|\bat most|\bno (?:more|greater) than|\bnot (?:more|greater) than"
            rf"|\bmaximum(?: is| of)?:?|\bup to)\s*{_NUMBER}{_UNIT}",
            re.I,
        ),
        "maximum",
    ),
    (re.compile(rf"(?:>|\bgreater than|\bmore than|\babove)\s*{_NUMBER}", re.I), "exclusiveMin"),
    (re.compile(rf"(?:<|\bless than|\bfewer than|\bbelow)\s*{_NUMBER}", re.I), "exclusiveMax"),
    (re.compile(r"\bnon-?negative\b", re.I), "minimum: 0"),
    (re.compile(r"\bpositive\b", re.I), "exclusiveMinimum: 0"),
    (
        re.compile(
            r"\b(?:must be|should be|expected)\s+(?:one of|in)\b|\b(?:valid|allowed|supported)"
            r" (?:values|options|choices) (?:are|is)\b",
            re.I,
        ),
        "enum",
    ),
    (
        re.compile(
            r"\b(?:must not|cannot|can't|may not|should not) be empty\b"
            r"|\bmust be non-?empty\b|\bis empty\b|\bempty \w+ (?:is )?not allowed\b",
            re.I,
        ),
        "minLength: 1",
    ),
    (
        re.compile(r"\b(?:must|should|does not|doesn't) match\b|\binvalid format\b", re.I),
        "pattern",
    ),
    (
        re.compile(
            r"\bmust be an? (integer|number|string|boolean|array|list|object|whole number)\b",
            re.I,
        ),
        "type",
    ),
]
"""Each refusal wording, and the JSON Schema keyword it names (first match wins)."""

_TYPES = {"list": "array", "whole number": "integer"}


def looser_schema(text: str, tool_name: str, schema: Any, sent: Any = None) -> str | None:
    """What a valid input's ``isError`` text shows the schema lacks, or ``None``.

    A deliberate exception FastMCP words as a crash always says something (the
    constraint, else that the schema admits what the tool refuses); any other
    refusal only when its words name a constraint ("order not found" does not).
    The input ``sent`` is masked out first (its values, and keys the schema does not
    name): its own strings name no rule. An SDK's
    validation report (pydantic's for an unknown key) is the SDK's, not the tool's.
    """
    if len(text) > MAX_EXAMINED_CHARS or _VALIDATION_REPORT.search(text):
        return None
    message = refusal_in_crash_words(text, tool_name)
    refusal = text if message is None else message
    # Not its numbers: "must be greater than 0" refuses the 0 it names.
    words = masked(refusal, sent, keys=_unknown_keys(sent, schema), numbers=False)
    constraint = missing_constraint(words, schema)
    if constraint is not None:
        return f"the schema lacks {constraint}: the tool refused {text!r}"
    if message is not None:
        return f"the schema admits an input the tool refuses: {text!r}"
    return None


_VALIDATION_REPORT = re.compile(r"validation error", re.I)


def _unknown_keys(sent: Any, schema: Any) -> list[str]:
    """The input's top-level keys the schema does not name: made up, so they name no rule."""
    if not isinstance(sent, Mapping):
        return []
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    known = properties if isinstance(properties, Mapping) else {}
    return [str(key) for key in sent if key not in known]


def missing_constraint(message: str, schema: Any) -> str | None:
    """The keyword (and value) ``message`` names, at the property it names, or ``None``."""
    for pattern, keyword in _RULES:
        match = pattern.search(message)
        if match is None:
            continue
        where = _property(message, schema)
        return _constraint(keyword, match) + ("" if where is None else f" at $.{where}")
    return None


def _constraint(keyword: str, match: re.Match[str]) -> str:
    if keyword == "range":
        low, high, unit = match.groups()
        return f"{_sized('minimum', unit)}: {low}, {_sized('maximum', unit)}: {high}"
    if keyword in ("minimum", "maximum"):
        number, unit = match.groups()
        return f"{_sized(keyword, unit)}: {number}"
    if keyword in ("exclusiveMin", "exclusiveMax"):
        return f"{keyword}imum: {match.group(1)}"
    if keyword == "type":
        named = match.group(1).lower()
        return f"type: {_TYPES.get(named, named)}"
    return keyword


def _sized(keyword: str, unit: str | None) -> str:
    """``minimum``, or ``minLength`` for characters, ``minItems`` for items."""
    if unit is None:
        return keyword
    if unit.lower().startswith(("char", "letter")):
        return _LENGTHS[keyword]
    return _COUNTS[keyword]


def _property(message: str, schema: Any) -> str | None:
    """The schema's top-level property the message names (the longest, if several)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return None
    named = [
        name
        for name in properties
        if isinstance(name, str) and name and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", message)
    ]
    return max(named, key=len) if named else None
