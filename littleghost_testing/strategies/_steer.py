"""Steered draws: valid seeds for shapes that fixed draws reach only by luck.

A shape deep inside a value takes several choices in a row, each likely
enough alone: an object at ``$.foo`` (one type of six where ``foo`` is a
``$ref`` back to an untyped root) that holds an optional ``foo`` of its own
came up in about one draw of 170, past the fixed draws valid seeds are
chosen from. So for each shape those draws missed (shallow ones first), a
few more draws start from the one that came nearest: a value at the deepest
place on the way to the shape, of the type that leads on (an object on the
way to a key) or that the shape needs there.

1. The choices that put it there are the shortest prefix of its choices whose
   simplest completion comes as near (a binary search: a draw makes its
   choices outermost first, and a prefix fixes everything it decided).
2. The next few choices decide the value there (its type, branch, which
   optional keys it takes): each other value of each, and with each, each
   value of the choice after it (a type is often two choices, a group of
   types and one of them), the rest simplest.
3. Then random completions of that prefix, and of the prefix a choice or a
   few longer.

An enum value or a boolean is the last choice of the value at its place:
a binary search finds it, and each of its values is tried in turn. A draw
that comes nearer is the new start, so a shape one recursion further in is
reached a step at a time. Every steered draw is a draw of the same strategy
from choices of its own, so a steered seed replays and shrinks like any
other seed; a shape no value can reach spends its share of draws.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ._in_turn import Seed

__all__ = ["MAX_STEERED_DRAWS", "STEERED_DRAWS_PER_SHAPE", "Drawn", "Steering"]

MAX_STEERED_DRAWS = 96
"""Draws one schema's valid seeds may spend steering toward the shapes the fixed draws
missed, all shapes together; past it, a missed shape stays missed."""

STEERED_DRAWS_PER_SHAPE = 32
"""Of those, the draws one missed shape may spend: a shape no value can reach (a key a
``dependentSchemas`` elsewhere forbids) leaves the rest to the others."""

Target = tuple[str, ...]
Redraw = Callable[[Sequence[Any], int | None], Seed[Any] | None]
"""A draw whose first choices are fixed: the rest simplest (None) or from a fixed random seed."""
Reach = Callable[[Any], Collection[Target]]
"""Every shape and place a value reaches, in the terms of ``_coverage``'s walker."""

# The type of value each kind of shape needs at its place (an optional key needs an object).
_NEEDS = {
    "present": "object",
    "absent": "object",
    "empty": "array",
    "non-empty": "array",
    "boolean": "boolean",
}
# Shapes the last choice of the value at their place decides (``sampled_from``'s index, a
# boolean): tried value by value.
_LAST_CHOICE = frozenset({"enum", "boolean"})
# After the choices that put a draw's value at a place, how many choices are tried value by
# value (the next choices decide that value: its type, branch, which optional keys it
# takes), and at most how many values of each.
_NEXT_CHOICES = 4
_VALUES_PER_CHOICE = 4
# What follows a place in the name of a place inside it: a key, an item, a branch.
_INSIDE = (".", "[", "/")
# The type of value that leads on from a place to a key or an item in it.
_LEADS_ON = {".": "object", "[": "array"}


@dataclass(frozen=True, slots=True)
class Drawn:
    """A seed and every shape and place its value reaches."""

    seed: Seed[Any]
    found: Collection[Target]


class Steering:
    """Steered draws toward missed shapes, one after another, within one budget."""

    def __init__(self, redraw: Redraw, reach: Reach, budget: int = MAX_STEERED_DRAWS) -> None:
        self._redraw = redraw
        self._reach = reach
        self.left = budget
        self.drawn = 0
        self._share = 0
        self._simplest: dict[tuple[tuple[type, Any], ...], Drawn | None] = {}

    def reach(self, targets: Collection[Target], drawn: Sequence[Drawn]) -> list[Drawn]:
        """Draws that reach ``targets`` (the shapes ``drawn`` missed), shallow shapes first:
        a draw that reaches one is a nearer start for the shapes inside it."""
        drawn = list(drawn)
        hits: list[Drawn] = []
        for target in sorted(targets, key=_depth):
            if not self.left:
                break
            if any(target in hit.found for hit in hits):
                continue
            hit = self.toward(target, drawn)
            if hit is not None:
                hits.append(hit)
                drawn.append(hit)
        return hits

    def toward(self, target: Target, drawn: Sequence[Drawn]) -> Drawn | None:
        """A draw that reaches ``target``, starting from the nearest of ``drawn``; None when
        this shape's share of draws is spent first."""
        if not drawn:
            return None
        nearness = _nearness(target)
        self._share = min(STEERED_DRAWS_PER_SHAPE, self.left)
        base = max(drawn, key=lambda near: (nearness(near.found), -len(near.seed.choices)))
        enumerated = False
        while self._share:
            there = nearness(base.found)[0] == len(target[1])
            if there and not enumerated and target[0] in _LAST_CHOICE:
                enumerated = True
                found = self._each_last_choice(base, target)
            else:
                found = self._nearer(base, target, nearness)
            if found is not None and target in found.found:
                return found
            base = found or base
        return None

    def _nearer(
        self, base: Drawn, target: Target, nearness: Callable[[Collection[Target]], Any]
    ) -> Drawn | None:
        """A draw that reaches ``target`` or comes nearer than ``base``, from the choices that
        put ``base``'s value as near: each value of the next few choices, the rest simplest
        (and with each, each value of the choice after it: a type is often two choices, a
        group of types and one of them); then random completions (of the first choice after
        them most often)."""
        goal = nearness(base.found)
        start, hit = self._shortest(base, target, lambda found: nearness(found) >= goal)
        if hit is not None:
            return hit
        choices = base.seed.choices
        for position in range(start, min(start + _NEXT_CHOICES, len(choices))):
            for found in self._each_value(choices, position, _VALUES_PER_CHOICE):
                if target in found.found or nearness(found.found) > goal:
                    return found
                if position + 1 >= len(found.seed.choices):
                    continue
                then = found.seed.choices
                for deeper in self._each_value(then, position + 1, _VALUES_PER_CHOICE):
                    if target in deeper.found or nearness(deeper.found) > goal:
                        return deeper
        for position in _positions(start, len(choices)):
            if not self._share:
                break
            found = self._draw(choices[:position])
            if found is not None and target in found.found:
                return self._smaller(found, position + 1, target)
            if found is not None and nearness(found.found) > goal:
                return found
        return None

    def _each_last_choice(self, base: Drawn, target: Target) -> Drawn | None:
        """A draw that reaches ``target`` (an enum value, a boolean) with another value of the
        last choice of ``base``'s value at its place: each in turn, the rest simplest."""
        at = target[1]
        values = _values_at(base.found, at)
        end, hit = self._shortest(
            base, target, lambda found: values <= _values_at(found, at), at_random=True
        )
        if hit is not None or end == 0:
            return hit
        for found in self._each_value(base.seed.choices, end - 1, None):
            if target in found.found:
                return found
        return None

    def _each_value(
        self, choices: Sequence[Any], position: int, most: int | None
    ) -> Iterator[Drawn]:
        """Draws with each other value of the choice at ``position`` (the other boolean; the
        integers from 0 up, until one is out of the choice's range), the rest simplest."""
        last = choices[position]
        if isinstance(last, bool):
            others: Iterable[Any] = [not last]
        elif isinstance(last, int):
            others = (value for value in itertools.count() if value != last)
        else:
            return
        for tried, other in enumerate(others):
            if not self._share or tried == most:
                return
            found = self._draw([*choices[:position], other], simplest=True)
            if found is None:
                continue
            if found.seed.choices[position : position + 1] != (other,):
                return  # out of the choice's range: Hypothesis took its simplest value
            yield found

    def _shortest(
        self,
        base: Drawn,
        target: Target,
        keeps: Callable[[Collection[Target]], bool],
        *,
        at_random: bool = False,
    ) -> tuple[int, Drawn | None]:
        """The shortest prefix of ``base``'s choices whose simplest completion ``keeps`` what
        matters of it (a binary search), or a completion that reaches ``target`` on the way.

        ``at_random``: a random completion must keep it too. Where ``base`` made the
        simplest choice itself (its value there is the first enum value), the simplest
        completion of a prefix one choice short keeps it as well, and the search would
        end a choice too early.
        """
        low, high = 0, len(base.seed.choices)
        while low < high and self._share:
            middle = (low + high) // 2
            prefix = base.seed.choices[:middle]
            kept = False
            for simplest in (True, False) if at_random else (True,):
                found = self._draw(prefix, simplest=simplest) if self._share else None
                if found is not None and target in found.found:
                    return middle, found
                kept = found is not None and keeps(found.found)
                if not kept:
                    break
            if kept:
                high = middle
            else:
                low = middle + 1
        return high, None

    def _smaller(self, hit: Drawn, decided: int, target: Target) -> Drawn:
        """``hit``, or its first ``decided`` choices completed the simplest way if that still
        reaches ``target``: a smaller seed than the random rest makes."""
        if not self._share or decided >= len(hit.seed.choices):
            return hit
        found = self._draw(hit.seed.choices[:decided], simplest=True)
        return found if found is not None and target in found.found else hit

    def _draw(self, prefix: Sequence[Any], *, simplest: bool = False) -> Drawn | None:
        """A draw from ``prefix``, its rest simplest or random; the simplest ones are kept
        (each shape's search goes over the same prefixes of the same start)."""
        key = tuple((type(choice), choice) for choice in prefix) if simplest else None
        if key in self._simplest:
            return self._simplest[key]
        self._share -= 1
        self.left -= 1
        self.drawn += 1
        seed = self._redraw(prefix, None if simplest else self.drawn)
        found = None if seed is None else Drawn(seed, self._reach(seed.value))
        if key is not None:
            self._simplest[key] = found
        return found


def _nearness(target: Target) -> Callable[[Collection[Target]], tuple[int, bool]]:
    """How near a value's shapes come to ``target``: how deep the deepest place it has a
    value at on the way (the walker names each as a ``type`` shape), and whether a value
    there has the type that leads on (an object to a key, an array to an item) or, at the
    target's own place, the type the shape needs."""
    at = target[1]

    def nearness(found: Collection[Target]) -> tuple[int, bool]:
        places = [shape[1] for shape in found if shape[0] == "type" and _leads_to(shape[1], at)]
        if not places:
            return 0, False
        deepest = max(places, key=len)
        needs = _NEEDS.get(target[0]) if deepest == at else _LEADS_ON.get(at[len(deepest)])
        return len(deepest), needs is None or ("type", deepest, needs) in found

    return nearness


def _positions(start: int, end: int) -> Iterator[int]:
    """Where to complete a draw's ``end`` choices at random from, the first after ``start``
    most often: ``start``; then ``start`` and the next; then the four from ``start``...
    (the choices that decide the value at a place come first). Never ``end`` itself,
    which would replay the draw, unless that is all there is."""
    if start >= end:
        start = max(end - 1, 0)
    width = 1
    while True:
        yield from range(start, min(start + width, max(end, start + 1)))
        width *= 2


def _depth(target: Target) -> tuple[int, Target]:
    """Shallow shapes first (a shorter place name), then in order."""
    return len(target[1]), target


def _leads_to(place: str, at: str) -> bool:
    """Whether ``place`` is ``at`` or a place on the way to it."""
    return at.startswith(place) and (len(at) == len(place) or at[len(place)] in _INSIDE)


def _values_at(found: Collection[Target], at: str) -> set[str]:
    """The values (canonical JSON) a value has at place ``at``: the walker names each as an
    ``enum`` shape."""
    return {shape[2] for shape in found if shape[0] == "enum" and shape[1] == at}
