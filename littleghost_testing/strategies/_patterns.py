"""Strings matching a JSON Schema ``pattern``, judged by the validator's own regex engine."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable

import jsonschema_rs
from hypothesis import strategies as st

from littleghost._validation import compile_instance_validator

from ._ecma import Piece, translate
from ._errors import SchemaError

__all__ = ["matcher", "pattern_strings", "search"]

# How many extra repetitions an unbounded quantifier gets at most.
_SPARE = 8


@functools.lru_cache(maxsize=4096)
def matcher(pattern: str) -> Callable[[str], bool]:
    """``pattern``'s ECMA-262 search, exactly as littleghost validates it."""
    try:
        validator = compile_instance_validator({"pattern": pattern})
    except (jsonschema_rs.ValidationError, ValueError) as error:
        raise SchemaError(
            f"pattern {pattern!r} is not a usable regular expression: {error}"
        ) from None
    return validator.is_valid


def search(pattern: str, text: str) -> bool:
    return matcher(pattern)(text)


@functools.lru_cache(maxsize=1024)
def pattern_strings(
    pattern: str, min_size: int = 0, max_size: int | None = None
) -> st.SearchStrategy[str]:
    """Strings containing a match for ``pattern``, with a length in ``[min_size, max_size]``."""
    translation = translate(pattern)
    if translation.pieces is not None:
        base = _shaped(pattern, translation.pieces, min_size, max_size)
    else:
        try:
            compiled = re.compile(translation.source, re.ASCII)
        except re.error as error:
            raise SchemaError(f"pattern {pattern!r} cannot be generated: {error}") from None
        base = st.from_regex(compiled)
        if min_size or max_size is not None:
            limit = math.inf if max_size is None else max_size
            base = base.filter(lambda text: min_size <= len(text) <= limit)
    return base.filter(matcher(pattern))


def _shaped(
    pattern: str, pieces: tuple[Piece, ...], min_size: int, max_size: int | None
) -> st.SearchStrategy[str]:
    """An anchored sequence of one-character atoms: choose each repeat count to fit the length."""
    limit = math.inf if max_size is None else max_size
    if sum(piece.low for piece in pieces) > limit or sum(piece.high for piece in pieces) < min_size:
        raise SchemaError(f"pattern {pattern!r} matches no string of length {min_size}..{max_size}")
    atoms = [st.from_regex(re.compile(piece.atom, re.ASCII), fullmatch=True) for piece in pieces]
    lows = [piece.low for piece in pieces]
    highs = [piece.high for piece in pieces]

    @st.composite
    def build(draw: st.DrawFn) -> str:
        used = 0
        out: list[str] = []
        for index, atom in enumerate(atoms):
            low = max(lows[index], min_size - used - sum(highs[index + 1 :]))
            high = min(highs[index], limit - used - sum(lows[index + 1 :]))
            high = min(high, low + _SPARE)
            count = int(low) if high <= low else draw(st.integers(int(low), int(high)))
            out += draw(st.lists(atom, min_size=count, max_size=count))
            used += count
        return "".join(out)

    return build()
