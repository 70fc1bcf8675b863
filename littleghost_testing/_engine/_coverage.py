"""The coverage phase: deterministic valid inputs that reach a schema's edges before any luck.

Random examples find a bug at ``days == 365`` only by chance, and an optional
key, a second enum value or the other ``oneOf`` branch only when a draw
happens on it. So before them each tool gets inputs that follow its schema:
the smallest valid input (the simplest draw: optional keys absent) and the
fullest (every optional key present, at its default if it has one), and on
top of each, every place in it set in turn to each value at its schema's
edges: a numeric bound and the value next to an exclusive one, zero when
allowed, the empty and the longest string or array, each ``enum`` value, both
booleans, ``null`` where allowed, each ``anyOf``/``oneOf`` branch and each
type of a type list. Every input is
checked with littleghost's validator before it is sent as valid. How many
there are follows the schema, not ``--examples``, up to ``MAX_COVERAGE_INPUTS``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from littleghost import ConfigurationError
from littleghost._validation import SchemaValidator

from ..strategies import SchemaError, from_schema
from ..strategies import _Context as Context
from ..strategies import _thaw as thaw
from ..strategies import _to_2020_12 as to_2020_12
from ._draws import GENERATION_BUDGET, Budget, OutOfBudget, draw, plain

__all__ = [
    "MAX_COVERAGE_DEPTH",
    "MAX_COVERAGE_INPUTS",
    "MAX_COVERAGE_LENGTH",
    "Path",
    "Place",
    "SchemaParts",
    "base_inputs",
    "coverage_inputs",
    "edges",
    "is_number",
    "replaced",
    "valid_coverage",
]

MAX_COVERAGE_INPUTS = 100
"""At most this many valid coverage inputs per tool, and as many invalid ones."""

MAX_COVERAGE_LENGTH = 1000
"""The longest string or array a coverage input holds; a longer bound is left to random draws."""

MAX_COVERAGE_DEPTH = 4
"""How deep into nested objects and arrays the coverage phase goes."""

_MAX_REF_HOPS = 8
Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Place:
    """A place in an input: its path, its schema (``$ref``/``allOf`` merged), its value."""

    path: Path
    schema: dict[str, Any]
    value: Any


class SchemaParts:
    """One tool's input schema, read part by part: merged nodes and their simplest values."""

    def __init__(self, schema: Mapping[str, Any], budget: Budget) -> None:
        self.context = Context(to_2020_12(thaw(schema)))
        self.root = self.context.root  # embedded resources' references made absolute
        self.budget = budget
        self.defs = {key: self.root[key] for key in ("$defs", "definitions") if key in self.root}

    def merged(self, schema: Any, hops: int = 0) -> dict[str, Any]:
        """``schema`` with its ``$ref`` and ``allOf`` parts folded in (properties joined)."""
        if not isinstance(schema, dict) or hops > _MAX_REF_HOPS:
            return {}
        out: dict[str, Any] = {}
        parts: list[Any] = []
        if isinstance(schema.get("$ref"), str):
            with contextlib.suppress(SchemaError):  # an unresolvable $ref adds nothing
                parts.append(self.context.lookup(schema["$ref"])[1])
        parts += [part for part in schema.get("allOf", ()) if isinstance(part, dict)]
        for part in [*(self.merged(part, hops + 1) for part in parts), schema]:
            for key, value in part.items():
                if key in ("$ref", "allOf"):
                    continue
                if key == "properties" and isinstance(value, dict):
                    out["properties"] = {**out.get("properties", {}), **value}
                elif key == "required" and isinstance(value, list):
                    out["required"] = [*out.get("required", []), *value]
                else:
                    out[key] = value
        return out

    def simplest(self, schema: Any) -> Any:
        """The simplest valid value of a part of the schema, or ``_NONE`` if none can be made."""
        if schema is True or schema == {}:
            return _NONE
        part = {**schema, **self.defs} if isinstance(schema, dict) else schema
        try:
            strategy = plain(from_schema(part))
        except SchemaError:
            return _NONE
        drawn = draw(strategy, self.budget, None)
        return _NONE if drawn is None else drawn.value

    def preferred(self, schema: Any) -> Any:
        """The value an absent optional property gets: its ``default`` when the schema allows
        it (the server's own choice, so the likeliest to work; a server may check more than
        its schema says, as ``max_cells >= 1`` behind a bare ``integer``), else its simplest.
        A ``null`` default stands for the key's absence, so it is not used."""
        if isinstance(schema, dict) and schema.get("default") is not None:
            with contextlib.suppress(ConfigurationError):
                if SchemaValidator({**schema, **self.defs}).is_valid(schema["default"]):
                    return schema["default"]
        return self.simplest(schema)

    def places(self, value: Any, schema: Any = None, path: Path = ()) -> Iterator[Place]:
        """Every place in ``value``, outermost first: present properties, first array items."""
        node = self.merged(self.root if not path and schema is None else schema)
        yield Place(path, node, value)
        if len(path) >= MAX_COVERAGE_DEPTH:
            return
        if isinstance(value, dict):
            properties = node.get("properties", {})
            extra = node.get("additionalProperties", {})
            for key, item in value.items():
                sub = properties.get(key, extra if isinstance(extra, dict) else {})
                yield from self.places(item, sub, (*path, key))
        elif isinstance(value, list) and value:
            prefix = node.get("prefixItems", [])
            sub = prefix[0] if prefix else node.get("items", {})
            yield from self.places(value[0], sub if isinstance(sub, dict) else {}, (*path, 0))

    def fullest(self, value: Any, schema: Any = None, depth: int = 0) -> Any:
        """``value`` with every optional property it lacks added (its default if it has one), an
        empty array given an item."""
        node = self.merged(self.root if schema is None else schema)
        if depth > MAX_COVERAGE_DEPTH:
            return value
        if isinstance(value, list) and not value and node.get("maxItems") != 0:
            items = node.get("items", {})
            item = 0 if items in ({}, True) else self.simplest(items)
            return value if item is _NONE else [self.fullest(item, items, depth + 1)]
        if not isinstance(value, dict):
            return value
        out = dict(value)
        for key, sub in node.get("properties", {}).items():
            if key not in out:
                added = self.preferred(sub)
                if added is _NONE:
                    continue
                out[key] = added
            out[key] = self.fullest(out[key], sub, depth + 1)
        return out


class _Missing:
    def __repr__(self) -> str:
        return "<no value>"


_NONE: Any = _Missing()


def replaced(value: Any, path: Path, new: Any) -> Any:
    """A copy of ``value`` with the place at ``path`` set to ``new``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    index = int(head)
    return [*value[:index], replaced(value[index], rest, new), *value[index + 1 :]]


def _one_key_at_a_time(smallest: Any, fullest: Any, validator: SchemaValidator) -> Any:
    """As many of the fullest input's top-level keys as keep it valid, added in order."""
    out = dict(smallest)
    for key, item in fullest.items():
        if key not in out and validator.is_valid({**out, key: item}):
            out[key] = item
    return out


def valid_coverage(
    parts: SchemaParts, validator: SchemaValidator, starts: list[Any]
) -> Iterator[Any]:
    """The coverage phase's valid inputs: ``starts`` (``base_inputs``), then their edges."""
    seen: set[str] = set()
    candidates = itertools.chain(
        starts,
        (
            replaced(base, place.path, edge)
            for base in starts
            for place in parts.places(base)
            if place.path
            for edge in edges(parts, place)
        ),
    )
    for candidate in candidates:
        if len(seen) >= MAX_COVERAGE_INPUTS:
            return
        key = json.dumps(candidate, sort_keys=True)
        if key not in seen and validator.is_valid(candidate):
            seen.add(key)
            yield candidate


def coverage_inputs(schema: Mapping[str, Any]) -> list[Any]:
    """The coverage phase's valid inputs for ``schema``: the contract checks' first.

    The same inputs ``check`` sends first, so a boundary bug is found by every
    front end on every run, whatever its budget. None for a schema the
    strategies cannot read; those made in time when generation runs out.
    """
    found: list[Any] = []
    try:
        validator = SchemaValidator(schema)
        parts = SchemaParts(schema, Budget(GENERATION_BUDGET))
        for value in valid_coverage(parts, validator, base_inputs(parts, validator)):
            found.append(value)
    except (ConfigurationError, SchemaError, OutOfBudget):
        pass  # what was made in time is kept
    return found


def base_inputs(parts: SchemaParts, validator: SchemaValidator) -> list[Any]:
    """The smallest valid input, then the fullest if it differs; none if no input is valid."""
    smallest = parts.simplest(parts.root)
    if smallest is _NONE or not validator.is_valid(smallest):
        return []
    fullest = parts.fullest(smallest)
    if not validator.is_valid(fullest) and isinstance(fullest, dict):
        fullest = _one_key_at_a_time(smallest, fullest, validator)
    return [smallest] if fullest == smallest else [smallest, fullest]


def edges(parts: SchemaParts, place: Place) -> Iterator[Any]:
    """Values at the edges of ``place``'s schema; the validator judges them afterwards."""
    node = place.schema
    if "const" in node:
        yield node["const"]
    if isinstance(node.get("enum"), list):
        yield from node["enum"]
    yield from _made(parts, _branches(node))
    kinds = node.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds] if isinstance(kinds, str) else []
    if len(kinds) > 1:
        yield from _made(parts, ({**node, "type": kind} for kind in kinds))
    if "null" in kinds:
        yield None
    if "boolean" in kinds:
        yield from (True, False)
    if "integer" in kinds or "number" in kinds:
        yield from _numbers(node, integer="number" not in kinds)
    if "string" in kinds:
        yield from _strings(node)
    if "array" in kinds:
        yield from _arrays(parts, node)
    if isinstance(place.value, int) and not isinstance(place.value, bool):
        yield float(place.value)  # an integer by JSON Schema; strict servers may differ


def _branches(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each ``anyOf``/``oneOf`` branch of ``node``, with the rest of ``node`` beside it."""
    for keyword in ("anyOf", "oneOf"):
        for branch in node.get(keyword, ()):
            rest = {key: value for key, value in node.items() if key != keyword}
            yield {"allOf": [rest, branch]}


def _made(parts: SchemaParts, schemas: Iterable[Any]) -> Iterator[Any]:
    """The simplest value of each of ``schemas`` that one can be made of (some branches none)."""
    for schema in schemas:
        value = parts.simplest(schema)
        if value is not _NONE:
            yield value


def _numbers(node: dict[str, Any], *, integer: bool) -> Iterator[Any]:
    yield from (0, 1, -1)
    for keyword in ("minimum", "maximum"):
        bound = node.get(keyword)
        if is_number(bound):
            yield bound
    for keyword, step in (("exclusiveMinimum", 1), ("exclusiveMaximum", -1)):
        bound = node.get(keyword)
        if is_number(bound):
            if integer:
                yield math.floor(bound) + 1 if step > 0 else math.ceil(bound) - 1
            else:
                yield math.nextafter(bound, math.inf * step)
    step = node.get("multipleOf")
    if is_number(step):
        yield step


def _strings(node: dict[str, Any]) -> Iterator[str]:
    shortest, longest = node.get("minLength", 0), node.get("maxLength")
    for length in (shortest, longest):
        if isinstance(length, int) and 0 <= length <= MAX_COVERAGE_LENGTH:
            yield "a" * length
    if isinstance(shortest, int) and 0 <= shortest < MAX_COVERAGE_LENGTH:
        yield "é" * max(shortest, 1)  # non-ASCII text


def _arrays(parts: SchemaParts, node: dict[str, Any]) -> Iterator[list[Any]]:
    items = node.get("items", {})
    item = 0 if items in ({}, True) else parts.simplest(items)
    if item is _NONE or "prefixItems" in node:
        return
    for length in (node.get("minItems", 0), node.get("maxItems")):
        if isinstance(length, int) and 0 <= length <= MAX_COVERAGE_LENGTH:
            yield [item] * length


def is_number(value: Any) -> TypeGuard[int | float]:
    """A finite JSON number (``True`` is not one)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
