"""Objects: required keys always, optional and extra keys drawn, all counts respected.

Keys that could never be valid (they fail ``propertyNames``, or their schema is
unsatisfiable) are left out when optional and reported when required;
``dependentRequired`` pulls in its keys with the key that needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from ._context import Context, RefStack, Schema, TooDeep
from ._errors import SchemaError, Unsupported
from ._merge import governing
from ._patterns import pattern_strings, search
from ._strings import TEXT_ALPHABET

__all__ = ["objects"]

Node = dict[str, Any]
Build = Callable[[Schema, RefStack], st.SearchStrategy[Any]]
# Keys beyond the declared ones: at most this many, unless minProperties needs more.
_SPARE_KEYS = 2
# Past this many optional keys, each is taken with probability _TYPICAL_OPTIONAL / count
# (instead of 1/2): objects stay small, and every key still shows up in a few dozen draws.
_TYPICAL_OPTIONAL = 16


# Inside a recursive $ref, past this many optional keys, each is taken with probability
# _TYPICAL_RECURSIVE / count: a metaschema's objects hold dozens of optional keys whose
# values are schemas again, and half of them at every level grew 50 values to megabytes.
_TYPICAL_RECURSIVE = 1


def objects(
    node: Node, stack: RefStack, build: Build, ctx: Context
) -> st.SearchStrategy[dict[str, Any]]:
    depends: dict[str, list[str]] = node.get("dependentRequired", {})
    required = _closure(list(dict.fromkeys(node.get("required", ()))), depends)
    declared = list(node.get("properties", {}))
    names_ok = ctx.check(node.get("propertyNames", True))
    low: int = node.get("minProperties", 0)
    high: int | None = node.get("maxProperties")

    values: dict[str, st.SearchStrategy[Any]] = {}
    for key in dict.fromkeys([*required, *declared, *(k for v in depends.values() for k in v)]):
        must = key in required
        if stack.leaf and not must:
            continue
        try:
            if not names_ok(key):
                raise SchemaError(f"property {key!r} fails propertyNames")
            values[key] = build(governing(node, key), stack)
        except Unsupported as error:  # never left out in silence: it hides what the key allows
            raise Unsupported(f"property {key!r} cannot be generated: {error}") from None
        except SchemaError as error:
            if must:
                raise SchemaError(
                    f"required property {key!r} can never be valid: {error}"
                ) from None
        except TooDeep:
            if must:
                raise
    missing = [key for key in required if key not in values]
    if missing:
        raise SchemaError(f"required property {missing[0]!r} can never be valid")
    if high is not None and low > high:
        raise SchemaError(f"minProperties {low} is greater than maxProperties {high}")
    if high is not None and len(required) > high:
        raise SchemaError(f"{len(required)} required properties exceed maxProperties {high}")
    optional = [
        key
        for key in values
        if key not in required and all(k in values for k in _closure([key], depends))
    ]
    extra = (
        None if stack.leaf else _extra_entries(node, stack, build, ctx, set(values) | set(depends))
    )
    if extra is None and low > len(required) + len(optional):
        raise SchemaError(f"minProperties {low} needs more properties than the schema allows")

    limit = high if high is not None else len(values) + _SPARE_KEYS + low
    # When counts force or forbid some optional keys, which ones must vary: the
    # first keys would otherwise always be the ones taken (or the only ones left).
    crowded = low > len(required) or len(required) + len(optional) > limit
    order = st.permutations(optional) if crowded and len(optional) > 1 else st.just(optional)
    typical = _TYPICAL_RECURSIVE if stack.recursing else _TYPICAL_OPTIONAL
    # The simplest choice leaves a key out: Hypothesis's smallest example (and its shrinks)
    # are then the smallest objects, not every optional key of a metaschema at every level.
    spare = len(optional) - typical
    take = (
        st.booleans()
        if len(optional) <= 2 * typical
        else st.integers(1, len(optional)).map(lambda pick, spare=spare: pick > spare)
    )
    if stack.recursing and spare > typical and not crowded and not depends:
        # The few keys picked, not a choice per key: a metaschema's nested objects
        # have dozens of optional keys each, and one draw per key per object was
        # most of a value's choices.
        order = st.lists(st.sampled_from(optional), max_size=2 * typical, unique=True)
        take = st.just(True)
    return _draw_object(_Plan(required, order, take, depends, values, limit, low, extra))


class _Plan:
    """What one object schema allows, worked out once when the strategy is built.

    A plain class: Hypothesis spells out a dataclass argument field by field in
    events and test descriptions, every nested object's plan in full (tens of
    kilobytes for a metaschema); this one shows its keys.
    """

    __slots__ = (
        "depends", "entries", "extra", "limit", "low", "order", "required", "take", "values",
    )  # fmt: skip

    def __init__(
        self,
        required: list[str],
        order: st.SearchStrategy[list[str]],
        take: st.SearchStrategy[bool],
        depends: dict[str, list[str]],
        values: dict[str, st.SearchStrategy[Any]],
        limit: int,
        low: int,
        extra: st.SearchStrategy[tuple[str, Any]] | None,
    ) -> None:
        self.required = required
        self.order = order
        self.take = take
        self.depends = depends
        self.values = values
        self.limit = limit
        self.low = low
        self.extra = extra
        self.entries: dict[int, st.SearchStrategy[list[tuple[str, Any]]]] = {}

    def __repr__(self) -> str:
        keys = ", ".join(self.values)
        return (
            f"<object of {{{keys}}}>" if len(keys) <= 60 else f"<object of {len(self.values)} keys>"
        )


# Module level: Hypothesis inspects a composite's source once, when it is decorated.
@st.composite
def _draw_object(draw: st.DrawFn, plan: _Plan) -> dict[str, Any]:
    chosen = list(plan.required)
    for key in draw(plan.order):
        needed = [k for k in _closure([key], plan.depends) if k not in chosen]
        if (
            needed
            and len(chosen) + len(needed) <= plan.limit
            and (draw(plan.take) or len(chosen) < plan.low)
        ):
            chosen += needed
    result = {key: draw(plan.values[key]) for key in chosen}
    if plan.extra is not None and len(result) < plan.limit:
        wanted = max(plan.low - len(result), 0)
        most = max(wanted, min(_SPARE_KEYS, plan.limit - len(result)))
        count = draw(st.integers(wanted, most))
        entries = plan.entries.get(count)
        if entries is None:  # kept: a new strategy is validated again on every draw
            extra = plan.extra
            entries = st.lists(extra, min_size=count, max_size=count, unique_by=_entry_key)
            plan.entries[count] = entries
        for key, value in draw(entries):
            result[key] = value
    return result


def _entry_key(entry: tuple[str, Any]) -> str:
    return entry[0]


def _closure(keys: list[str], depends: dict[str, list[str]]) -> list[str]:
    """``keys`` plus every key ``dependentRequired`` pulls in with them."""
    out = list(keys)
    for key in out:
        out += [k for k in depends.get(key, ()) if k not in out]
    return out


def _extra_entries(
    node: Node, stack: RefStack, build: Build, ctx: Context, taken: set[str]
) -> st.SearchStrategy[tuple[str, Any]] | None:
    """Entries for undeclared keys (from patternProperties or additionalProperties), if allowed."""
    patterns: dict[str, Schema] = node.get("patternProperties", {})
    names = node.get("propertyNames", True)
    names_ok = ctx.check(names)
    options: list[st.SearchStrategy[tuple[str, Any]]] = []
    for pattern, schema in patterns.items():
        try:
            keys = pattern_strings(pattern, 0, None).filter(
                lambda key: key not in taken and names_ok(key)
            )
            options.append(st.tuples(keys, build(schema, stack)))
        except Unsupported:
            raise
        except (SchemaError, TooDeep):
            continue
    additional = node.get("additionalProperties", True)
    if additional is not False:
        try:
            keys = _names(names, stack, build).filter(
                lambda key: key not in taken and not any(search(p, key) for p in patterns)
            )
            options.append(st.tuples(keys, build(additional, stack)))
        except (SchemaError, TooDeep):
            pass
    if not options:
        return None
    return st.one_of(options).filter(
        lambda entry: all(
            ctx.check(schema)(entry[1]) for p, schema in patterns.items() if search(p, entry[0])
        )
    )


def _names(names: Schema, stack: RefStack, build: Build) -> st.SearchStrategy[str]:
    if names is True:
        return st.text(TEXT_ALPHABET, max_size=12)
    return build({"allOf": [names, {"type": "string"}]}, stack)
