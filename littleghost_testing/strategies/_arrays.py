"""Arrays: ``prefixItems`` positions, ``items`` after them, ``contains`` counts, uniqueness.

``contains`` is built, not hoped for: the required matches are drawn from the
intersection of ``items`` and ``contains`` and mixed in among the other items.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from ._context import Context, RefStack, Schema, canonical
from ._errors import SchemaError
from ._merge import both, flatten
from ._strings import LONG, repeated

__all__ = ["arrays"]

Node = dict[str, Any]
Build = Callable[[Schema, RefStack], st.SearchStrategy[Any]]
# Arrays with no maxItems get at most this many items beyond their minimum.
_SPARE = 6


def arrays(node: Node, stack: RefStack, build: Build, ctx: Context) -> st.SearchStrategy[list[Any]]:
    prefix: list[Schema] = list(node.get("prefixItems", ()))
    items: Schema = node.get("items", True)
    low: int = node.get("minItems", 0)
    high: int | None = node.get("maxItems")
    if items is False:
        high = len(prefix) if high is None else min(high, len(prefix))
    if high is not None and low > high:
        raise SchemaError(f"minItems {low} is greater than the {high} items the array allows")
    least = node.get("minContains", 1)
    if "contains" in node and node.get("maxContains", least) < least:
        raise SchemaError(f"maxContains {node['maxContains']} is less than minContains {least}")
    if "contains" in node and high is not None and least > high:
        raise SchemaError(f"contains needs {least} matching items; the array allows {high}")
    if stack.leaf:
        high = low
    unique = bool(node.get("uniqueItems"))
    key = canonical if unique else None
    fixed: list[st.SearchStrategy[Any]] = []
    for index, schema in enumerate(prefix[: high if high is not None else None]):
        try:
            fixed.append(build(schema, stack))
        except SchemaError as error:
            # No value fits this position: the array ends before it.
            if low > index:
                raise SchemaError(
                    f"minItems {low} needs prefixItems position {index}, which no value fits: "
                    f"{error}"
                ) from None
            high = index
            break
    # Positions that must be filled from `prefixItems` always are; later ones are optional.
    tail = _tail(node, items, low - len(fixed), high, stack, build, ctx, key)
    if not fixed:
        return tail
    optional_prefix = st.integers(min(low, len(fixed)), len(fixed))
    result = _with_prefix(optional_prefix, fixed, len(prefix), tail)
    if unique or "contains" in node:
        result = result.filter(ctx.check(_array_part(node)))
    return result


def _tail(
    node: Node,
    items: Schema,
    low: int,
    high: int | None,
    stack: RefStack,
    build: Build,
    ctx: Context,
    key: Callable[[Any], str] | None,
) -> st.SearchStrategy[list[Any]]:
    """The items after ``prefixItems``, including the ``contains`` matches."""
    offset = len(node.get("prefixItems", ()))
    low = max(low, 0)
    room = None if high is None else high - offset
    if room is not None and room <= 0:
        return st.just([])
    spare = room if room is not None else low + _SPARE
    least = node.get("minContains", 1)
    most = node.get("maxContains")
    if "contains" not in node or (least == 0 and most is None) or offset:
        item = build(items, stack)
        if low > LONG and key is None:
            return repeated(st.lists(item, min_size=1, max_size=4), low, room)
        distinct = _distinct_values(items, ctx)
        if key is not None and distinct is not None and distinct < low:
            raise SchemaError(f"uniqueItems needs {low} distinct items; only {distinct} are valid")
        return st.lists(item, min_size=low, max_size=spare, unique_by=key)
    if least > spare:
        raise SchemaError(f"minContains {least} needs more items than the array allows")
    matching = build(both(items, node["contains"]), stack)
    other = build(items, stack)
    if most is not None:
        other = other.filter(lambda value: not ctx.check(node["contains"])(value))
    top = min(most if most is not None else least + 2, spare)

    counts = st.integers(least, top)
    strategy = _mixed(counts, matching, other, low, spare, key)
    if key is not None:
        strategy = strategy.filter(
            lambda values: len({canonical(v) for v in values}) == len(values)
        )
    return strategy


# Module level: Hypothesis inspects a composite's source once, when it is decorated.
@st.composite
def _with_prefix(
    draw: st.DrawFn,
    counts: st.SearchStrategy[int],
    fixed: list[st.SearchStrategy[Any]],
    positions: int,
    tail: st.SearchStrategy[list[Any]],
) -> list[Any]:
    """The first ``count`` prefix positions; the tail only once every position is filled."""
    count = draw(counts)
    head = [draw(strategy) for strategy in fixed[:count]]
    return head + (draw(tail) if count == positions else [])


@st.composite
def _mixed(
    draw: st.DrawFn,
    counts: st.SearchStrategy[int],
    matching: st.SearchStrategy[Any],
    other: st.SearchStrategy[Any],
    low: int,
    spare: int,
    key: Callable[[Any], str] | None,
) -> list[Any]:
    """``contains`` matches mixed in among the other items."""
    count = draw(counts)
    found = draw(st.lists(matching, min_size=count, max_size=count, unique_by=key))
    rest = draw(
        st.lists(other, min_size=max(low - count, 0), max_size=max(spare - count, 0), unique_by=key)
    )
    return draw(st.permutations(found + rest)) if rest else found


def _distinct_values(items: Schema, ctx: Context) -> int | None:
    """How many distinct values ``items`` allows, when that is small and easy to count."""
    try:
        node, _ = flatten(items, ctx)
    except SchemaError:
        return 0
    if "const" in node or "enum" in node:
        values = [node["const"]] if "const" in node else node["enum"]
        check = ctx.check(node)
        return len({canonical(value) for value in values if check(value)})
    kinds = node.get("type")
    if kinds and set(kinds) <= {"null", "boolean"} and "allOf" not in node:
        return ("null" in kinds) + 2 * ("boolean" in kinds)
    return None


def _array_part(node: Node) -> Node:
    keys = ("prefixItems", "items", "contains", "minContains", "maxContains", "uniqueItems")
    return {key: node[key] for key in keys if key in node}
