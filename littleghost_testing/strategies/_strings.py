"""Strings: a pattern, a known format, or plain text, always within the length bounds.

Length is counted in code points, as JSON Schema specifies. Text never holds
lone surrogates: they cannot travel as UTF-8 JSON to a tool.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ._errors import SchemaError
from ._formats import FORMATS
from ._patterns import pattern_strings

__all__ = ["LONG", "TEXT_ALPHABET", "repeated", "strings"]

Node = dict[str, Any]
TEXT_ALPHABET = st.characters(codec="utf-8")
# Past this length, values are built by repetition so Hypothesis's buffer is not overrun.
LONG = 500
# Most generated format values are between these lengths.
_FORMAT_MIN, _FORMAT_MAX = 1, 48


def strings(node: Node) -> st.SearchStrategy[str]:
    low = node.get("minLength", 0)
    high = node.get("maxLength")
    if high is not None and low > high:
        raise SchemaError(f"minLength {low} is greater than maxLength {high}")
    if "pattern" in node:
        return pattern_strings(node["pattern"], low, high)
    known = FORMATS.get(node.get("format", ""))
    if known is not None and low <= _FORMAT_MIN and (high is None or high >= _FORMAT_MAX):
        # Loose bounds: format values almost always fit, so a filter rarely rejects.
        # Tight bounds get plain text: a format is only an annotation in 2020-12.
        return known.filter(lambda text: low <= len(text) and (high is None or len(text) <= high))
    if low > LONG:
        return repeated(st.text(TEXT_ALPHABET, min_size=1, max_size=8), low, high)
    return st.text(TEXT_ALPHABET, min_size=low, max_size=high)


def repeated(part: st.SearchStrategy[Any], low: int, high: int | None) -> st.SearchStrategy[Any]:
    """A short draw repeated up to a length Hypothesis could not draw item by item."""
    length = st.integers(low, low + 8 if high is None else min(high, low + 8))
    return st.tuples(part, length).map(
        lambda pair: (pair[0] * (pair[1] // len(pair[0]) + 1))[: pair[1]]
    )
