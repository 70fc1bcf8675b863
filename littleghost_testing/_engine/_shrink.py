"""Shrinking a finding's own input, whatever phase found it.

Hypothesis shrinks only what its own search finds again, and an input from the
coverage phase, from breaking an input that worked or from exploration's draws
is not among them: a bug behind an optional key is often found only there. So
each distinct bug's smallest input is shrunk directly, one greedy step at a
time: optional keys dropped, array items dropped, numbers moved toward zero or
to the nearest value that still breaks the schema as the finding's input did
(``-1`` below ``minimum: 0``), strings and arrays cut to their shortest prefix,
``true`` made ``false``. A step is taken when the validator says the smaller
input still follows, or still breaks, the schema as the finding's did (no call
is sent otherwise) and the server still answers with the same bug. Each step
makes the input strictly smaller (fewer keys or items, a shorter string, a
number nearer zero), so shrinking ends; the shrink budget ends it sooner.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from littleghost._validation import SchemaValidator

from ._calls import Probe
from ._coverage import Path, replaced
from ._findings import Finding

__all__ = ["probe_like", "shrunk"]

Judge = Callable[[Any], bool]


def probe_like(validator: SchemaValidator, value: Any, like: Finding) -> Probe | None:
    """``value`` as a probe if it follows the schema, or breaks it, as ``like``'s input did.

    An invalid input must break exactly one constraint, and for the kinds about
    the input (``accepted_invalid``) the same keyword at the same place.
    """
    if not isinstance(value, dict):
        return None
    if like.valid:
        return Probe(value, valid=True) if validator.is_valid(value) else None
    broken = validator.violations(value)
    if len(broken) != 1:
        return None
    keyword, path = broken[0].keyword, broken[0].path
    if dataclasses.replace(like, keyword=keyword, path=path).group != like.group:
        return None
    return Probe(value, valid=False, keyword=keyword, path=path)


def shrunk(value: Any, allowed: Judge, fails: Judge) -> Any:
    """The smallest input greedy steps reach from ``value`` (itself, if none is taken).

    ``allowed`` is the cheap check (the validator); ``fails`` sends an allowed
    input and says whether the bug still shows. Either may raise to stop.
    """
    return _Shrinker(value, allowed, fails).run()


class _Shrinker:
    def __init__(self, value: Any, allowed: Judge, fails: Judge) -> None:
        self.current = value
        self.allowed = allowed
        self.fails = fails

    def run(self) -> Any:
        while self._pass():
            pass
        return self.current

    def _pass(self) -> bool:
        """One step at every place, outermost first; whether any was taken."""
        changed = False
        for path in list(_paths(self.current)):
            found, value = _at(self.current, path)
            if found:
                changed |= self._step(path, value)
        return changed

    def _step(self, path: Path, value: Any) -> bool:
        if isinstance(value, dict):
            return self._drop_keys(path, value)
        if isinstance(value, list):
            return self._shorten(path, value) | self._drop_items(path)
        if isinstance(value, str):
            return self._shorten(path, value)
        if isinstance(value, bool):
            return value and self._keeps(path, False)
        if isinstance(value, int):
            return self._toward(path, value, int)
        if isinstance(value, float) and math.isfinite(value):
            return self._float(path, value)
        return False

    def _keeps(self, path: Path, new: Any) -> bool:
        """Set ``path`` to ``new`` if the input stays allowed and still fails."""
        candidate = replaced(self.current, path, new)
        if self.allowed(candidate) and self.fails(candidate):
            self.current = candidate
            return True
        return False

    def _drop_keys(self, path: Path, value: dict[str, Any]) -> bool:
        """Every key the schema lets go at once, then each key on its own."""
        optional = [
            key
            for key in value
            if self.allowed(replaced(self.current, path, _dropped(value, {key})))
        ]
        if len(optional) > 1 and self._keeps(path, _dropped(value, set(optional))):
            return True
        changed = False
        for key in optional:
            found, now = _at(self.current, path)
            if found and isinstance(now, dict) and key in now:
                changed |= self._keeps(path, _dropped(now, {key}))
        return changed

    def _drop_items(self, path: Path) -> bool:
        """Each item on its own, last first (a prefix was tried already)."""
        changed = False
        found, now = _at(self.current, path)
        for index in reversed(range(len(now) if found and isinstance(now, list) else 0)):
            found, now = _at(self.current, path)
            if found and isinstance(now, list) and index < len(now):
                changed |= self._keeps(path, [*now[:index], *now[index + 1 :]])
        return changed

    def _shorten(self, path: Path, value: str | list[Any]) -> bool:
        """The shortest prefix that stays allowed and still fails."""
        return self._toward(path, len(value), lambda length: value[:length])

    def _float(self, path: Path, value: float) -> bool:
        """A whole float toward zero as integers do; a fraction first dropped (``2.5`` to 2.0)."""
        if value.is_integer():
            return self._toward(path, int(value), float)
        whole = float(math.trunc(value))
        if not self._keeps(path, whole):
            return False
        self._float(path, whole)
        return True

    def _toward(self, path: Path, start: int, make: Callable[[int], Any]) -> bool:
        """Move the integer behind ``path`` (a number, a length) from ``start`` toward 0, as far
        as the bug holds.

        First the validator alone finds the allowed value nearest 0 (a bound's
        edge); that one is tried. If the bug does not show there, bisect
        between it and ``start``, each middle tried only if allowed.
        """

        def allowed(number: int) -> bool:
            return self.allowed(replaced(self.current, path, make(number)))

        edge = 0 if allowed(0) else _last(start, 0, allowed)
        if abs(edge) >= abs(start):
            return False
        if self._keeps(path, make(edge)):
            return True
        return _last(start, edge, lambda number: self._keeps(path, make(number))) != start


def _last(good: int, bad: int, holds: Callable[[int], bool]) -> int:
    """Bisect from ``good`` toward ``bad``: the last integer where ``holds`` still did."""
    while abs(bad - good) > 1:
        middle = (good + bad) // 2
        if holds(middle):
            good = middle
        else:
            bad = middle
    return good


def _dropped(value: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    return {key: item for key, item in value.items() if key not in keys}


def _paths(value: Any) -> Iterator[Path]:
    """Every place in ``value``, outermost first (no recursion: inputs may nest deep)."""
    queue: deque[tuple[Path, Any]] = deque([((), value)])
    while queue:
        path, item = queue.popleft()
        yield path
        if isinstance(item, dict):
            queue.extend(((*path, key), sub) for key, sub in item.items())
        elif isinstance(item, list):
            queue.extend(((*path, index), sub) for index, sub in enumerate(item))


def _at(value: Any, path: Path) -> tuple[bool, Any]:
    """The value at ``path``, if the input still has that place."""
    for part in path:
        if isinstance(value, dict) and part in value:
            value = value[part]
            continue
        if isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
            continue
        return False, None
    return True, value
