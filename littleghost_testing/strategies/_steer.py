"""Steered draws: valid seeds for shapes that fixed draws reach only by luck.

A shape deep inside a value takes several choices in a row, each likely
enough alone: an object at ``$.foo`` (one type of six where ``foo`` is a
``$ref`` back to an untyped root) that holds an optional ``foo`` of its own
came up in about one draw of 170, past the fixed draws valid seeds are
chosen from. So for each shape those draws missed, a few more draws start
from the one that came nearest (a value at the deepest place on the way to
the shape, of the type the shape needs there), keep the choices that put it
there and draw the rest afresh:

1. the choices that put it there are the shortest prefix of its choices whose
   simplest completion comes as near (a binary search: a draw makes its
   choices outermost first, and a prefix fixes everything it decided);
2. the draws that follow complete that prefix at random, and then the prefix
   one choice longer each time: the first choices after it decide the value
   at that place (which optional keys it takes, its branch, its enum value).

A draw that comes nearer is the new start, so a shape one recursion further
in is reached a step at a time. Every steered draw is a draw of the same
strategy from choices of its own, so a steered seed replays and shrinks like
any other seed; a shape no value can reach spends its share of draws and is
given up.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ._in_turn import Seed

__all__ = ["MAX_STEERED_DRAWS", "STEERED_DRAWS_PER_SHAPE", "Drawn", "Steering"]

MAX_STEERED_DRAWS = 64
"""Draws one schema's valid seeds may spend steering toward the shapes the fixed draws
missed, all shapes together; past it, a missed shape stays missed."""

STEERED_DRAWS_PER_SHAPE = 32
"""Of those, the draws one missed shape may spend: a shape no value can reach (a key a
``dependentSchemas`` elsewhere forbids) leaves the rest to the others."""

Target = tuple[str, ...]
Redraw = Callable[[Sequence[Any], "int | None"], "Seed[Any] | None"]
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
# What follows a place in the name of a place inside it: a key, an item, a branch.
_INSIDE = (".", "[", "/")


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
        """A draw that reaches ``target`` or comes nearer than ``base``: random completions
        of the choices that put ``base``'s value as near, then of one choice more each time."""
        goal = nearness(base.found)
        start, hit = self._shortest(base, target, lambda found: nearness(found) >= goal)
        if hit is not None:
            return hit
        choices = base.seed.choices
        # Past the last choice a draw would only replay ``base``.
        positions = range(start, len(choices)) or range(max(len(choices), 1))
        step = 0
        while self._share:
            position = positions[step % len(positions)]
            step += 1
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
        last = base.seed.choices[end - 1]
        if isinstance(last, bool):
            others: Iterable[Any] = [not last]
        elif isinstance(last, int):
            others = (index for index in itertools.count() if index != last)
        else:
            return None
        seen = set(values)
        for other in others:
            if not self._share:
                break
            found = self._draw([*base.seed.choices[: end - 1], other], simplest=True)
            if found is None:
                continue
            if target in found.found:
                return found
            new = _values_at(found.found, at)
            if new <= seen and other > last:
                break  # past the choice's range: its simplest value again
            seen |= new
        return None

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
        self._share -= 1
        self.left -= 1
        self.drawn += 1
        seed = self._redraw(prefix, None if simplest else self.drawn)
        return None if seed is None else Drawn(seed, self._reach(seed.value))


def _nearness(target: Target) -> Callable[[Collection[Target]], tuple[int, bool]]:
    """How near a value's shapes come to ``target``: how deep the deepest place it reaches
    on the way (the walker names a value at each place as a ``type`` shape), and whether
    the value at the target's own place has the type the shape needs."""
    at = target[1]
    needs = _NEEDS.get(target[0])

    def nearness(found: Collection[Target]) -> tuple[int, bool]:
        deepest = max(
            (len(shape[1]) for shape in found if shape[0] == "type" and _leads_to(shape[1], at)),
            default=0,
        )
        return deepest, needs is None or ("type", at, needs) in found

    return nearness


def _leads_to(place: str, at: str) -> bool:
    """Whether ``place`` is ``at`` or a place on the way to it."""
    return at.startswith(place) and (len(at) == len(place) or at[len(place)] in _INSIDE)


def _values_at(found: Collection[Target], at: str) -> set[str]:
    """The values (canonical JSON) a value has at place ``at``: the walker names each as an
    ``enum`` shape."""
    return {shape[2] for shape in found if shape[0] == "enum" and shape[1] == at}
