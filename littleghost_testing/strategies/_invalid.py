"""Inputs that break exactly one constraint, with the keyword and path they break.

Every mutation is built from the schema itself: a value valid for the schema
with one keyword replaced by its negation (``minimum`` becomes "below the
minimum", ``required`` becomes "without that key"), placed inside a container
that is valid everywhere else. The validator then confirms the value fails on
that keyword at that path and nowhere else.

Inside a recursive ``$ref`` (a tree whose nodes hold nodes), sites are placed
through its first expansion and its second (``children[].name`` beside
``name``: a tool that checks only the top of a tree is caught), and no deeper:
the third expansion holds the same constraints again. Sites below a second
expansion are capped at ``MAX_DEEPER_SITES`` per schema.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from littleghost._schema import NEGATED_BOUNDS
from littleghost._validation import Violation

from ._build import ANY_JSON, Builder
from ._context import RefStack, Schema, TooDeep, canonical
from ._errors import SchemaError
from ._in_turn import draw_outside
from ._merge import TYPES, flatten, governing, merge
from ._numbers import divides_in_floats, numbers
from ._patterns import pattern_strings, search
from ._strings import TEXT_ALPHABET
from ._trivial import WITNESSES, accepts_every_value, rejects_every_value

__all__ = ["MAX_DEEPER_SITES", "Broken", "InvalidInput", "Mutations", "Site", "beside_unevaluated"]

Node = dict[str, Any]
# (value, keyword, path parts): None where the validator names it (a negated combinator).
Broken = tuple[Any, str | None, tuple[str | int, ...] | None]
# How deep inside nested objects and arrays violations are placed.
_MAX_DEPTH = 6
# Expansions of one recursive `$ref` on a path past the first that still hold sites.
_MAX_REPEATS = 1

MAX_DEEPER_SITES = 16
"""Sites per schema placed inside the second expansion of a recursive ``$ref`` (the same
constraints one recursion deeper), the first found in the schema's order. Each costs what a
shallow site costs, and a `$ref` to the 2020-12 metaschema (about 100 shallow sites) repeats
its recursion at some 20 places, each of which would hold them all again: with this cap its
sites cost about a fifth more."""
_WRONG_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": st.integers(),
    "string": st.text(TEXT_ALPHABET, max_size=8),
    "array": st.lists(st.integers() | st.text(max_size=4), max_size=3),
    "object": st.dictionaries(st.text(max_size=4), st.integers() | st.none(), max_size=3),
}
_NAMES = st.text(TEXT_ALPHABET, min_size=1, max_size=10)
_UNEVALUATED = ("unevaluatedProperties", "unevaluatedItems")
# Pairs of `oneOf` branches tried for a value both accept (oneOf wants exactly one).
_MAX_OVERLAPS = 10
# Fixed draws a site is tried with: kept if one of them is confirmed.
_PROBES = 4
# Fixed draws of any JSON value searched for an invalid input when no site is built.
_SEARCH_DRAWS = 200
# Fixed valid values the search grows by one item or key each (see _grown).
_GROWN_FROM = 8
_EXTRA_KEY = "extra"


@dataclasses.dataclass(frozen=True, slots=True)
class Site:
    """One place and keyword a value can be broken at: its violations, drawn.

    ``depth`` counts the objects and arrays around the place; ``repeats`` how
    often a recursive ``$ref`` on the way had already been expanded (0 for a
    place no recursion repeats above, 1 for the same constraint one recursion
    deeper): seeds go shallow first.
    """

    strategy: st.SearchStrategy[Broken]
    depth: int = 0
    repeats: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class InvalidInput:
    """A value that breaks exactly one constraint: ``keyword`` at ``path`` (``$``-rooted)."""

    value: Any
    keyword: str
    path: str


class Mutations:
    """Collects, for one root schema, every place and keyword a value can be broken at."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.ctx = builder.ctx
        self._deeper_left = MAX_DEEPER_SITES

    def every_site(
        self, schema: Schema, confirms: Callable[[Broken], bool], is_valid: Callable[[Any], bool]
    ) -> list[Site]:
        """Every site of the root schema, fewest recursion repeats first; SchemaError only if
        it provably accepts every value.

        A site is kept if one of a few fixed draws is confirmed: annotations
        (``unevaluated*`` beside ``allOf``, ``anyOf``...) can make a built
        violation break more, or nothing. A schema left with no site, but that
        may still reject something, is searched: fixed draws of any JSON value,
        and valid values with one item or key more, that the validator rejects.
        """
        self._deeper_left = MAX_DEEPER_SITES
        built = self.sites(schema, RefStack())
        found = [site for site in built if _ever(site.strategy, confirms)]
        if found:
            return sorted(found, key=lambda site: site.repeats)
        if accepts_every_value(schema, self.ctx, is_valid):
            raise SchemaError("the schema accepts every value: no input can be invalid")
        seeds = (draw_outside(ANY_JSON, seed) for seed in range(_SEARCH_DRAWS))
        candidates = [*WITNESSES, *(seed.value for seed in seeds if seed is not None)]
        valid = self._valid_node_values(schema)
        candidates += [grown for value in valid for grown in _grown(value)]
        rejected = [value for value in candidates if confirms((value, None, None))]
        if not rejected:
            raise SchemaError(
                f"no input found that the schema rejects ({len(candidates)} values of every "
                "type tried); it may accept every value"
            )
        return [Site(st.sampled_from(rejected).map(lambda value: (value, None, None)))]

    def sites(self, schema: Schema, stack: RefStack, depth: int = 0) -> list[Site]:
        """The sites of ``schema`` at a place ``depth`` containers deep, and below it.

        A place inside a recursive ``$ref``'s second expansion (below where it
        is entered again) takes its sites from what is left of
        ``MAX_DEEPER_SITES``; a third expansion holds none.
        """
        deeper = stack.repeats > 0
        if deeper and self._deeper_left <= 0:
            return []
        if rejects_every_value(schema, self.ctx):
            anything = ANY_JSON.map(lambda value: (value, None, ()))
            return self._placed([anything], stack, depth, deeper)
        try:
            node, refs = flatten(schema, self.ctx, scope=stack.refs)
            stack = stack.push(refs, self.ctx)
        except (SchemaError, TooDeep):
            return []
        if stack.repeats > _MAX_REPEATS:
            return []
        found = self._placed(self._local(node, stack), stack, depth, deeper)
        if depth < _MAX_DEPTH and (stack.repeats == 0 or self._deeper_left > 0):
            found += self._nested(node, stack, depth)
        return found

    def _placed(
        self, strategies: list[st.SearchStrategy[Broken]], stack: RefStack, depth: int, deeper: bool
    ) -> list[Site]:
        """``strategies`` as the sites of one place; inside a second expansion, only as many
        as ``MAX_DEEPER_SITES`` has left."""
        if deeper:
            strategies = strategies[: self._deeper_left]
            self._deeper_left -= len(strategies)
        return [Site(strategy, depth, stack.repeats) for strategy in strategies]

    def _valid(self, node: Node, stack: RefStack) -> st.SearchStrategy[Any] | None:
        try:
            with self.builder.apart():
                return self.builder.node(node, stack)
        except (SchemaError, TooDeep):
            return None

    def _variant(
        self, node: Node, stack: RefStack, keyword: str, fails: Callable[[Any], bool] | None = None
    ) -> list[st.SearchStrategy[Broken]]:
        """Values of ``node`` (already rewritten to negate ``keyword``), as a site."""
        valid = self._valid(node, stack)
        if valid is None:
            return []
        if fails is not None:
            valid = valid.filter(fails)
        return [valid.map(lambda value: (value, keyword, ()))]

    def _local(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        found: list[st.SearchStrategy[Broken]] = []
        plain = {key: value for key, value in node.items() if key != "format"}
        extras: list[Node] = plain.pop("allOf", [])
        kinds: list[str] = plain.get("type") or list(TYPES)
        for index, extra in enumerate(extras):
            rest = {**plain, "allOf": extras[:index] + extras[index + 1 :]}
            found += self._combinator(extra, rest, stack)
        plain = {**plain, "allOf": extras} if extras else plain
        if "enum" not in plain and "const" not in plain and "type" in plain:
            found += self._wrong_type(plain, kinds)
        for keyword in ("enum", "const"):
            if keyword in plain and not set(kinds) <= {"null", "boolean"}:
                allowed = {
                    canonical(v) for v in (plain["enum"] if keyword == "enum" else [plain["const"]])
                }
                rest = {key: value for key, value in plain.items() if key != keyword}
                found += self._variant(
                    rest, stack, keyword, lambda v, a=allowed: canonical(v) not in a
                )
        if "enum" in plain or "const" in plain:
            return found
        numeric = [kind for kind in kinds if kind in ("integer", "number")]
        for keyword, negation in NEGATED_BOUNDS.items():
            if keyword in plain and numeric:
                # Past one bound is inside the opposite one: drop all four, add the negation.
                rest = {key: value for key, value in plain.items() if key not in NEGATED_BOUNDS}
                found += self._variant(
                    {**rest, "type": numeric, negation: plain[keyword]}, stack, keyword
                )
                edge = _just_past(keyword, plain[keyword], numeric)
                found.append(st.just((edge, keyword, ())))
        if "multipleOf" in plain and numeric:
            rest = {key: value for key, value in plain.items() if key != "multipleOf"}
            step = plain["multipleOf"]
            check = self.ctx.check({"multipleOf": step})
            # Not a multiple in exact and in float arithmetic alike (see divides_in_floats).
            found += self._variant(
                {**rest, "type": numeric},
                stack,
                "multipleOf",
                lambda v: not check(v) and divides_in_floats(v, step) is False,
            )
        if "string" in kinds:
            found += self._strings(plain, stack)
        if "array" in kinds:
            found += self._arrays(plain, stack)
        if "object" in kinds:
            found += self._objects(plain, stack)
        return found

    def _combinator(
        self, extra: Node, rest: Node, stack: RefStack
    ) -> list[st.SearchStrategy[Broken]]:
        """Values the rest of the schema accepts and one combinator rejects."""
        keyword = next((k for k in ("anyOf", "oneOf") if k in extra), None)
        whole = {**rest, "allOf": [*rest.get("allOf", ()), extra]}
        if keyword == "oneOf":
            overlaps = self._overlaps(rest, extra[keyword], stack)
            return self._excluded(rest, extra[keyword], stack, keyword, ()) + overlaps
        if keyword is not None:
            return self._excluded(rest, extra[keyword], stack, keyword, ())
        if "dependentSchemas" in extra:
            return self._dependents(rest, extra["dependentSchemas"], stack)
        if "unevaluatedProperties" in extra:
            judge = extra["unevaluatedProperties"]
            return self._unevaluated_properties(whole, rest, judge, stack)
        if "unevaluatedItems" in extra:
            judge = extra["unevaluatedItems"]
            return self._unevaluated_items(whole, rest, judge, stack)
        if set(extra) == {"not"}:
            try:
                negated, refs = flatten(extra["not"], self.ctx, scope=stack.refs)
                return self._variant(merge(rest, negated), stack.push(refs, self.ctx), "not")
            except (SchemaError, TooDeep):
                return []
        if "contains" in extra and "if" not in extra:
            # Its own `contains` (two `allOf` parts' cannot merge): the rest holds and no item
            # matches it (`items` only steers the draw; the validator names what fails).
            try:
                avoiding = merge(rest, {"type": ["array"], "items": {"not": extra["contains"]}})
            except SchemaError:
                return []
            valid = self._valid(avoiding, stack)
            return [] if valid is None else [valid.map(lambda value: (value, None, None))]
        if "if" not in extra:
            return []
        found: list[st.SearchStrategy[Broken]] = []
        # Breaking `then` (or `else`) breaks one of its keywords: the validator names it.
        if "then" in extra:
            try:
                condition, refs = flatten(extra["if"], self.ctx, scope=stack.refs)
                found += self._excluded(
                    merge(rest, condition), [extra["then"]], stack.push(refs, self.ctx), None, None
                )
            except (SchemaError, TooDeep):
                pass
        if "else" in extra:
            found += self._excluded(rest, [extra["if"], extra["else"]], stack, None, None)
        return found

    def _valid_node_values(self, schema: Schema) -> list[Any]:
        """A few fixed valid values of ``schema`` (none if it builds none)."""
        try:
            with self.builder.apart():
                strategy = self.builder.build(schema, RefStack())
        except (SchemaError, TooDeep):
            return []
        drawn = (draw_outside(strategy, seed) for seed in (None, *range(1, _GROWN_FROM)))
        return [seed.value for seed in drawn if seed is not None]

    def _overlaps(
        self, rest: Node, branches: list[Schema], stack: RefStack
    ) -> list[st.SearchStrategy[Broken]]:
        """Values two ``oneOf`` branches both accept: the keyword wants exactly one."""
        found: list[st.SearchStrategy[Broken]] = []
        pairs = itertools.combinations(branches, 2)
        for first, second in itertools.islice(pairs, _MAX_OVERLAPS):
            try:
                a, refs = flatten(first, self.ctx, scope=stack.refs)
                b, more = flatten(second, self.ctx, scope=stack.refs)
                found += self._variant(
                    merge(merge(rest, a), b), stack.push(refs + more, self.ctx), "oneOf"
                )
            except (SchemaError, TooDeep):
                continue
        return found

    def _dependents(
        self, rest: Node, dependents: dict[str, Schema], stack: RefStack
    ) -> list[st.SearchStrategy[Broken]]:
        """Objects with a ``dependentSchemas`` key present and its schema broken."""
        found: list[st.SearchStrategy[Broken]] = []
        for key, dependent in dependents.items():
            if dependent is True:
                continue
            others = {k: v for k, v in dependents.items() if k != key}
            try:
                node = merge(rest, {"type": ["object"], "required": [key]})
            except SchemaError:
                return []  # the schema allows no object
            if others:
                node = merge(node, {"allOf": [{"dependentSchemas": others}]})
            found += self._excluded(node, [dependent], stack, None, None)
        return found

    def _failing(self, schema: Schema, stack: RefStack) -> st.SearchStrategy[Any] | None:
        """Values ``schema`` rejects (any value for ``false``), or None if none is built."""
        if schema is False:
            return ANY_JSON
        inner = self.sites(schema, stack, _MAX_DEPTH)
        return st.one_of([site.strategy.map(_value_of) for site in inner]) if inner else None

    def _unevaluated_properties(
        self, whole: Node, rest: Node, judge: Schema, stack: RefStack
    ) -> list[st.SearchStrategy[Broken]]:
        """An object valid but for one key no subschema evaluates, whose value fails ``judge``.

        Only a subschema that passes evaluates its keys, so the container is
        valid and the key is one no ``properties``/``patternProperties`` names.
        """
        if judge is True or "additionalProperties" in rest:
            return []  # every key is evaluated (or fails additionalProperties first)
        bad = self._failing(judge, stack)
        try:
            room = merge(whole, {"type": ["object"]})
        except SchemaError:
            return []
        if "maxProperties" in room:
            room["maxProperties"] -= 1
        container = self._valid(room, stack)
        if bad is None or container is None:
            return []
        declared, patterns = _named_anywhere(rest)
        names = _NAMES.filter(_fresh(declared, patterns, lambda _: True))
        return [
            st.tuples(container, names, bad).map(
                lambda t: ({**t[0], t[1]: t[2]}, "unevaluatedProperties", (t[1],))
            )
        ]

    def _unevaluated_items(
        self, whole: Node, rest: Node, judge: Schema, stack: RefStack
    ) -> list[st.SearchStrategy[Broken]]:
        """A valid array with one more item, past every ``prefixItems``, that fails ``judge``
        and matches no ``contains`` (a matching item is evaluated)."""
        if judge is True or "items" in rest:
            return []
        bad = self._failing(judge, stack)
        try:
            room = merge(whole, {"type": ["array"], "minItems": _longest_prefix(rest)})
        except SchemaError:
            return []
        if "maxItems" in room:
            room["maxItems"] -= 1
        container = self._valid(room, stack)
        if bad is None or container is None:
            return []
        matches = [self.ctx.check(schema) for schema in _contains_anywhere(rest)]
        if matches:
            bad = bad.filter(lambda value: not any(match(value) for match in matches))
        return [st.tuples(container, bad).map(lambda t: ([*t[0], t[1]], "unevaluatedItems", ()))]

    def _excluded(
        self,
        node: Node,
        negated: list[Schema],
        stack: RefStack,
        keyword: str | None,
        parts: tuple[str | int, ...] | None,
    ) -> list[st.SearchStrategy[Broken]]:
        try:
            with self.builder.apart():
                values = self.builder.excluding(node, negated, stack)
        except (SchemaError, TooDeep):
            return []
        return [values.map(lambda value: (value, keyword, parts))]

    def _wrong_type(self, node: Node, kinds: list[str]) -> list[st.SearchStrategy[Broken]]:
        wrong = [kind for kind in TYPES if kind not in kinds]
        if "number" in kinds and "integer" in wrong:
            wrong.remove("integer")
        if not wrong:
            return []
        options = [_WRONG_TYPE[kind] for kind in wrong if kind != "number"]
        if "number" in wrong:
            options.append(self._fractions(node))
        return [st.one_of(options).map(lambda value: (value, "type", ()))]

    def _fractions(self, node: Node) -> st.SearchStrategy[Any]:
        """Non-integral numbers inside the node's bounds: wrong for "integer", and only that."""
        bounds = {key: node[key] for key in NEGATED_BOUNDS if key in node}
        if "minimum" in node and node.get("maximum") == node["minimum"]:
            return st.nothing()  # the one number allowed is not a fraction
        try:
            return numbers(bounds, lambda _: True).filter(
                lambda value: isinstance(value, float) and not value.is_integer()
            )
        except SchemaError:
            return st.nothing()

    def _sizes(
        self, node: Node, stack: RefStack, least: str, most: str
    ) -> list[st.SearchStrategy[Broken]]:
        """Values of the typed ``node`` one short of ``least`` or one past ``most``
        (``minLength``/``maxLength`` and their array and object kin)."""
        found: list[st.SearchStrategy[Broken]] = []
        if node.get(least, 0) > 0:
            rest = {k: v for k, v in node.items() if k != least}
            found += self._variant({**rest, most: node[least] - 1}, stack, least)
        if most in node:
            rest = {k: v for k, v in node.items() if k != most}
            found += self._variant({**rest, least: node[most] + 1}, stack, most)
        return found

    def _strings(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        text = {**node, "type": ["string"]}
        found = self._sizes(text, stack, "minLength", "maxLength")
        if "pattern" in node:
            rest = {k: v for k, v in text.items() if k != "pattern"}
            pattern = node["pattern"]
            found += self._variant(rest, stack, "pattern", lambda v: not search(pattern, v))
        return found

    def _arrays(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        array = {**node, "type": ["array"]}
        found = self._sizes(array, stack, "minItems", "maxItems")
        if node.get("uniqueItems"):
            room = {"minItems": max(node.get("minItems", 0) - 1, 1)}
            if "maxItems" in node:
                room["maxItems"] = node["maxItems"] - 1
            base = self._valid({**array, **room}, stack)
            if base is not None:
                found.append(
                    st.tuples(base, st.integers(0)).map(
                        lambda pair: (
                            [*pair[0], pair[0][pair[1] % len(pair[0])]],
                            "uniqueItems",
                            (),
                        )
                    )
                )
        if "contains" in node and node.get("minContains", 1) > 0:
            rest = {
                k: v
                for k, v in array.items()
                if k not in ("contains", "minContains", "maxContains")
            }
            keyword = "minContains" if "minContains" in node else "contains"
            avoid = {"allOf": [node.get("items", True), {"not": node["contains"]}]}
            # The empty array always misses `contains`; other arrays only if an item can.
            found += self._variant({**rest, "maxItems": 0}, stack, keyword)
            found += [
                site
                for site in self._variant({**rest, "items": avoid}, stack, keyword)
                if _ever(site, lambda broken: bool(broken[0]))
            ]
        if "contains" in node and "maxContains" in node:
            rest = {k: v for k, v in array.items() if k != "maxContains"}
            found += self._variant(
                {**rest, "minContains": node["maxContains"] + 1}, stack, "maxContains"
            )
        if node.get("items") is False:
            count = len(node.get("prefixItems", ()))
            opened = {**array, "items": True, "minItems": count + 1, "maxItems": count + 1}
            found += [
                strategy.map(lambda broken: (broken[0], "items", (count,)))
                for strategy in self._variant(opened, stack, "items")
            ]
        return found

    def _objects(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        obj = {**node, "type": ["object"]}
        found: list[st.SearchStrategy[Broken]] = []
        for key in node.get("required", ()):
            rest = {**obj, "properties": {**obj.get("properties", {}), key: False}}
            rest["required"] = [k for k in node["required"] if k != key]
            found += [
                strategy.map(lambda broken, key=key: (broken[0], "required", (key,)))
                for strategy in self._variant(rest, stack, "required")
            ]
        found += self._sizes(obj, stack, "minProperties", "maxProperties")
        for key, needed in node.get("dependentRequired", {}).items():
            for missing in needed:
                # One dependent absent, the others present: exactly one violation.
                props = {**obj.get("properties", {}), missing: False}
                deps = {k: v for k, v in node["dependentRequired"].items() if k != key}
                rest = {**obj, "properties": props, "dependentRequired": deps}
                present = [k for k in (*node.get("required", ()), key, *needed) if k != missing]
                rest["required"] = list(dict.fromkeys(present))
                found += self._variant(rest, stack, "dependentRequired")
        if node.get("additionalProperties") is False:
            found += self._extra_key(node, stack)
        if node.get("propertyNames", True) is not True:
            found += self._bad_name(node, stack)
        return found

    def _bad_name(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        """An object valid but for one key that ``propertyNames`` rejects."""
        rule: Schema = node["propertyNames"]
        declared = set(node.get("properties", {}))
        allowed = self.ctx.check(rule)
        options: list[st.SearchStrategy[Any]] = [_NAMES]
        try:
            text, _ = flatten({"allOf": [rule, {"type": "string"}]}, self.ctx)
            options += [site.map(_value_of) for site in self._strings(text, stack)]
        except (SchemaError, TooDeep):
            pass  # no string passes the rule: every name breaks it
        names = st.one_of(options).filter(lambda key: key not in declared and not allowed(key))
        room = {**node, "type": ["object"]}
        if "maxProperties" in node:
            room["maxProperties"] = node["maxProperties"] - 1
        container = self._valid(room, stack)
        if container is None:
            return []
        entries = names.flatmap(
            lambda key: st.tuples(st.just(key), self._value_for(node, key, stack))
        )
        return [
            st.tuples(container, entries).map(lambda t: ({**t[0], t[1][0]: t[1][1]}, None, None))
        ]

    def _value_for(self, node: Node, key: str, stack: RefStack) -> st.SearchStrategy[Any]:
        try:
            with self.builder.apart():
                return self.builder.build(governing(node, key), stack)
        except (SchemaError, TooDeep):
            return st.nothing()

    def _extra_key(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        room = {**node, "type": ["object"]}
        if "maxProperties" in node:
            room["maxProperties"] = node["maxProperties"] - 1
        base = self._valid(room, stack)
        if base is None:
            return []
        declared = set(node.get("properties", {}))
        patterns = list(node.get("patternProperties", {}))
        names = _NAMES.filter(
            lambda k: k not in declared and not any(search(p, k) for p in patterns)
        )
        return [
            st.tuples(base, names, st.integers(0, 3)).map(
                lambda t: ({**t[0], t[1]: t[2]}, "additionalProperties", (t[1],))
            )
        ]

    def _nested(self, node: Node, stack: RefStack, depth: int) -> list[Site]:
        found: list[Site] = []
        kinds = node.get("type") or list(TYPES)
        if "object" in kinds:
            found += self._nested_properties(node, stack, depth)
            found += self._nested_extra(node, stack, depth)
        if "array" in kinds:
            found += self._nested_items(node, stack, depth)
        return found

    def _nested_properties(self, node: Node, stack: RefStack, depth: int) -> list[Site]:
        """A declared property's value broken, in an object valid everywhere else."""
        found: list[Site] = []
        obj = {**node, "type": ["object"]}
        for key in node.get("properties", {}):
            inner = self.sites(governing(node, key), stack, depth + 1)
            if not inner:
                continue
            # The key's own schema is what gets broken: the container only needs the key.
            opened = {
                **obj,
                "properties": {**obj["properties"], key: True},
                "required": list(dict.fromkeys([*obj.get("required", ()), key])),
            }
            container = self._valid(opened, stack)
            if container is None:
                continue
            # One site per inner violation: each is drawn as often as a top-level one.
            found += [
                _inside(
                    site,
                    st.tuples(container, site.strategy).map(
                        lambda t, key=key: _put(t[0], key, t[1])
                    ),
                )
                for site in inner
            ]
        return found

    def _nested_extra(self, node: Node, stack: RefStack, depth: int) -> list[Site]:
        """An undeclared key's value broken (``patternProperties``, ``additionalProperties``)."""
        declared = set(node.get("properties", {}))
        patterns: dict[str, Schema] = node.get("patternProperties", {})
        names_ok = self.ctx.check(node.get("propertyNames", True))
        targets: list[tuple[st.SearchStrategy[str], Schema]] = []
        for pattern, schema in patterns.items():
            others = [p for p in patterns if p != pattern]
            try:
                keys = pattern_strings(pattern, 0, None)
            except SchemaError:
                continue
            targets.append((keys.filter(_fresh(declared, others, names_ok)), schema))
        additional = node.get("additionalProperties", True)
        if isinstance(additional, dict) and additional:
            targets.append((_NAMES.filter(_fresh(declared, list(patterns), names_ok)), additional))
        inner = [(keys, self.sites(schema, stack, depth + 1)) for keys, schema in targets]
        if not any(sites for _, sites in inner):
            return []
        room = {**node, "type": ["object"]}
        if "maxProperties" in node:
            room["maxProperties"] = node["maxProperties"] - 1
        container = self._valid(room, stack)
        if container is None:
            return []
        return [
            _inside(site, st.tuples(container, keys, site.strategy).map(lambda t: _put(*t)))
            for keys, sites in inner
            for site in sites
        ]

    def _nested_items(self, node: Node, stack: RefStack, depth: int) -> list[Site]:
        found: list[Site] = []
        array = {**node, "type": ["array"]}
        prefix = list(node.get("prefixItems", ()))
        positions: list[tuple[int | None, Schema]] = list(enumerate(prefix))
        if node.get("items", True) not in (True, False):
            positions.append((None, node["items"]))
        for index, schema in positions:
            inner = self.sites(schema, stack, depth + 1)
            if not inner:
                continue
            needed = (index if index is not None else len(prefix)) + 1
            opened = merge(array, {"minItems": needed})
            if index is not None:  # the broken position's own schema may accept nothing
                opened["prefixItems"] = [*prefix[:index], True, *prefix[index + 1 :]]
            container = self._valid(opened, stack)
            if container is None:
                continue
            first = len(prefix) if index is None else index

            def place(
                t: tuple[list[Any], Broken, int], fixed: int | None = index, first: int = first
            ) -> Broken:
                values, (value, keyword, parts), pick = t
                at = fixed if fixed is not None else first + pick % (len(values) - first)
                return ([*values[:at], value, *values[at + 1 :]], keyword, _under(at, parts))

            found += [
                _inside(site, st.tuples(container, site.strategy, st.integers(0)).map(place))
                for site in inner
            ]
        return found


def beside_unevaluated(found: list[Violation]) -> list[Violation]:
    """The violations that are not only the annotation rule's consequence.

    A property or item is evaluated only by a subschema that passes, so breaking
    one leaves what it evaluated unevaluated: ``unevaluatedProperties`` or
    ``unevaluatedItems`` fails beside the keyword broken, and is left out here.
    The same keyword failing twice at one path (one ``$ref`` reached through
    ``properties`` and ``additionalProperties`` of two ``allOf`` parts) is one
    constraint: kept once.
    """
    kept = [violation for violation in found if violation.keyword not in _UNEVALUATED]
    once: dict[tuple[str, str], Violation] = {}
    for violation in kept or found:
        once.setdefault((violation.keyword, violation.path), violation)
    return list(once.values())


def _grown(value: Any, depth: int = 0) -> list[Any]:
    """``value`` with one witness more in one of its arrays or objects (an unevaluated item or
    key, say), at most two levels down."""
    out: list[Any] = []
    if isinstance(value, list):
        out += [[*value, witness] for witness in WITNESSES]
        if depth < 2:
            for index, item in enumerate(value):
                out += [[*value[:index], g, *value[index + 1 :]] for g in _grown(item, depth + 1)]
    elif isinstance(value, dict):
        out += [{**value, _EXTRA_KEY: witness} for witness in WITNESSES]
        if depth < 2:
            for key, item in value.items():
                out += [{**value, key: g} for g in _grown(item, depth + 1)]
    return out


def _just_past(keyword: str, bound: float, numeric: list[str]) -> float:
    """The number nearest ``bound`` that breaks it: it breaks only the tightest of bounds
    merged from several subschemas (``minimum: 5`` of ``items`` and ``minimum: 3`` of an
    ``allOf``'s ``prefixItems``: 4), where most numbers past it break them all."""
    upward = keyword in ("maximum", "exclusiveMaximum")
    exclusive = keyword.startswith("exclusive")
    if isinstance(bound, int) or bound.is_integer():  # exact: 10**400 is past any float
        whole = int(bound)
        return whole if exclusive else whole + (1 if upward else -1)
    if "number" in numeric:
        return bound if exclusive else math.nextafter(bound, math.inf if upward else -math.inf)
    return math.floor(bound) + 1 if upward else math.ceil(bound) - 1


def _ever(site: st.SearchStrategy[Broken], holds: Callable[[Broken], bool]) -> bool:
    """Whether one of a few fixed draws of ``site`` gives a violation for which ``holds``."""
    for seed in (None, *range(1, _PROBES)):
        drawn = draw_outside(site, seed)
        if drawn is not None and holds(drawn.value):
            return True
    return False


def _value_of(broken: Broken) -> Any:
    return broken[0]


def _walk(schema: Any) -> Any:
    """Every dict inside a schema's JSON, itself included (data such as ``enum`` too)."""
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _walk(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _walk(item)


def _named_anywhere(node: Node) -> tuple[set[str], list[str]]:
    """Property names and patterns any subschema of ``node`` declares (it may evaluate them)."""
    names: set[str] = set()
    patterns: list[str] = []
    for part in _walk(node):
        if isinstance(part.get("properties"), dict):
            names.update(part["properties"])
        if isinstance(part.get("patternProperties"), dict):
            patterns += [p for p in part["patternProperties"] if p not in patterns]
    return names, patterns


def _longest_prefix(node: Node) -> int:
    """The most ``prefixItems`` positions any subschema of ``node`` evaluates."""
    lengths = [len(p["prefixItems"]) for p in _walk(node) if isinstance(p.get("prefixItems"), list)]
    return max(lengths, default=0)


def _contains_anywhere(node: Node) -> list[Schema]:
    return [part["contains"] for part in _walk(node) if "contains" in part]


def _under(step: str | int, parts: tuple[str | int, ...] | None) -> tuple[str | int, ...] | None:
    return None if parts is None else (step, *parts)


def _put(container: dict[str, Any], key: str, broken: Broken) -> Broken:
    value, keyword, parts = broken
    return ({**container, key: value}, keyword, _under(key, parts))


def _inside(site: Site, strategy: st.SearchStrategy[Broken]) -> Site:
    """``site`` placed inside a container: the same place, drawn by ``strategy``."""
    return dataclasses.replace(site, strategy=strategy)


def _fresh(
    declared: set[str], patterns: list[str], names_ok: Callable[[Any], bool]
) -> Callable[[str], bool]:
    """Keys no declared property or other pattern governs, and ``propertyNames`` allows."""
    return lambda key: (
        key not in declared and not any(search(p, key) for p in patterns) and names_ok(key)
    )
