"""The input check before native code: plain JSON, no cycle, within a depth, in one pass."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._frozen import FrozenDict, FrozenList
from ._report import Violation, json_path

__all__ = ["MAX_EXPANDED_VALUES", "UNBOUNDED", "first_problem", "json_problem"]


# Input that reuses the same containers (only programmatic callers can) counts
# every occurrence: past this many values it is invalid, as validating it would
# visit them all.
MAX_EXPANDED_VALUES = 10_000_000


# No depth limit: for trusted callers (tests, the testing kit); cycles are still caught.
UNBOUNDED = sys.maxsize


def json_problem(value: object, *, max_depth: int) -> str | None:
    """Why ``value`` cannot be tool input, or None: one iterative pass, before native code.

    Plain JSON (string keys, valid Unicode, finite numbers, JSON types only),
    at most ``max_depth`` nested containers (a native validator recursing over
    deeper input overflows a thread's stack and kills the process), and no
    cycles. Never raises: a container whose own methods raise is a problem too.
    """
    try:
        if _scan(value, max_depth):
            return None
    except Exception:
        pass  # the slow path names it
    problem = first_problem(value, max_depth=max_depth)
    return None if problem is None else problem.message


def first_problem(value: object, *, max_depth: int) -> Violation | None:
    """``json_problem`` as a located ``Violation``."""
    try:
        if _scan(value, max_depth):
            return None
        return locate_problem(value, max_depth)
    except Exception as error:  # a dict or list subclass whose methods raise
        return Violation("$", "type", f"$ cannot be read as JSON ({type(error).__name__})")


def _scan(value: object, max_depth: int) -> bool:
    """The hot path of ``json_problem``: whether ``value`` is fine, level by level.

    Model input is plain dicts, lists and strings, and this runs on every
    call, so it dispatches on exact types and only says yes or no
    (``locate_problem`` says what and where). Cycles never end, so they
    exceed ``max_depth``. A container met twice sends the input to the slow
    path; to keep the common case cheap only large containers are tracked one
    by one, and wide levels are checked as a whole, which bounds the work a
    repeated small container can cause.
    """
    if type(value) is dict and _flat_object(value):
        return True  # the commonest input: one object of strings and numbers
    level: list[Any] = [value]
    large: set[int] = set()
    depth = 0
    while level:
        scanned = _scan_level(level, large)
        if scanned is None:
            return False
        children, nested = scanned
        if nested:
            depth += 1
            if depth > max_depth:
                return False
        if len(children) > _WIDE_LEVEL:
            verdict = _wide_level(children, large)
            if verdict is not None:
                return verdict
        level = children
    return True


def _scan_level(level: list[Any], large: set[int]) -> tuple[list[Any], bool] | None:
    """One level of ``_scan``: the values below it, and whether it held a container.

    None if an item needs the slow path.
    """
    children: list[Any] = []
    extend = children.extend
    nested = False
    for item in level:
        kind = type(item)
        if kind is str:
            if not item.isascii() and _has_surrogate(item):
                return None
        elif kind is dict:
            nested = True
            if len(item) > _SMALL_CONTAINER and _met_before(item, large):
                return None
            for key in item:
                if type(key) is not str or (not key.isascii() and _has_surrogate(key)):
                    return None
            extend(item.values())
        elif kind is list:
            nested = True
            if len(item) > _SMALL_CONTAINER and _met_before(item, large):
                return None
            extend(item)
        elif kind is int or kind is bool or item is None:
            continue
        elif kind is float:
            if not math.isfinite(item):
                return None
        elif kind is FrozenDict or kind is FrozenList:  # frozen input, e.g. from a test
            nested = True
            if not _frozen_children(item, large, extend):
                return None
        else:
            return None  # other subclasses and tuples: the slow path checks them
    return children, nested


def _flat_object(item: dict[Any, Any]) -> bool:
    """Whether a dict holds only ASCII string keys and ASCII strings, ints, bools or None."""
    for key, child in item.items():
        if type(key) is not str or not key.isascii():
            return False
        kind = type(child)
        if kind is str:
            if not child.isascii():
                return False
        elif kind is not int and kind is not bool and child is not None:
            return False
    return True


def _met_before(container: Any, large: set[int]) -> bool:
    """Track a large container by identity: whether ``_scan`` met it before."""
    ident = id(container)
    if ident in large:
        return True
    large.add(ident)
    return False


def _frozen_children(item: Any, large: set[int], extend: Callable[[Any], None]) -> bool:
    """Queue a frozen container's values for ``_scan``; False if it needs the slow path."""
    if len(item) > _SMALL_CONTAINER and _met_before(item, large):
        return False
    if type(item) is FrozenList:
        extend(item)
        return True
    if all(type(key) is str and not _has_surrogate(key) for key in item):
        extend(item.values())
        return True
    return False


def _wide_level(level: list[Any], large: set[int]) -> bool | None:
    """A verdict on a wide level as a whole, or None to go on level by level."""
    if _plain_scalars(level):
        return True  # nothing below: a long array of numbers or strings
    if _repeats_a_container(level, large):
        return False
    return None


# Containers with more entries than this are tracked one by one (see ``_scan``).
_SMALL_CONTAINER = 32


_CONTAINERS = frozenset({dict, list, FrozenDict, FrozenList})


def _repeats_a_container(level: list[Any], large: set[int]) -> bool:
    """Whether a dict or list occurs twice in ``level``, or was met before."""
    ids = [id(item) for item in level if type(item) in _CONTAINERS]
    unique = set(ids)
    return len(unique) != len(ids) or not unique.isdisjoint(large)


# Levels longer than this are also checked as a whole.
_WIDE_LEVEL = 256


_ATOMS = frozenset({int, bool, type(None)})


_STRINGS = frozenset({str})


_NUMBERS = frozenset({int, float})


def _plain_scalars(level: list[Any]) -> bool:
    """Whether ``level`` holds only JSON scalars, checked by C loops (``map``)."""
    kinds = set(map(type, level))
    if kinds <= _ATOMS:
        return True
    if kinds == _STRINGS:
        return all(map(str.isascii, level)) or not any(map(_has_surrogate, level))
    if kinds <= _NUMBERS:
        return all(map(math.isfinite, level))
    return False


@dataclass(slots=True)
class _Visit:
    """One value on the slow path's walk, linked to its container for its path."""

    value: Any
    key: str | int | None
    parent: _Visit | None
    depth: int  # containers from the root down to this value's container

    def parts(self) -> list[str | int]:
        parts: list[str | int] = []
        visit: _Visit | None = self
        while visit is not None and visit.key is not None:  # only the root has no key
            parts.append(visit.key)
            visit = visit.parent
        return parts[::-1]

    def path(self) -> str:
        return json_path(self.parts())


def locate_problem(value: Any, max_depth: int, *, mappings: bool = False) -> Violation | None:
    """The first problem in document order, with its path; None if there is none.

    Iterative, so input nested as deep as ``json.loads`` allows cannot
    exhaust the stack. Each container is expanded once: one met again while
    it is still open is a cycle; one met again after it was finished is a
    shared value, fine if it is not nested too deep where it appears again.
    With ``mappings``, every ``Mapping`` is an object and only nesting and
    cycles are checked.
    """
    objects = Mapping if mappings else dict
    open_: dict[int, _Visit] = {}
    heights: dict[int, int] = {}  # finished containers: how many levels they hold
    sizes: dict[int, int] = {}  # ... and how many values, shared ones counted each time
    stack: list[tuple[_Visit, bool]] = [(_Visit(value, None, None, 0), False)]
    while stack:
        visit, leaving = stack.pop()
        item = visit.value
        if leaving:
            del open_[id(item)]
            children = list(item.values() if isinstance(item, objects) else item)
            heights[id(item)] = 1 + max((heights.get(id(c), 0) for c in children), default=0)
            sizes[id(item)] = 1 + sum(sizes.get(id(c), 1) for c in children)
            continue
        if not isinstance(item, objects | list | tuple):
            problem = None if mappings else _scalar_problem(visit)
            if problem is not None:
                return problem
            continue
        ident = id(item)
        depth = visit.depth + 1
        if ident in open_:
            where = visit.path()
            return Violation(
                where, "type", f"{where} refers back to {open_[ident].path()} (a cycle)"
            )
        if ident in heights:
            depth += heights[ident] - 1
        if depth > max_depth:
            return Violation("$", "type", f"$ is nested deeper than {max_depth} levels")
        if ident in heights:
            continue
        problem = None if mappings or not isinstance(item, dict) else _key_problem(visit)
        if problem is not None:
            return problem
        open_[ident] = visit
        stack.append((visit, True))
        entries = list(item.items()) if isinstance(item, objects) else list(enumerate(item))
        stack.extend((_Visit(child, key, visit, depth), False) for key, child in reversed(entries))
    if not mappings and sizes.get(id(value), 1) > MAX_EXPANDED_VALUES:
        # Shared values are fine, but validating visits each occurrence.
        limit = f"{MAX_EXPANDED_VALUES:,}"
        return Violation("$", "type", f"$ repeats shared values until it holds over {limit} values")
    return None


def _scalar_problem(visit: _Visit) -> Violation | None:
    """What is wrong with a value that is not a container, if anything."""
    item = visit.value
    if isinstance(item, str):
        if not _has_surrogate(item):
            return None
        problem = "is not valid Unicode (a lone surrogate)"
    elif isinstance(item, float):
        if math.isfinite(item):
            return None
        problem = f"must be a finite number, not {item!r}"
    elif item is None or isinstance(item, bool | int):
        return None
    else:
        problem = "is not a JSON value"
    where = visit.path()
    return Violation(where, "type", f"{where} {problem}")


def _key_problem(visit: _Visit) -> Violation | None:
    """A key of an object that is not a string, or not valid Unicode."""
    for key in visit.value:
        if not isinstance(key, str):
            problem = f"has a key that is not a string: {key!r}"
        elif _has_surrogate(key):
            problem = "has a key that is not valid Unicode"
        else:
            continue
        where = visit.path()
        return Violation(where, "type", f"{where} {problem}")
    return None


def _has_surrogate(text: str) -> bool:
    """A lone surrogate: what ``json.loads`` makes of an unpaired ``\\ud800`` escape."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
