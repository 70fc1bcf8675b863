"""Strings matching a JSON Schema ``pattern``, judged by the validator's own regex engine."""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections.abc import Callable

import jsonschema_rs
from hypothesis import HealthCheck, Phase, currently_in_test_context, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from littleghost import ConfigurationError
from littleghost._validation import SchemaValidator, compile_instance_validator

from ._ecma import Piece, Spans, translate
from ._errors import SchemaError, Unsupported

__all__ = ["matcher", "pattern_strings", "search"]

# The probe expects rejections: it reports them itself.
_PROBE_HEALTH_CHECKS = [
    HealthCheck.filter_too_much,
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
]
# How many extra repetitions an unbounded quantifier gets at most.
_SPARE = 8


@functools.lru_cache(maxsize=4096)
def matcher(pattern: str) -> Callable[[str], bool]:
    """``pattern``'s ECMA-262 search, exactly as littleghost validates it.

    The linear-time engine answers when it can run the pattern; otherwise
    (lookaround, backreferences) the Tool validator's own engine does.
    """
    try:
        return compile_instance_validator({"pattern": pattern}).is_valid
    except (jsonschema_rs.ValidationError, ValueError):
        pass
    try:
        return SchemaValidator({"pattern": pattern}).is_valid
    except ConfigurationError as error:
        raise SchemaError(
            f"pattern {pattern!r} is not a usable regular expression: {error}"
        ) from None


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
            raise Unsupported(f"pattern {pattern!r} cannot be generated: {error}") from None
        base = st.from_regex(compiled)
        if min_size or max_size is not None:
            limit = math.inf if max_size is None else max_size
            base = base.filter(lambda text: min_size <= len(text) <= limit)
    strategy = base.filter(matcher(pattern))
    if translation.approximate and not currently_in_test_context():
        # Inside a running test, a probe would nest one Hypothesis run in another.
        _probe(pattern, strategy)
    return strategy


def _probe(pattern: str, strategy: st.SearchStrategy[str]) -> None:
    """Fail now, not mid-run, if the approximation of a lookaround pattern never matches."""
    probe = settings(
        max_examples=1,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=_PROBE_HEALTH_CHECKS,
    )
    try:
        find(strategy, _anything, settings=probe)
    except (NoSuchExample, Unsatisfiable):
        raise SchemaError(
            f"pattern {pattern!r}: no string generated for it matched "
            f"(its lookaround or backreference could not be approximated)"
        ) from None


def _anything(_: str) -> bool:
    return True


def _shaped(
    pattern: str, pieces: tuple[Piece, ...], min_size: int, max_size: int | None
) -> st.SearchStrategy[str]:
    """An anchored sequence of one-character atoms: choose each repeat count to fit the length."""
    limit = math.inf if max_size is None else max_size
    if sum(piece.low for piece in pieces) > limit or sum(piece.high for piece in pieces) < min_size:
        raise SchemaError(f"pattern {pattern!r} matches no string of length {min_size}..{max_size}")
    atoms = [
        st.from_regex(re.compile(piece.atom, re.ASCII), fullmatch=True)
        if piece.spans is None
        else characters_in(piece.spans)
        for piece in pieces
    ]
    lows = [piece.low for piece in pieces]
    highs = [piece.high for piece in pieces]

    return _fitted(atoms, lows, highs, min_size, limit)


@functools.lru_cache(maxsize=64)
def characters_in(spans: Spans) -> st.SearchStrategy[str]:
    """One character from ``spans``, picked by its index among them (shrinks to the first).

    ``st.from_regex`` would list the class character by character on its first
    draw: 1.3 s of CPU for ``\\p{Letter}``'s 140 000, more than a 50-value run.
    """
    firsts = [first for first, _ in spans]
    # The index, among all the spans' characters, of each span's first one.
    starts = list(itertools.accumulate((last - first + 1 for first, last in spans), initial=0))

    def nth(index: int) -> str:
        span = bisect.bisect_right(starts, index) - 1
        return chr(firsts[span] + index - starts[span])

    return st.integers(0, starts[-1] - 1).map(nth)


# Module level: Hypothesis inspects a composite's source once, when it is decorated.
@st.composite
def _fitted(
    draw: st.DrawFn,
    atoms: list[st.SearchStrategy[str]],
    lows: list[int],
    highs: list[float],
    min_size: int,
    limit: float,
) -> str:
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
