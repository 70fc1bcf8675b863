"""Turn a JSON Schema into a Hypothesis strategy of valid values, by construction.

Each schema is flattened (``$ref`` and ``allOf`` intersected), combinators are
distributed into one branch per alternative, and each branch builds values of
each allowed type directly. Filters remain only where the schema itself is a
negation (``not``, ``else``, the other ``oneOf`` branches) or where two
constraints cannot be intersected (two patterns).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import strategies as st

from ._arrays import arrays
from ._context import Context, RefStack, Schema, TooDeep, canonical
from ._errors import SchemaError, Unsupported
from ._exclude import exclude
from ._merge import TYPES, flatten, merge, scoped
from ._numbers import integers, numbers
from ._objects import objects
from ._strings import TEXT_ALPHABET, strings
from ._untyped import constrained, favouring

__all__ = ["MAX_EXPANSIONS", "MAX_ITEMS", "MAX_LENGTH", "MAX_PROPERTIES", "Builder"]

MAX_EXPANSIONS = 20_000
"""Subschemas one strategy may stand for once every ``$ref`` on its way is expanded.

Memoized construction is cheap, but each draw walks the expanded tree: a
50-wide recursive ``$ref`` stands for about 127 000 subschemas and took
minutes before its first value (the Draft 2020-12 metaschema stands for
about 18 000). Past this budget the schema is ``Unsupported``: no branch or
optional property is left out for it in silence.
"""

MAX_LENGTH = 100_000
"""The longest ``minLength`` (in code points) a generated string meets; longer is Unsupported."""

MAX_ITEMS = 10_000
"""The most ``minItems`` (or ``minContains``) a generated array meets; more is Unsupported."""

MAX_PROPERTIES = 100
"""The most ``minProperties`` a generated object meets; more is Unsupported."""

# The size keywords each type's values must meet, and the cap on each.
_SIZE_LIMITS = {
    "string": (("minLength", MAX_LENGTH, "MAX_LENGTH"),),
    "array": (("minItems", MAX_ITEMS, "MAX_ITEMS"), ("minContains", MAX_ITEMS, "MAX_ITEMS")),
    "object": (("minProperties", MAX_PROPERTIES, "MAX_PROPERTIES"),),
}

Node = dict[str, Any]
_BRANCHING = ("anyOf", "oneOf", "if", "dependentSchemas")
# dependentSchemas with up to this many keys is built, key present or absent (2^n branches).
_DEPENDENT_BRANCHES = 4
_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(TEXT_ALPHABET, max_size=12),
)
# Any JSON value: what `true` and `{}` accept.
ANY_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(TEXT_ALPHABET, max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


class Builder:
    """Builds (and memoizes) the strategies for the parts of one root schema."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # Per build in progress, the subschemas its finished parts stand for.
        self._expansions: list[int] = [0]
        self._weights: dict[Any, int] = {}

    def build(self, schema: Schema, stack: RefStack) -> st.SearchStrategy[Any]:
        """The strategy of ``schema`` where ``stack`` expanded it, within ``MAX_EXPANSIONS``."""
        key = (id(schema), stack.key())
        found = self.ctx.memo.get(key)
        if found is not None:
            self._expanded(self._weights[key])
            return found[1]
        self._expansions.append(1)
        try:
            node, refs = flatten(schema, self.ctx, scope=stack.refs)
            strategy = self.node(node, stack.push(refs, self.ctx))
        finally:
            weight = self._expansions.pop()
        self.ctx.memo[key] = (schema, strategy)  # keeps `schema` alive, so its id stays unique
        self._weights[key] = weight
        self._expanded(weight)
        return strategy

    @contextmanager
    def apart(self) -> Iterator[None]:
        """Count what is built in the block against a ``MAX_EXPANSIONS`` budget of its own.

        For strategies built apart from the root's (each of ``invalid_inputs``'
        sites): at the root they would add up, and once past the budget every
        later one would be refused, however small.
        """
        self._expansions.append(1)
        try:
            yield
        finally:
            self._expansions.pop()

    def _expanded(self, weight: int) -> None:
        """Count a finished part's subschemas into the build that asked for it."""
        total = self._expansions[-1] = self._expansions[-1] + weight
        if total > MAX_EXPANSIONS:
            raise Unsupported(
                f"the schema stands for more than {MAX_EXPANSIONS:,} subschemas once its "
                f"$refs are expanded (MAX_EXPANSIONS): too costly to generate"
            )

    def node(self, node: Node, stack: RefStack) -> st.SearchStrategy[Any]:
        if not node:
            return ANY_JSON
        extras: list[Node] = node.get("allOf", [])
        for index, extra in enumerate(extras):
            if any(keyword in extra for keyword in _BRANCHING) and (
                len(extra.get("dependentSchemas", ())) <= _DEPENDENT_BRANCHES
            ):
                rest = {key: value for key, value in node.items() if key != "allOf"}
                others = extras[:index] + extras[index + 1 :]
                if others:
                    rest["allOf"] = others
                return self.branches(rest, extra, stack)
        base = {key: value for key, value in node.items() if key != "allOf"}
        negated: list[Schema] = []
        closing: Node = {}
        checks = []
        for extra in extras:
            if set(extra) == {"not"}:
                negated.append(extra["not"])
            elif set(extra) <= _UNEVALUATED:
                closing.update(extra)
            else:
                checks.append(self.ctx.check(extra))
        base = _closed(base, closing)
        strategy = self.excluding(base, negated, stack) if negated else self.typed(base, stack)
        for check in checks:
            strategy = strategy.filter(check)
        return strategy

    def branches(self, rest: Node, extra: Node, stack: RefStack) -> st.SearchStrategy[Any]:
        """One strategy per alternative of an ``anyOf``/``oneOf``/``if`` (the rest merged in)."""
        options: list[tuple[list[Schema], list[Schema]]] = []
        if "dependentSchemas" in extra:  # the first key present with its schema, or absent
            (key, dependent), *others = extra["dependentSchemas"].items()
            tail = [{"dependentSchemas": dict(others)}] if others else []
            options.append(([{"required": [key]}, dependent, *tail], []))
            options.append(([{"properties": {key: False}}, *tail], []))
        elif "if" in extra:
            options.append(([extra["if"], extra.get("then", True)], []))
            options.append(([extra.get("else", True)], [extra["if"]]))
        else:
            keyword = "anyOf" if "anyOf" in extra else "oneOf"
            alternatives: list[Schema] = extra[keyword]
            for index, branch in enumerate(alternatives):
                others = alternatives[:index] + alternatives[index + 1 :]
                options.append(([branch], others if keyword == "oneOf" else []))
        strategies: list[st.SearchStrategy[Any]] = []
        failures: list[Exception] = []
        for parts, others in options:
            try:
                node, refs = dict(rest), []
                for part in parts:
                    flat, inner = flatten(part, self.ctx, scope=stack.refs)
                    node, refs = merge(node, scoped(flat)), refs + inner
                negated = [other for other in others if not _disjoint(node, other, self.ctx)]
                if negated:
                    node = merge(node, {"allOf": [{"not": other} for other in negated]})
                strategies.append(self.node(node, stack.push(refs, self.ctx)))
            except Unsupported:
                raise
            except (SchemaError, TooDeep) as failure:
                failures.append(failure)
        if not strategies:
            reasons = [failure for failure in failures if isinstance(failure, SchemaError)]
            if not reasons:
                raise failures[0]
            keyword = next(k for k in _BRANCHING if k in extra)
            raise SchemaError(f"no alternative of {keyword} can be satisfied: {reasons[0]}")
        return st.one_of(strategies)

    def excluding(
        self, node: Node, negated: list[Schema], stack: RefStack
    ) -> st.SearchStrategy[Any]:
        """Values of ``node`` that no schema in ``negated`` accepts, built type by type."""
        rejects = [self.ctx.check(schema) for schema in negated]
        if "const" in node or "enum" in node:
            values = [node["const"]] if "const" in node else list(node["enum"])
            check = self.ctx.check(node)
            allowed = [v for v in values if check(v) and not any(r(v) for r in rejects)]
            if not allowed:
                raise SchemaError("`not` rules out every `enum`/`const` value the schema allows")
            return st.sampled_from(allowed)
        kinds = list(node.get("type") or TYPES)
        if "number" in kinds and "integer" in kinds:
            kinds.remove("integer")
        strategies: dict[str, st.SearchStrategy[Any]] = {}
        failures: list[Exception] = []
        for kind in kinds:
            narrowed = exclude(kind, node, negated, self.ctx)
            if narrowed is None:
                continue
            try:
                strategy = self.node(narrowed.node, stack)
            except Unsupported:
                raise
            except (SchemaError, TooDeep) as failure:
                failures.append(failure)
                continue
            for schema in narrowed.filters:
                reject = self.ctx.check(schema)
                strategy = strategy.filter(lambda value, reject=reject: not reject(value))
            strategies[kind] = strategy
        if not strategies:
            if failures:
                raise failures[0]
            raise SchemaError("`not` rules out every value the rest of the schema allows")
        return favouring(strategies, constrained(node))

    def typed(self, node: Node, stack: RefStack) -> st.SearchStrategy[Any]:
        kinds = list(node.get("type") or TYPES)
        if "number" in kinds and "integer" in kinds:
            kinds.remove("integer")
        if "const" in node or "enum" in node:
            values = [node["const"]] if "const" in node else list(node["enum"])
            check = self.ctx.check(node)
            allowed = [value for value in values if check(value)]
            if not allowed:
                keyword = "const" if "const" in node else "enum"
                raise SchemaError(f"no {keyword} value satisfies the schema's other keywords")
            return st.sampled_from(allowed)
        strategies: dict[str, st.SearchStrategy[Any]] = {}
        failures: list[Exception] = []
        for kind in kinds:
            try:
                strategies[kind] = self.of_type(kind, node, stack)
            except Unsupported:
                raise
            except (SchemaError, TooDeep) as failure:
                failures.append(failure)
        if not strategies:
            raise failures[0]
        return favouring(strategies, constrained(node))

    def of_type(self, kind: str, node: Node, stack: RefStack) -> st.SearchStrategy[Any]:
        for keyword, limit, name in _SIZE_LIMITS.get(kind, ()):
            if node.get(keyword, 0) > limit:
                raise Unsupported(
                    f"{keyword} {node[keyword]} asks for more than the {limit:,} the strategies "
                    f"ever generate ({name})"
                )
        is_multiple = self.ctx.check({"multipleOf": node.get("multipleOf", 1)})
        match kind:
            case "null":
                return st.none()
            case "boolean":
                return st.booleans()
            case "integer":
                return integers(node, is_multiple)
            case "number":
                return numbers(node, is_multiple)
            case "string":
                return strings(node)
            case "array":
                return arrays(node, stack, self.build, self.ctx)
            case "object":
                return objects(node, stack, self.build, self.ctx)
            case _:
                raise SchemaError(f"unknown type {kind!r}")


def _disjoint(node: Node, other: Schema, ctx: Context) -> bool:
    """Whether no value of ``node`` can match ``other`` (cheap cases only)."""
    try:
        flat, _ = flatten(other, ctx)
    except SchemaError:
        return True
    return _types_disjoint(node, flat) or _discriminated(node, flat)


def _closed(base: Node, closing: Node) -> Node:
    """``unevaluated*`` said as ``additionalProperties``/``items`` on the merged node.

    Everything this node evaluates is on it now (allOf, $ref and the chosen
    branch are merged in): "no unevaluated ones" means none beyond them. Where
    that is already said, or ``contains`` evaluates items too, nothing changes
    (the validator's final check still holds).
    """
    out = dict(base)
    if "unevaluatedProperties" in closing and "additionalProperties" not in base:
        out["additionalProperties"] = closing["unevaluatedProperties"]
    if "unevaluatedItems" in closing and "items" not in base and "contains" not in base:
        out["items"] = closing["unevaluatedItems"]
    return out


def _types_disjoint(a: Node, b: Node) -> bool:
    if "type" not in a or "type" not in b:
        return False
    try:
        merge({"type": a["type"]}, {"type": b["type"]})
    except SchemaError:
        return True
    return False


def _discriminated(a: Node, b: Node) -> bool:
    """Both require a property whose ``const``/``enum`` values do not overlap."""
    for key in set(a.get("required", ())) & set(b.get("required", ())):
        left = _constants(a.get("properties", {}).get(key))
        right = _constants(b.get("properties", {}).get(key))
        if left is not None and right is not None and not (left & right):
            return True
    return False


def _constants(schema: Schema) -> set[str] | None:
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return {canonical(schema["const"])}
    if "enum" in schema:
        return {canonical(value) for value in schema["enum"]}
    return None
