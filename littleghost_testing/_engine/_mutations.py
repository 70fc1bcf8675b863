"""Invalid inputs made from a valid one: one constraint broken, everything else kept.

Invalid inputs drawn from scratch carry a repository path or a workbook that
does not exist; a server refuses them for that and its own checks are never
reached. Broken from an input that works (the schema's examples, ``--inputs``,
a coverage or generated input that succeeded), an invalid input differs from
an accepted one in one place, so a success means the server accepted what its
schema forbids. Each place is broken at each of its constraints (a bound, a
length, an item count, a pattern, an ``enum``, a required key, an unknown key
where none is allowed) and by the type confusions lax servers accept: ``"5"``
for 5, ``true`` for 1, ``"true"`` for ``true``, ``[x]`` for ``x``. The
validator confirms each input breaks exactly the keyword it names, at its place.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from littleghost import ConfigurationError
from littleghost._validation import SchemaValidator, json_path

from ..strategies import _KEYWORD_ALIASES as KEYWORD_ALIASES
from ..strategies import InvalidInput, SchemaError
from ._calls import Probe
from ._coverage import (
    MAX_COVERAGE_INPUTS,
    MAX_COVERAGE_LENGTH,
    Path,
    Place,
    SchemaParts,
    is_number,
    replaced,
)
from ._draws import GENERATION_BUDGET, Budget, OutOfBudget

__all__ = ["UNKNOWN_PROPERTY", "broken_inputs", "invalid_from"]

UNKNOWN_PROPERTY = "littleghost_unknown_property"
"""The key added to a working input to see whether the server refuses unknown properties."""

Break = tuple[Any, str, Path]  # the new value at the place, the keyword it breaks, and where


def broken_inputs(parts: SchemaParts, validator: SchemaValidator, base: Any) -> Iterator[Probe]:
    """Inputs that are ``base`` with one constraint broken (each confirmed), without repeats."""
    seen: set[str] = set()
    for place in parts.places(base):
        for new, keyword, where in _breaks(place):
            candidate = replaced(base, place.path, new)
            key = json.dumps(candidate, sort_keys=True)
            if not isinstance(candidate, dict) or key in seen:
                continue  # MCP sends objects only
            seen.add(key)
            confirmed = _confirmed(validator, candidate, keyword, where)
            if confirmed is not None:
                yield confirmed


def invalid_from(schema: Mapping[str, Any], inputs: Sequence[Any]) -> list[InvalidInput]:
    """Invalid inputs broken from the valid ones among ``inputs``: the contract checks' first.

    Each is broken as given, then with every optional key it lacks added.

    At most ``MAX_COVERAGE_INPUTS``; none for a schema the strategies cannot read.
    """
    try:
        validator = SchemaValidator(schema)
        parts = SchemaParts(schema, Budget(GENERATION_BUDGET))
    except (ConfigurationError, SchemaError):
        return []
    found: dict[str, InvalidInput] = {}
    try:
        valid = [base for base in inputs if validator.is_valid(base)]
        for base in [*valid, *(parts.fullest(base) for base in valid)]:
            for probe in broken_inputs(parts, validator, base):
                record = InvalidInput(probe.input, str(probe.keyword), str(probe.path))
                found.setdefault(json.dumps(probe.input, sort_keys=True), record)
                if len(found) >= MAX_COVERAGE_INPUTS:
                    return list(found.values())
    except OutOfBudget:
        pass  # what was made in time is kept
    return list(found.values())


def _confirmed(validator: SchemaValidator, value: Any, keyword: str, where: Path) -> Probe | None:
    """A probe for ``value`` if its one violation is ``keyword`` at ``where``."""
    found = validator.violations(value)
    if len(found) != 1 or found[0].path != json_path(where):
        return None
    if found[0].keyword not in (keyword, *KEYWORD_ALIASES.get(keyword, ())):
        return None
    return Probe(value, valid=False, keyword=found[0].keyword, path=found[0].path)


def _breaks(place: Place) -> Iterator[Break]:
    node, value, path = place.schema, place.value, place.path
    yield from ((new, "type", path) for new in _confusions(value))
    yield from ((new, keyword, path) for new, keyword in _bounds(node, value))
    yield from ((new, keyword, path) for new, keyword in _lengths(node, value))
    yield from ((new, keyword, path) for new, keyword in _outside(node, value))
    if isinstance(value, dict):
        for key in node.get("required", ()):
            if key in value:
                kept = {name: item for name, item in value.items() if name != key}
                yield kept, "required", (*path, key)
        if node.get("additionalProperties") is False and UNKNOWN_PROPERTY not in value:
            yield {**value, UNKNOWN_PROPERTY: 0}, "additionalProperties", (*path, UNKNOWN_PROPERTY)


def _confusions(value: Any) -> Iterator[Any]:
    """What lax servers take for ``value``: its text, a boolean or number for it, a list of it."""
    if isinstance(value, bool):
        yield from (json.dumps(value), int(value))
    elif isinstance(value, int | float):
        yield from (json.dumps(value), True)
    elif isinstance(value, str):
        if value.strip().lstrip("-").isdigit():
            yield int(value)
    elif isinstance(value, list):
        if len(value) == 1:
            yield value[0]
    elif isinstance(value, dict):
        yield json.dumps(value)
    if value is not None:
        yield [value]
        yield None


def _bounds(node: dict[str, Any], value: Any) -> Iterator[tuple[Any, str]]:
    if not is_number(value):
        return
    integer = isinstance(value, int)
    for keyword, step in (("minimum", -1), ("maximum", 1)):
        bound = node.get(keyword)
        if is_number(bound):
            yield _past(bound, step, integer), keyword
    for keyword in ("exclusiveMinimum", "exclusiveMaximum"):
        bound = node.get(keyword)
        if is_number(bound):
            yield bound, keyword
    step = node.get("multipleOf")
    if is_number(step) and step > 0:
        yield value + (1 if integer and step > 1 else step / 2), "multipleOf"


def _past(bound: Any, step: int, integer: bool) -> Any:
    """The first value past ``bound`` a server would be sent: one past, for integers."""
    if integer:
        return (math.floor(bound) if step < 0 else math.ceil(bound)) + step
    return bound + step


def _lengths(node: dict[str, Any], value: Any) -> Iterator[tuple[Any, str]]:
    if isinstance(value, str):
        shortest, longest = node.get("minLength"), node.get("maxLength")
        if isinstance(shortest, int) and 0 < shortest <= MAX_COVERAGE_LENGTH:
            yield value[: shortest - 1], "minLength"
        if isinstance(longest, int) and 0 <= longest < MAX_COVERAGE_LENGTH:
            yield (value + "a" * (longest + 1))[: longest + 1], "maxLength"
        if isinstance(node.get("pattern"), str):
            yield from ((text, "pattern") for text in ("", " ", "!", "\n", value + "!"))
    elif isinstance(value, list):
        fewest, most = node.get("minItems"), node.get("maxItems")
        if isinstance(fewest, int) and 0 < fewest <= len(value):
            yield value[: fewest - 1], "minItems"
        if isinstance(most, int) and value and 0 <= most < MAX_COVERAGE_LENGTH:
            yield value + [value[-1]] * (most + 1 - len(value)), "maxItems"
        if node.get("uniqueItems") is True and value:
            yield [*value, value[0]], "uniqueItems"


def _outside(node: dict[str, Any], value: Any) -> Iterator[tuple[Any, str]]:
    """A value of the same type that an ``enum`` or ``const`` leaves out."""
    for keyword in ("enum", "const"):
        allowed = node.get(keyword)
        if keyword == "const":
            allowed = [allowed] if keyword in node else None
        if not isinstance(allowed, list):
            continue
        if isinstance(value, str):
            yield f"{value}_x", keyword
            yield value.upper() if value.upper() != value else value.lower(), keyword
        elif is_number(value):
            numbers = [item for item in allowed if is_number(item)]
            yield max(numbers, default=value) + 1, keyword
