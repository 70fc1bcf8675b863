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

from typing import Any, NamedTuple

from ._first_use import FALLIBLE_KEYS, declares_known_draft
from ._frozen import FrozenDict, FrozenList, frozen_dict, frozen_list

__all__ = [
    "Metered",
    "compiles_on_first_use_walked",
    "freeze_metered",
    "freeze_within",
    "nests_within",
]

_ATOMS = frozenset({str, int, float, bool, type(None)})
_FINITE_ATOMS = _ATOMS - {float}  # a float is checked: no NaN, no infinity
_OBJECTS = frozenset({dict, FrozenDict})
_ARRAYS = frozenset({list, FrozenList})
_CONTAINERS = _OBJECTS | _ARRAYS
_INFINITIES = (float("inf"), float("-inf"))
_FALLIBLE_BELOW_ROOT = FALLIBLE_KEYS
_FALLIBLE_AT_ROOT = FALLIBLE_KEYS - {"$schema"}


class _Unfit(Exception):
    """The value needs the slow path."""


# What ``freeze_within`` learned of a tree it froze: (the depth bound it holds to,
# whether it compiles on first use). Kept on the frozen root.
_set_walked = FrozenDict._walked.__set__


def freeze_within(schema: Any, max_depth: int) -> Any | None:
    """``freeze(schema)`` for a tree of plain JSON at most ``max_depth`` containers deep.

    ``None`` if it is not one (nested deeper, a cycle, another type, a NaN or
    infinity): then check it with the slow path first. The frozen root
    remembers what the walk learned, so that ``nests_within`` and
    ``compiles_on_first_use_walked`` answer for it without another walk. A
    container met twice is copied where it appears, as ``freeze`` does.
    """
    if compiles_on_first_use_walked(schema) is not None and nests_within(schema, max_depth):
        return schema  # walked before, under this bound or a stricter one (no walk again)
    metered = freeze_metered(schema, max_depth)
    return None if metered is None else metered.frozen


class Metered(NamedTuple):
    """A schema frozen by ``freeze_metered``, with what bounds on untrusted schemas count."""

    frozen: Any
    nodes: int  # values in the tree: containers and scalars
    regexes: list[str]  # every string under a ``pattern`` key, every ``patternProperties`` key


def freeze_metered(schema: Any, max_depth: int) -> Metered | None:
    """``freeze_within`` that also counts the nodes and regexes, in the same walk."""
    notes = _Notes()
    nodes = 1

    def walk(value: Any, depth: int) -> Any:
        """Freeze ``value``, ``depth`` containers deep; strings and integers never get here."""
        nonlocal nodes
        kind = type(value)
        if kind is float:
            if value != value or value in _INFINITIES:
                raise _Unfit
            return value
        if depth > max_depth:
            raise _Unfit  # too deep, or a cycle
        depth += 1
        if kind not in _CONTAINERS:
            raise _Unfit
        nodes += len(value)
        if kind is dict:
            frozen = frozen_dict(
                {
                    key if type(key) is str else str(key): item
                    if type(item) in _FINITE_ATOMS
                    else walk(item, depth)
                    for key, item in value.items()
                }
            )
        elif kind is list:
            return frozen_list(
                [item if type(item) in _FINITE_ATOMS else walk(item, depth) for item in value]
            )
        else:  # FrozenDict or FrozenList: already frozen, kept as ``freeze`` keeps it
            for item in value.values() if kind is FrozenDict else value:
                if type(item) not in _FINITE_ATOMS:
                    walk(item, depth)
            if kind is FrozenList:
                return value
            frozen = value
        if depth > 2 and not _FALLIBLE_BELOW_ROOT.isdisjoint(frozen):
            notes.note(frozen, _FALLIBLE_BELOW_ROOT)
        return frozen

    if type(schema) in _ATOMS:
        return Metered(schema, 1, notes.regexes)
    try:
        frozen = walk(schema, 1)
    except _Unfit:
        return None
    if type(frozen) is FrozenDict:
        notes.remember(frozen, max_depth)
    return Metered(frozen, nodes, notes.regexes)


class _Notes:
    """What one ``freeze_metered`` walk learns besides the frozen tree."""

    __slots__ = ("fallible", "refs", "regexes")

    def __init__(self) -> None:
        self.fallible = False
        self.refs: list[str] = []  # local references, resolved once the tree is frozen
        self.regexes: list[str] = []

    def note(self, frozen: FrozenDict, keys: frozenset[str]) -> None:
        """Record what makes compiling ``frozen`` fallible: a local ``$ref`` is checked later."""
        found = keys.intersection(frozen)
        pattern = frozen.get("pattern")
        if type(pattern) is str:
            self.regexes.append(pattern)
        named = frozen.get("patternProperties")
        if type(named) is FrozenDict:
            self.regexes.extend(named)
        ref = frozen.get("$ref")
        if found == {"$ref"} and type(ref) is str and ref.startswith("#/") and "%" not in ref:
            self.refs.append(ref)
        elif found:
            self.fallible = True

    def remember(self, root: FrozenDict, max_depth: int) -> None:
        """Keep on the frozen root what the walk learned (see ``compiles_on_first_use_walked``)."""
        self.note(root, _FALLIBLE_AT_ROOT)
        infallible = (
            not self.fallible
            and declares_known_draft(root)
            and all(_resolves(root, ref) for ref in self.refs)
        )
        _set_walked(root, (max_depth, infallible))


def _resolves(root: FrozenDict, ref: str) -> bool:
    """Whether the JSON pointer fragment ``ref`` ("#/$defs/name") leads to a schema in ``root``."""
    node: Any = root
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if type(node) is FrozenDict and token in node:
            node = node[token]
        elif type(node) is FrozenList and token.isascii() and token.isdigit():
            if int(token) >= len(node):
                return False
            node = node[int(token)]
        else:
            return False
    return type(node) is FrozenDict or type(node) is bool


def compiles_on_first_use_walked(schema: Any) -> bool | None:
    """``compiles_on_first_use`` for a schema ``freeze_within`` froze; ``None`` for others."""
    walked = getattr(schema, "_walked", None) if type(schema) is FrozenDict else None
    return None if walked is None else walked[1]


def nests_within(schema: Any, max_depth: int) -> bool:
    """Whether ``schema`` is a tree of exact JSON types at most ``max_depth`` containers deep.

    ``False`` also for anything unusual (see ``freeze_within``): the slow path decides.
    """
    walked = getattr(schema, "_walked", None) if type(schema) is FrozenDict else None
    if walked is not None and walked[0] <= max_depth:
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
