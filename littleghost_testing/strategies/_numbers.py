"""Integers and numbers inside their bounds, built as multiples where ``multipleOf`` asks.

Integers are never ``bool``; numbers mix integers and finite floats.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from ._errors import SchemaError

__all__ = ["divides_in_floats", "integers", "numbers"]

Node = dict[str, Any]
_FLOAT_MAX = sys.float_info.max


def _bounds(node: Node) -> tuple[float, float, bool, bool]:
    """The effective ``(low, high, low_excluded, high_excluded)`` of a node."""
    low, high = -math.inf, math.inf
    low_open = high_open = False
    if "minimum" in node:
        low = node["minimum"]
    if "exclusiveMinimum" in node and node["exclusiveMinimum"] >= low:
        low, low_open = node["exclusiveMinimum"], True
    if "maximum" in node:
        high = node["maximum"]
    if "exclusiveMaximum" in node and node["exclusiveMaximum"] <= high:
        high, high_open = node["exclusiveMaximum"], True
    return low, high, low_open, high_open


def _integer_bounds(node: Node) -> tuple[int | None, int | None]:
    low, high, low_open, high_open = _bounds(node)
    first = None if low == -math.inf else (math.floor(low) + 1 if low_open else math.ceil(low))
    last = None if high == math.inf else (math.ceil(high) - 1 if high_open else math.floor(high))
    if first is not None and last is not None and first > last:
        raise SchemaError(f"no integer lies within the bounds {_describe(node)}")
    return first, last


def integers(node: Node, is_multiple: Callable[[Any], bool]) -> st.SearchStrategy[int]:
    """Integers within the node's bounds and ``multipleOf``."""
    first, last = _integer_bounds(node)
    step = node.get("multipleOf")
    if step is None:
        return st.integers(first, last)
    exact = Fraction(step) if isinstance(step, int) else Fraction(repr(float(step)))
    unit = exact.numerator  # the least positive integer that is a multiple of `step`
    low = None if first is None else -((-first) // unit)
    high = None if last is None else last // unit
    if low is not None and high is not None and low > high:
        raise SchemaError(f"no multiple of {step} lies within the bounds {_describe(node)}")
    multiples = st.integers(low, high).map(lambda k: k * unit)
    if isinstance(step, int):
        return multiples
    return multiples.filter(lambda value: is_multiple(value) and divides_in_floats(value, step))


def numbers(node: Node, is_multiple: Callable[[Any], bool]) -> st.SearchStrategy[int | float]:
    """Integers and finite floats within the node's bounds and ``multipleOf``."""
    low, high, low_open, high_open = _bounds(node)
    if low > high or (low == high and (low_open or high_open)):
        raise SchemaError(f"no number lies within the bounds {_describe(node)}")
    step = node.get("multipleOf")
    if isinstance(step, int):
        return integers(node, is_multiple)  # exact, however large the bounds
    if step is not None and (_past_floats(low) or _past_floats(high)):
        raise SchemaError(f"multipleOf {step} with bounds past the float range {_describe(node)}")
    if step is not None:
        first = math.ceil(low / step) if low != -math.inf else None
        last = math.floor(high / step) if high != math.inf else None
        # An excluded bound (or rounding) can put the outermost multiple outside.
        if first is not None and not _inside(first * step, node):
            first += 1
        if last is not None and not _inside(last * step, node):
            last -= 1
        if first is not None and last is not None and first > last:
            raise SchemaError(f"no multiple of {step} lies within the bounds {_describe(node)}")
        return (
            st.integers(first, last)
            .map(lambda k: k * step)
            .filter(
                lambda value: (
                    _inside(value, node) and is_multiple(value) and divides_in_floats(value, step)
                )
            )
        )
    if low > _FLOAT_MAX or high < -_FLOAT_MAX:
        return integers(node, is_multiple)  # no float lies so far out
    # A bound past the float range (a large integer) leaves that side open to floats.
    floor = None if low < -_FLOAT_MAX else float(low)
    ceiling = None if high > _FLOAT_MAX else float(high)
    floats = st.floats(
        min_value=floor,
        max_value=ceiling,
        exclude_min=low_open and floor is not None,
        exclude_max=high_open and ceiling is not None,
        allow_nan=False,
        allow_infinity=False,
    ).filter(lambda value: _inside(value, node))
    try:
        whole: st.SearchStrategy[int | float] = integers(node, is_multiple)
    except SchemaError:
        return floats
    return st.one_of(whole, floats)


def divides_in_floats(value: float, step: float) -> bool | None:
    """Whether ``value / step`` is a whole number in float arithmetic, as many validators
    judge a float ``multipleOf`` (Python's ``jsonschema`` among them); None where the
    quotient overflows.

    Exact arithmetic can disagree (``104349.9105`` is 1043499105 times ``0.0001``; the
    float quotient is ``1043499104.9999999``; a float past 2**53 times the step always
    divides). Values are only generated where both readings agree: a server that
    divides in floats must not turn a valid input into a finding.
    """
    if isinstance(step, int):
        return value % step == 0
    quotient = value / step
    return None if math.isinf(quotient) else quotient.is_integer()


def _past_floats(bound: float) -> bool:
    """A finite bound no float reaches (an integer past ``sys.float_info.max``)."""
    return abs(bound) > _FLOAT_MAX and abs(bound) != math.inf


def _inside(value: float, node: Node) -> bool:
    """Exact bound check: int-to-float rounding may land on an excluded bound."""
    low, high, low_open, high_open = _bounds(node)
    above = value > low if low_open else value >= low
    below = value < high if high_open else value <= high
    return above and below


def _describe(node: Node) -> str:
    keys = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")
    return ", ".join(f"{key}={node[key]}" for key in keys if key in node)
