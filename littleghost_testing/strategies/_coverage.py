"""Which shapes a schema allows, and which of them a set of values reached.

Valid is not enough: a fuzzer that never sends an optional key, a second enum
value or the other ``oneOf`` branch never runs the code behind them. The
targets, each named by the schema location it belongs to:

- valid values: each optional property present and absent, each ``enum`` value,
  each ``anyOf``/``oneOf`` branch, both booleans, each type of a type list,
  empty and non-empty arrays (where the schema allows them);
- invalid inputs: each constraint, at each location, that can be broken alone
  (a keyword outside ``anyOf``/``oneOf``/``not``/``if``, not implied by a
  sibling: ``type`` beside ``enum`` cannot fail alone, nor the looser of two
  bounds, nor ``minLength: 1`` beside a pattern the empty string fails).

Locations follow the instance: ``$.a`` for property ``a``, ``$.a[]`` for its
items, ``$.a[0]`` for a ``prefixItems`` position, ``$.*`` for other keys, and
``/anyOf/1`` once inside a branch. A ``$ref`` is followed once per path.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from ._context import Context, Schema, canonical
from ._drafts import KEYWORD_ALIASES, to_2020_12
from ._errors import SchemaError
from ._in_turn import Seed
from ._invalid import InvalidInput
from ._patterns import search
from ._steer import Drawn, Redraw, Steering
from ._trivial import WITNESSES, rejects_every_value

__all__ = ["EXAMPLES", "Coverage", "coverage_of", "covering", "measure", "one_per_break"]

# The budget the targets must be reached within, per schema and per strategy.
EXAMPLES = 50

MAX_REACHABILITY_CHECKS = 64
"""Missed valid shapes per measure judged for reachability (each builds a narrowed schema);
past this, a missed shape counts as a miss."""

Target = tuple[str, ...]
_BOUND_PAIRS = (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum"))
_BREAKABLE = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties",
    "maxProperties", "enum", "const",
)  # fmt: skip
# Lower counts no value fails at zero.
_ZERO_COUNTS = ("minLength", "minItems", "minProperties")
_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]")


@dataclass
class Coverage:
    """Targets of one schema, and those reached so far (``break`` targets: invalid inputs)."""

    targets: set[Target] = field(default_factory=set)
    reached: set[Target] = field(default_factory=set)
    # Targets no value can reach (left out of ``targets``): see ``_Walker.reachable``.
    unreachable: set[Target] = field(default_factory=set)

    @property
    def ratio(self) -> float:
        return _ratio(self.targets, self.reached)

    def part(self, *, invalid: bool) -> tuple[int, int]:
        """(reached, total) for the valid-value targets, or the invalid-input ones."""
        mine = {target for target in self.targets if (target[0] == "break") == invalid}
        return len(mine & self.reached), len(mine)

    @property
    def missed(self) -> list[Target]:
        return sorted(self.targets - self.reached)


def _ratio(targets: set[Target], reached: set[Target]) -> float:
    return len(reached & targets) / len(targets) if targets else 1.0


def measure(schema: Schema, examples: int = EXAMPLES) -> Coverage:
    """Coverage of ``examples`` valid values and ``examples`` invalid inputs, seeded.

    Each is one derandomized Hypothesis run (generation phase, health checks
    on), so the figures repeat from run to run.
    """
    from ._api import from_schema, invalid_inputs

    values = _draw(from_schema(schema), examples)
    try:
        broken = _draw(invalid_inputs(schema), examples)
    except SchemaError:
        broken = []  # the schema accepts every value: nothing to break
    return coverage_of(schema, values, broken)


def _draw(strategy: Any, examples: int) -> list[Any]:
    from hypothesis import Phase, given, settings

    out: list[Any] = []
    run_settings = settings(
        max_examples=examples, database=None, deadline=None, derandomize=True,
        phases=[Phase.generate],
    )  # fmt: skip

    @run_settings
    @given(strategy)
    def run(value: Any) -> None:
        out.append(value)

    run()
    return out


def coverage_of(
    schema: Schema, values: Iterable[Any] = (), invalid: Iterable[InvalidInput] | None = None
) -> Coverage:
    """The coverage ``values`` (and, if given, ``invalid`` inputs) reach on ``schema``."""
    walker = _Walker(to_2020_12(schema))
    out = Coverage()
    walker.shapes(walker.root, "$", (), out.targets)
    for value in values:
        walker.reach(walker.root, value, "$", (), out.reached)
    missed = sorted(out.targets - out.reached)[:MAX_REACHABILITY_CHECKS]
    out.unreachable = {target for target in missed if not walker.reachable(target)}
    out.targets -= out.unreachable
    if invalid is not None:
        walker.constraints(walker.root, "$", (), out.targets)
        for record in invalid:
            out.reached.add(walker.broken(record))
        breaks = {target for target in out.targets if target[0] == "break"}
        unbroken = sorted(breaks - out.reached)[:MAX_REACHABILITY_CHECKS]
        unbreakable = {target for target in unbroken if not walker.breakable(target)}
        out.unreachable |= unbreakable
        out.targets -= unbreakable
    return out


def covering(
    schema: Schema,
    candidates: Iterator[Seed[Any]],
    first: int,
    most: int,
    redraw: Redraw | None = None,
) -> list[Seed[Any]]:
    """Few of ``candidates`` that reach every shape they all reach, chosen greedily.

    Takes candidates until every shape is reached, or ``first`` of them and
    more (up to ``most``) while some shape is unreached and the last batch
    still reached something new. Then, with ``redraw``, steered draws go after
    each shape still unreached (see ``_steer``). The first candidate is left
    out (it is the simplest, which Hypothesis draws first anyway) but what it
    reaches counts.
    """
    walker = _Walker(to_2020_12(schema))
    targets: set[Target] = set()
    walker.shapes(walker.root, "$", (), targets)
    pool: list[tuple[Seed[Any], set[Target]]] = []
    drawn: list[Drawn] = []
    left = set(targets)
    for candidate in itertools.islice(candidates, most):
        found = walker.found(candidate.value)
        pool.append((candidate, found & targets))
        drawn.append(Drawn(candidate, found))
        left -= found
        if not left:
            break  # every shape reached: more draws could only choose fewer seeds
        if len(pool) % first == 0 and not _gained(pool, first):
            break
    if not pool:
        return []
    if redraw is not None and left:
        for hit in Steering(redraw, walker.found).reach(left, drawn):
            pool.append((hit.seed, set(hit.found) & targets))
    chosen: list[Seed[Any]] = []
    left = targets - pool[0][1]
    while left:
        best, found = max(pool, key=lambda candidate: len(candidate[1] & left))
        if not found & left:
            break
        chosen.append(best)
        left -= found
    return chosen


def _gained(pool: list[tuple[Seed[Any], set[Target]]], batch: int) -> bool:
    """Whether the last ``batch`` candidates reached a shape the earlier ones did not."""
    earlier: set[Target] = set().union(*(found for _, found in pool[:-batch]))
    return any(found - earlier for _, found in pool[-batch:])


def one_per_break(schema: Schema, seeds: list[Seed[InvalidInput]]) -> list[Seed[InvalidInput]]:
    """The first of ``seeds`` to break each constraint target (keyword at a location), each
    in the tier of its recursion repeats (``_Walker.repeats``): a constraint met again one
    recursion deeper comes after every constraint met at its first pass."""
    walker = _Walker(to_2020_12(schema))
    first: dict[Target, Seed[InvalidInput]] = {}
    for seed in seeds:
        first.setdefault(walker.broken(seed.value), seed)
    return [replace(seed, tier=walker.repeats(seed.value)) for seed in first.values()]


class _Walker:
    def __init__(self, root: Schema) -> None:
        self.ctx = Context(root)
        self.root = self.ctx.root  # embedded resources' references made absolute

    def resolve(self, schema: Schema, seen: tuple[str, ...]) -> list[tuple[dict[str, Any], tuple]]:
        """``schema`` and its ``$ref``/``allOf`` parts, each with the refs followed to reach it."""
        if not isinstance(schema, dict):
            return []
        parts = [(schema, seen)]
        for uri, target in self._referenced(schema):
            if uri not in seen:
                parts += self.resolve(target, (*seen, uri))
        for part in schema.get("allOf", ()):
            parts += self.resolve(part, seen)
        return parts

    def _referenced(self, schema: dict[str, Any]) -> Iterator[tuple[str, Schema]]:
        """The URI and subschema each ``$ref``/``$dynamicRef`` of ``schema`` names, if found."""
        for keyword in ("$ref", "$dynamicRef"):
            if isinstance(schema.get(keyword), str):
                try:
                    yield self.ctx.lookup(schema[keyword])
                except SchemaError:
                    continue

    # -- valid shapes -------------------------------------------------------------------------

    def shapes(self, schema: Schema, at: str, seen: tuple, out: set[Target]) -> None:
        for node, refs in self.resolve(schema, seen):
            kinds = node.get("type")
            if isinstance(kinds, list) and len(kinds) > 1:
                out.update(("type", at, kind) for kind in kinds)
            if kinds == "boolean" or (isinstance(kinds, list) and "boolean" in kinds):
                out.update({("boolean", at, "true"), ("boolean", at, "false")})
            if isinstance(node.get("enum"), list):
                rest = {k: v for k, v in node.items() if k != "enum"}
                out.update(
                    ("enum", at, canonical(v)) for v in node["enum"] if self._matches(rest, v)
                )
            for keyword in ("anyOf", "oneOf"):
                branches = node.get(keyword, ())
                for index, branch in enumerate(branches):
                    where = f"{at}/{keyword}/{index}"
                    others = [*branches[:index], *branches[index + 1 :]]
                    if self._satisfiable(branch, others if keyword == "oneOf" else []):
                        out.add(("branch", where))
                        self.shapes(branch, where, refs, out)
            self._object_shapes(node, at, refs, out)
            self._array_shapes(node, at, refs, out)

    def reachable(self, target: Target) -> bool:
        """Whether a valid value can reach a (missed) shape: the root schema with the shape
        required where it belongs is satisfiable. Judged for shapes at a chain of declared
        properties, array items and ``anyOf``/``oneOf`` branches (``$.a[]/anyOf/0.b``: an
        item of ``$.a`` must pass that branch too); others count as reachable.

        The walk sees one subschema at a time; this sees them all: ``present`` for a key
        that ``dependentSchemas`` or an ``unevaluatedProperties: false`` elsewhere forbids
        (in an "uncle" schema or a sibling ``allOf`` part, say), ``empty`` for an array a
        ``patternProperties`` sibling gives ``minItems: 2``.
        """
        kind, at, *rest = target
        shape = _SHAPES.get(kind)
        steps = self._steps(at)
        if (
            shape is None
            or steps is None
            or not isinstance(self.root, dict)
            or any(not ref.startswith(_LOCAL_DEFS) for ref in _refs(self.root))
        ):
            return True  # a reference to the root (or into it) would carry the narrowing
        narrowed: Schema = shape(*rest)
        for step in reversed(steps):
            if step == _ITEMS:  # some item (`contains` evaluates items, as `items` does)
                narrowed = {"type": "array", "contains": narrowed}
            elif isinstance(step, str):
                narrowed = {"type": "object", "required": [step], "properties": {step: narrowed}}
            else:
                narrowed = {"allOf": [step, narrowed]}
        return self._satisfiable(
            {**self.root, "allOf": [*self.root.get("allOf", ()), narrowed]}, []
        )

    def breakable(self, target: Target) -> bool:
        """Whether an input can break a (missed) constraint alone: the root schema without
        that keyword wherever it governs the location, with the location present, is
        satisfiable. Any such input passes that schema (the keyword was its one failure), so
        if none does, no input breaks the keyword alone. Judged for constraints at a chain of
        declared properties (``$.a.b``); others count as breakable.

        ``type`` at ``$.foo`` beside a doubled ``not`` that wants ``bar``, under
        ``unevaluatedProperties: false``: every object with ``foo`` also has ``bar``, which
        nothing evaluates, so no input breaks ``foo``'s type alone.
        """
        _, keyword, at = target
        if (
            keyword == "required"
            or not _KEYS.fullmatch(at)
            or not isinstance(self.root, dict)
            or any(not ref.startswith(_LOCAL_DEFS) for ref in _refs(self.root))
        ):
            return True  # a reference to the root (or into it) would carry the narrowing
        keys = [match.group(1) for match in _KEY.finditer(at, 1)]
        left_out = _RELAXED.get(keyword, (keyword,))
        governing = {id(node) for node in self._governing(keys) if any(k in node for k in left_out)}
        relaxed = _without(self.root, left_out, governing)
        present: Schema = True
        for key in reversed(keys):
            present = {"type": "object", "required": [key], "properties": {key: present}}
        return _builds({**relaxed, "allOf": [*relaxed.get("allOf", ()), present]})

    def _governing(self, keys: list[str]) -> list[dict[str, Any]]:
        """Every subschema that applies at a chain of keys: through ``$ref`` and ``allOf``,
        ``properties``, matching ``patternProperties`` and ``additionalProperties``."""
        nodes = [node for node, _ in self.resolve(self.root, ())]
        for key in keys:
            children = [child for node in nodes for child in _children(node, key)]
            for node in nodes:
                patterns = node.get("patternProperties", {})
                children += [schema for pattern, schema in patterns.items() if search(pattern, key)]
            nodes = [node for child in children for node, _ in self.resolve(child, ())]
        return nodes

    def _steps(self, at: str) -> list[str | Schema] | None:
        """The steps to a location: a key for ``.key``, ``_ITEMS`` for ``[]``, the branch's
        schema for ``/anyOf/1``; None where that is not one schema (two branches share the
        location) or a branch declares a resource (``$id``, an anchor) that a copy would
        declare twice."""
        if not at.startswith("$") or not _STEPS.fullmatch(at, 1):
            return None
        steps: list[str | Schema] = []
        schemas: list[Schema] = [self.root]
        for match in _STEP.finditer(at, 1):
            key, items, keyword, index = match.groups()
            nodes = [node for schema in schemas for node, _ in self.resolve(schema, ())]
            if items is not None:
                steps.append(_ITEMS)
                schemas = [n["items"] for n in nodes if isinstance(n.get("items"), dict)]
                continue
            if key is not None:
                steps.append(key)
                schemas = [n["properties"][key] for n in nodes if key in n.get("properties", {})]
                continue
            branches = [
                n[keyword][int(index)] for n in nodes if len(n.get(keyword, ())) > int(index)
            ]
            if len(branches) != 1 or any(k in _RESOURCES for k in _keys(branches[0])):
                return None
            steps.append(branches[0])
            schemas = branches
        return steps

    def _satisfiable(self, schema: Schema, excluded: list[Schema]) -> bool:
        """Whether a value passes ``schema`` and none of ``excluded`` (the other ``oneOf``
        branches: a value two branches accept reaches neither)."""
        if excluded:
            schema = {"allOf": [schema], "not": {"anyOf": excluded}}
        return _builds(schema if not isinstance(schema, dict) else {**schema, **self._defs()})

    def _defs(self) -> dict[str, Any]:
        root = self.root if isinstance(self.root, dict) else {}
        return {key: root[key] for key in ("$defs", "definitions") if key in root}

    def _object_shapes(self, node: dict[str, Any], at: str, refs: tuple, out: set[Target]) -> None:
        required = set(node.get("required", ()))
        for key, schema in node.get("properties", {}).items():
            if key not in required and not rejects_every_value(schema, self.ctx):
                out.update({("present", at, key), ("absent", at, key)})
            self.shapes(schema, f"{at}.{key}", refs, out)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            self.shapes(extra, f"{at}.*", refs, out)

    def _array_shapes(self, node: dict[str, Any], at: str, refs: tuple, out: set[Target]) -> None:
        kinds = node.get("type")
        prefix = node.get("prefixItems", [])
        is_array = kinds == "array" or (isinstance(kinds, list) and kinds == ["array"])
        if not is_array:
            return
        if node.get("minItems", 0) == 0:
            out.add(("empty", at))
        closed = node.get("items") is False and not prefix
        if node.get("maxItems") != 0 and not closed:
            out.add(("non-empty", at))
        for index, schema in enumerate(prefix):
            self.shapes(schema, f"{at}[{index}]", refs, out)
        if isinstance(node.get("items"), dict):
            self.shapes(node["items"], f"{at}[]", refs, out)

    def found(self, value: Any) -> set[Target]:
        """Every shape ``value`` reaches, and a ``type`` shape for each place it has a value at."""
        out: set[Target] = set()
        self.reach(self.root, value, "$", (), out)
        return out

    def reach(self, schema: Schema, value: Any, at: str, seen: tuple, out: set[Target]) -> None:
        for node, refs in self.resolve(schema, seen):
            out.add(("type", at, _type_of(value)))
            if isinstance(value, bool):
                out.add(("boolean", at, "true" if value else "false"))
            out.add(("enum", at, canonical(value)))
            for keyword in ("anyOf", "oneOf"):
                for index, branch in enumerate(node.get(keyword, ())):
                    if self._matches(branch, value):
                        where = f"{at}/{keyword}/{index}"
                        out.add(("branch", where))
                        self.reach(branch, value, where, refs, out)
            if isinstance(value, dict):
                self._reach_object(node, value, at, refs, out)
            elif isinstance(value, list):
                out.add(("non-empty", at) if value else ("empty", at))
                prefix = node.get("prefixItems", [])
                for index, item in enumerate(value):
                    if index < len(prefix):
                        self.reach(prefix[index], item, f"{at}[{index}]", refs, out)
                    elif isinstance(node.get("items"), dict):
                        self.reach(node["items"], item, f"{at}[]", refs, out)

    def _reach_object(
        self, node: dict[str, Any], value: dict[str, Any], at: str, refs: tuple, out: set[Target]
    ) -> None:
        properties = node.get("properties", {})
        for key, schema in properties.items():
            if key in value:
                out.add(("present", at, key))
                self.reach(schema, value[key], f"{at}.{key}", refs, out)
            else:
                out.add(("absent", at, key))
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            for key, item in value.items():
                if key not in properties:
                    self.reach(extra, item, f"{at}.*", refs, out)

    # -- breakable constraints ------------------------------------------------------------------

    def constraints(self, schema: Schema, at: str, seen: tuple, out: set[Target]) -> None:
        for node, refs in self.resolve(schema, seen):
            for keyword in _alone(node):
                if self._can_break(keyword, node):
                    out.add(("break", keyword, at))
            for key in node.get("required", ()):
                out.add(("break", "required", f"{at}.{key}"))
            if node.get("additionalProperties") is False:
                out.add(("break", "additionalProperties", f"{at}.*"))
            for key, schema_of_key in node.get("properties", {}).items():
                self.constraints(schema_of_key, f"{at}.{key}", refs, out)
            if isinstance(node.get("additionalProperties"), dict):
                self.constraints(node["additionalProperties"], f"{at}.*", refs, out)
            for index, item in enumerate(node.get("prefixItems", ())):
                self.constraints(item, f"{at}[{index}]", refs, out)
            if isinstance(node.get("items"), dict):
                self.constraints(node["items"], f"{at}[]", refs, out)

    def broken(self, record: InvalidInput) -> Target:
        """The target an invalid input reaches; a missing key is named even where no
        ``properties`` declares it (``required`` targets are per key)."""
        steps = list(_PATH_PART.finditer(record.path))
        if record.keyword != "required" or not steps:
            keyword = _SPELLED.get(record.keyword, record.keyword)
            return ("break", keyword, self.locate(record.path))
        last = steps[-1]
        name, _, quoted = last.groups()
        key = name if name is not None else json.loads(quoted)
        return ("break", "required", f"{self.locate(record.path[: last.start()])}.{key}")

    def _matches(self, schema: Schema, value: Any) -> bool:
        """Whether ``value`` passes a part; False for a part that cannot be checked apart
        from its document (a draft-04 ``id`` base, say): the shape counts as not reached."""
        try:
            return self.ctx.check(schema)(value)
        except SchemaError:
            return False

    def _can_break(self, keyword: str, node: dict[str, Any]) -> bool:
        """Whether some value breaks ``keyword`` alone; not ``multipleOf: 1e-8`` beside
        ``type: integer`` (1 is a multiple), nor ``type`` where no witness of another type
        passes the rest (``type: string`` beside ``oneOf: [{minLength: 2}, {maxLength: 4}]``:
        every non-string passes both branches)."""
        try:
            if keyword == "multipleOf" and node.get("type") in ("integer", ["integer"]):
                return not self.ctx.check({"multipleOf": node["multipleOf"]})(1)
            if keyword == "type":
                kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
                allowed = self.ctx.check({"type": kinds})
                rest = self.ctx.check({k: v for k, v in node.items() if k != "type"})
                return any(rest(value) for value in WITNESSES if not allowed(value))
        except SchemaError:
            pass  # a part we cannot check: count the target
        return True

    def repeats(self, record: InvalidInput) -> int:
        """How many ``$ref``s already followed further out the walk to the broken keyword
        follows again: 0 for a keyword ``constraints`` counts (each reference followed once
        per path), 1 for the same keyword one recursion deeper (``type`` at ``$.not`` of a
        ``$ref`` to the 2020-12 metaschema: the subschema there is the metaschema again)."""
        keys = [_key_of(match) for match in _PATH_PART.finditer(record.path)]
        if record.keyword == "required":
            keys = keys[:-1]  # the missing key: `required` is its parent's
        names = {record.keyword, *(k for k, v in KEYWORD_ALIASES.items() if record.keyword in v)}
        levels = [self._passes(self.root, (), 0, ())]
        for key in keys:
            levels.append(
                [
                    found
                    for node, refs, count in levels[-1]
                    for child in _children(node, key)
                    for found in self._passes(child, refs, count, ())
                ]
            )
        for nodes in reversed(levels[-2:]):  # its own place, else its parent's (an extra key)
            counts = [count for node, _, count in nodes if names & node.keys()]
            if counts:
                return min(counts)
        return 0

    def _passes(
        self, schema: Schema, refs: tuple[str, ...], count: int, here: tuple[str, ...]
    ) -> list[tuple[dict[str, Any], tuple[str, ...], int]]:
        """``schema`` and its ``$ref``/``allOf`` parts at one place, each with the refs followed
        on the way from the root and how many of those were followed twice; ``here`` are the
        refs followed at this place (a loop with no step into the instance stops there)."""
        if not isinstance(schema, dict):
            return []
        found = [(schema, refs, count)]
        for uri, target in self._referenced(schema):
            if uri not in here:
                found += self._passes(target, (*refs, uri), count + (uri in refs), (*here, uri))
        for part in schema.get("allOf", ()):
            found += self._passes(part, refs, count, here)
        return found

    def locate(self, path: str) -> str:
        """The location of an instance path (``$.a[3]`` is ``$.a[]`` unless 3 is a prefix)."""
        at, schemas = "$", [self.root]
        for match in _PATH_PART.finditer(path):
            name, index, quoted = match.groups()
            nodes = [node for schema in schemas for node, _ in self.resolve(schema, ())]
            if index is not None:
                position = int(index)
                prefix = max((len(node.get("prefixItems", ())) for node in nodes), default=0)
                step = f"[{position}]" if position < prefix else "[]"
                key: str | int = position
            else:
                key = name if name is not None else json.loads(quoted)
                declared = any(key in node.get("properties", {}) for node in nodes)
                step = f".{key}" if declared else ".*"
            at += step
            schemas = [child for node in nodes for child in _children(node, key)]
        return at


# What a value must be to reach a valid shape (see _Walker.reachable).
_SHAPES: dict[str, Any] = {
    "present": lambda key: {"type": "object", "required": [key]},
    "absent": lambda key: {"type": "object", "properties": {key: False}},
    "empty": lambda: {"type": "array", "maxItems": 0},
    "non-empty": lambda: {"type": "array", "minItems": 1},
    "enum": lambda value: {"const": json.loads(value)},
    "boolean": lambda value: {"const": value == "true"},
    "type": lambda kind: {"type": kind},
}
# Keywords left out with a constraint judged for reachability: an input with no matching
# item breaks `minContains`, which `contains` alone would still rule out.
_RELAXED = {
    "contains": ("contains", "minContains", "maxContains"),
    "minContains": ("contains", "minContains", "maxContains"),
    "maxContains": ("contains", "minContains", "maxContains"),
}
# The 2020-12 name of a keyword the validator spells as an older draft does (the array form
# of draft-7 `dependencies`).
_SPELLED = {"dependencies": "dependentRequired"}
_KEY = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")
_KEYS = re.compile(rf"\$(?:{_KEY.pattern})*")
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|(\[\])|/(anyOf|oneOf)/(\d+)")
_ITEMS = "[]"  # the step into an array's items (past any prefixItems)
_STEPS = re.compile(rf"(?:{_STEP.pattern})*")
_RESOURCES = ("$id", "$anchor", "$dynamicAnchor")
_LOCAL_DEFS = ("#/$defs/", "#/definitions/")


def _refs(schema: Any) -> Iterator[str]:
    """Every ``$ref`` and ``$dynamicRef`` inside a schema's JSON."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item)


def _builds(schema: Schema) -> bool:
    """Whether ``from_schema`` builds values of ``schema`` (a contradiction, or none of its
    fixed draws passing the validator, is a ``SchemaError``)."""
    from ._api import from_schema  # the strategies judge what can be generated

    try:
        from_schema(schema)
    except SchemaError:
        return False
    return True


def _without(schema: Any, keywords: tuple[str, ...], nodes: set[int]) -> Any:
    """A copy of a schema's JSON with ``keywords`` left out of the subschemas in ``nodes``
    (by identity)."""
    if isinstance(schema, dict):
        drop = id(schema) in nodes
        return {
            key: _without(value, keywords, nodes)
            for key, value in schema.items()
            if not (drop and key in keywords)
        }
    if isinstance(schema, list):
        return [_without(item, keywords, nodes) for item in schema]
    return schema


def _keys(schema: Any) -> Iterator[str]:
    """Every key of every object inside a schema's JSON."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            yield from _keys(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keys(item)


def _alone(node: dict[str, Any]) -> list[str]:
    """The keywords of ``node`` that a value can break without breaking a sibling."""
    found = [keyword for keyword in _BREAKABLE if keyword in node and _can_fail(keyword, node)]
    if "type" in node and "enum" not in node and "const" not in node:
        found.append("type")
    if "contains" in node and node.get("minContains", 1) > 0:
        found.append(_too_few_matches(node))
    if "contains" in node and "maxContains" in node and "maxContains" not in found:
        found.append("maxContains")
    if any(node.get("dependentRequired", {}).values()):
        found.append("dependentRequired")
    for inclusive, exclusive in _BOUND_PAIRS:
        if inclusive in node and exclusive in node:
            looser = inclusive if _looser(inclusive, node) else exclusive
            found.remove(looser)
    pattern = node.get("pattern")
    if node.get("minLength") == 1 and isinstance(pattern, str) and not _matches_empty(pattern):
        found.remove("minLength")  # the empty string breaks the pattern too
    return found


def _too_few_matches(node: dict[str, Any]) -> str:
    """The keyword the validator names for an array with too few items matching ``contains``:
    ``minContains`` if given, else ``maxContains`` if given (its check counts them all), else
    ``contains``."""
    return next((k for k in ("minContains", "maxContains") if k in node), "contains")


def _can_fail(keyword: str, node: dict[str, Any]) -> bool:
    """False for a keyword no value fails: ``uniqueItems: false``, a zero lower count."""
    if keyword == "uniqueItems":
        return node[keyword] is True
    return not (keyword in _ZERO_COUNTS and node[keyword] == 0)


def _matches_empty(pattern: str) -> bool:
    try:
        return search(pattern, "")
    except SchemaError:
        return True  # a pattern we cannot read: count the target


def _looser(inclusive: str, node: dict[str, Any]) -> bool:
    bound, exclusive = node[inclusive], node["exclusive" + inclusive[0].upper() + inclusive[1:]]
    return bound < exclusive if inclusive == "minimum" else bound > exclusive


def _key_of(step: re.Match[str]) -> str | int:
    """The key or index one step of an instance path names."""
    name, index, quoted = step.groups()
    if index is not None:
        return int(index)
    return name if name is not None else json.loads(quoted)


def _children(node: dict[str, Any], key: str | int) -> list[Schema]:
    if isinstance(key, int):
        prefix = node.get("prefixItems", [])
        return [prefix[key]] if key < len(prefix) else [node.get("items", True)]
    if key in node.get("properties", {}):
        return [node["properties"][key]]
    return [node.get("additionalProperties", True)]


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]
