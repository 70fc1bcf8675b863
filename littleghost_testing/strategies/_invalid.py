"""Inputs that break exactly one constraint, with the keyword and path they break.

Every mutation is built from the schema itself: a value valid for the schema
with one keyword replaced by its negation (``minimum`` becomes "below the
minimum", ``required`` becomes "without that key"), placed inside a container
that is valid everywhere else. The validator then confirms the value fails on
that keyword at that path and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from ._build import ANY_JSON, Builder
from ._context import RefStack, Schema, TooDeep, canonical
from ._errors import SchemaError
from ._merge import TYPES, flatten, governing, merge
from ._numbers import numbers
from ._patterns import pattern_strings, search
from ._strings import TEXT_ALPHABET

__all__ = ["Broken", "InvalidInput", "Mutations"]

Node = dict[str, Any]
# (value, keyword, path parts): None where the validator names it (a negated combinator).
Broken = tuple[Any, str | None, tuple[str | int, ...] | None]
# How deep inside nested objects and arrays violations are placed.
_MAX_DEPTH = 6
_NEGATED_BOUNDS = {
    "minimum": "exclusiveMaximum",
    "exclusiveMinimum": "maximum",
    "maximum": "exclusiveMinimum",
    "exclusiveMaximum": "minimum",
}
_WRONG_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": st.integers(),
    "string": st.text(TEXT_ALPHABET, max_size=8),
    "array": st.lists(st.integers() | st.text(max_size=4), max_size=3),
    "object": st.dictionaries(st.text(max_size=4), st.integers() | st.none(), max_size=3),
}
_NAMES = st.text(TEXT_ALPHABET, min_size=1, max_size=10)


@dataclass(frozen=True, slots=True)
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

    def sites(
        self, schema: Schema, stack: RefStack, depth: int = 0
    ) -> list[st.SearchStrategy[Broken]]:
        if schema is False:
            return [ANY_JSON.map(lambda value: (value, None, ()))]
        try:
            node, refs = flatten(schema, self.ctx)
            stack = stack.push(refs)
        except (SchemaError, TooDeep):
            return []
        found = self._local(node, stack)
        if depth < _MAX_DEPTH and not stack.leaf:
            found += self._nested(node, stack, depth)
        return found

    def _valid(self, node: Node, stack: RefStack) -> st.SearchStrategy[Any] | None:
        try:
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
        for keyword, negation in _NEGATED_BOUNDS.items():
            if keyword in plain and numeric:
                # Past one bound is inside the opposite one: drop all four, add the negation.
                rest = {key: value for key, value in plain.items() if key not in _NEGATED_BOUNDS}
                found += self._variant(
                    {**rest, "type": numeric, negation: plain[keyword]}, stack, keyword
                )
        if "multipleOf" in plain and numeric:
            rest = {key: value for key, value in plain.items() if key != "multipleOf"}
            check = self.ctx.check({"multipleOf": plain["multipleOf"]})
            found += self._variant(
                {**rest, "type": numeric}, stack, "multipleOf", lambda v: not check(v)
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
        if keyword is not None:
            return self._excluded(rest, extra[keyword], stack, keyword, ())
        if set(extra) == {"not"}:
            try:
                negated, refs = flatten(extra["not"], self.ctx)
                return self._variant(merge(rest, negated), stack.push(refs), "not")
            except (SchemaError, TooDeep):
                return []
        if "if" not in extra:
            return []
        found: list[st.SearchStrategy[Broken]] = []
        # Breaking `then` (or `else`) breaks one of its keywords: the validator names it.
        if "then" in extra:
            try:
                condition, refs = flatten(extra["if"], self.ctx)
                found += self._excluded(
                    merge(rest, condition), [extra["then"]], stack.push(refs), None, None
                )
            except (SchemaError, TooDeep):
                pass
        if "else" in extra:
            found += self._excluded(rest, [extra["if"], extra["else"]], stack, None, None)
        return found

    def _excluded(
        self,
        node: Node,
        negated: list[Schema],
        stack: RefStack,
        keyword: str | None,
        parts: tuple[str | int, ...] | None,
    ) -> list[st.SearchStrategy[Broken]]:
        try:
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
        bounds = {key: node[key] for key in _NEGATED_BOUNDS if key in node}
        if "minimum" in node and node.get("maximum") == node["minimum"]:
            return st.nothing()  # the one number allowed is not a fraction
        try:
            return numbers(bounds, lambda _: True).filter(
                lambda value: isinstance(value, float) and not value.is_integer()
            )
        except SchemaError:
            return st.nothing()

    def _strings(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        text = {**node, "type": ["string"]}
        found: list[st.SearchStrategy[Broken]] = []
        if node.get("minLength", 0) > 0:
            rest = {k: v for k, v in text.items() if k != "minLength"}
            found += self._variant({**rest, "maxLength": node["minLength"] - 1}, stack, "minLength")
        if "maxLength" in node:
            rest = {k: v for k, v in text.items() if k != "maxLength"}
            found += self._variant({**rest, "minLength": node["maxLength"] + 1}, stack, "maxLength")
        if "pattern" in node:
            rest = {k: v for k, v in text.items() if k != "pattern"}
            pattern = node["pattern"]
            found += self._variant(rest, stack, "pattern", lambda v: not search(pattern, v))
        return found

    def _arrays(self, node: Node, stack: RefStack) -> list[st.SearchStrategy[Broken]]:
        array = {**node, "type": ["array"]}
        found: list[st.SearchStrategy[Broken]] = []
        if node.get("minItems", 0) > 0:
            rest = {k: v for k, v in array.items() if k != "minItems"}
            found += self._variant({**rest, "maxItems": node["minItems"] - 1}, stack, "minItems")
        if "maxItems" in node:
            rest = {k: v for k, v in array.items() if k != "maxItems"}
            found += self._variant({**rest, "minItems": node["maxItems"] + 1}, stack, "maxItems")
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
            found += self._variant({**rest, "items": avoid}, stack, keyword)
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
        if node.get("minProperties", 0) > 0:
            rest = {k: v for k, v in obj.items() if k != "minProperties"}
            found += self._variant(
                {**rest, "maxProperties": node["minProperties"] - 1}, stack, "minProperties"
            )
        if "maxProperties" in node:
            rest = {k: v for k, v in obj.items() if k != "maxProperties"}
            found += self._variant(
                {**rest, "minProperties": node["maxProperties"] + 1}, stack, "maxProperties"
            )
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
        return found

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

    def _nested(self, node: Node, stack: RefStack, depth: int) -> list[st.SearchStrategy[Broken]]:
        found: list[st.SearchStrategy[Broken]] = []
        kinds = node.get("type") or list(TYPES)
        if "object" in kinds:
            found += self._nested_properties(node, stack, depth)
            found += self._nested_extra(node, stack, depth)
        if "array" in kinds and "allOf" not in node:
            found += self._nested_items(node, stack, depth)
        return found

    def _nested_properties(
        self, node: Node, stack: RefStack, depth: int
    ) -> list[st.SearchStrategy[Broken]]:
        """A declared property's value broken, in an object valid everywhere else."""
        found: list[st.SearchStrategy[Broken]] = []
        obj = {**node, "type": ["object"]}
        busy = _combined_keys(node)
        for key in node.get("properties", {}):
            if key in busy:
                continue
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
                st.tuples(container, site).map(lambda t, key=key: _put(t[0], key, t[1]))
                for site in inner
            ]
        return found

    def _nested_extra(
        self, node: Node, stack: RefStack, depth: int
    ) -> list[st.SearchStrategy[Broken]]:
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
        if not targets:
            return []
        room = {**node, "type": ["object"]}
        if "maxProperties" in node:
            room["maxProperties"] = node["maxProperties"] - 1
        container = self._valid(room, stack)
        if container is None:
            return []
        found: list[st.SearchStrategy[Broken]] = []
        for keys, schema in targets:
            found += [
                st.tuples(container, keys, site).map(lambda t: _put(t[0], t[1], t[2]))
                for site in self.sites(schema, stack, depth + 1)
            ]
        return found

    def _nested_items(
        self, node: Node, stack: RefStack, depth: int
    ) -> list[st.SearchStrategy[Broken]]:
        found: list[st.SearchStrategy[Broken]] = []
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

            found += [st.tuples(container, site, st.integers(0)).map(place) for site in inner]
        return found


def _under(step: str | int, parts: tuple[str | int, ...] | None) -> tuple[str | int, ...] | None:
    return None if parts is None else (step, *parts)


def _put(container: dict[str, Any], key: str, broken: Broken) -> Broken:
    value, keyword, parts = broken
    return ({**container, key: value}, keyword, _under(key, parts))


def _fresh(
    declared: set[str], patterns: list[str], names_ok: Callable[[Any], bool]
) -> Callable[[str], bool]:
    """Keys no declared property or other pattern governs, and ``propertyNames`` allows."""
    return lambda key: (
        key not in declared and not any(search(p, key) for p in patterns) and names_ok(key)
    )


def _combined_keys(node: Node) -> set[str]:
    """Property names a combinator of ``node`` looks at: breaking them could break it too."""
    keys: set[str] = set()

    def walk(schema: Any) -> None:
        if isinstance(schema, dict):
            keys.update(schema.get("properties", {}))
            keys.update(schema.get("required", ()))
            for value in schema.values():
                walk(value)
        elif isinstance(schema, list):
            for item in schema:
                walk(item)

    walk(node.get("allOf", []))
    return keys
