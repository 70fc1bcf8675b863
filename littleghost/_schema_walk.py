"""Fast passes over declared schemas: bound the nesting, refuse cycles, freeze.

A catalog of a thousand MCP tools means a thousand schemas to check and
freeze at discovery. Schemas are nearly always plain JSON trees (``dict``,
``list``, strings, numbers), so these passes dispatch on exact types and
answer only "fine" (or the frozen copy). Anything else (a ``Mapping`` that
is not a ``dict``, a tuple, nesting too deep, and for ``nests_within`` a
container met twice) gets ``None`` or ``False``, and the caller takes the
slow path that says what is wrong and where (``_validation.schema_problem``).
"""

from __future__ import annotations

from typing import Any

from ._frozen import FrozenDict, FrozenList, frozen_dict, frozen_list

__all__ = ["freeze_within", "nests_within"]

_ATOMS = frozenset({str, int, float, bool, type(None)})
_OBJECTS = frozenset({dict, FrozenDict})
_ARRAYS = frozenset({list, FrozenList})


class _Unfit(Exception):
    """The value needs the slow path."""


_set_nesting = FrozenDict._nesting.__set__


def freeze_within(schema: Any, max_depth: int) -> Any | None:
    """``freeze(schema)`` for a tree of exact JSON types at most ``max_depth`` containers deep.

    ``None`` if it is not one (nested deeper, a cycle, another type): then
    check it with the slow path first. A frozen object remembers the bound,
    so ``nests_within`` answers for it without walking it again. A container
    met twice is copied where it appears, as ``freeze`` does.
    """

    def walk(value: Any, depth: int) -> Any:
        """Freeze the container ``value``, ``depth`` containers deep; atoms never get here."""
        if depth > max_depth:
            raise _Unfit  # too deep, or a cycle
        kind = type(value)
        depth += 1
        if kind is dict:
            return frozen_dict(
                {
                    key if type(key) is str else str(key): item
                    if type(item) in _ATOMS
                    else walk(item, depth)
                    for key, item in value.items()
                }
            )
        if kind is list:
            return frozen_list(
                [item if type(item) in _ATOMS else walk(item, depth) for item in value]
            )
        if kind is FrozenDict or kind is FrozenList:
            for item in value.values() if kind is FrozenDict else value:
                if type(item) not in _ATOMS:
                    walk(item, depth)
            return value  # already frozen: kept, as ``freeze`` keeps it
        raise _Unfit

    if type(schema) in _ATOMS:
        return schema
    try:
        frozen = walk(schema, 1)
    except _Unfit:
        return None
    if type(frozen) is FrozenDict:
        _set_nesting(frozen, max_depth)
    return frozen


def nests_within(schema: Any, max_depth: int) -> bool:
    """Whether ``schema`` is a tree of exact JSON types at most ``max_depth`` containers deep.

    ``False`` also for anything unusual (see ``freeze_within``): the slow path decides.
    """
    if type(schema) is FrozenDict and getattr(schema, "_nesting", max_depth + 1) <= max_depth:
        return True  # frozen by ``freeze_within`` under this bound or a stricter one
    seen: set[int] = set()
    level: list[Any] = [schema]
    depth = 1  # of the containers in ``level``
    while level:
        below: list[Any] = []
        extend = below.extend
        for value in level:
            kind = type(value)
            if kind in _ATOMS:
                continue
            if depth > max_depth or id(value) in seen:
                return False
            seen.add(id(value))
            if kind in _OBJECTS:
                extend(value.values())
            elif kind in _ARRAYS:
                extend(value)
            else:
                return False
        level = below
        depth += 1
    return True
