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

import re
from typing import Any, NamedTuple

from .._frozen import FrozenDict, FrozenList, frozen_dict, frozen_list
from ._drafts import DRAFTS, declared_draft
from ._first_use import FALLIBLE_KEYS, declares_known_draft
from ._keywords import (
    REGEX_KEYWORDS,
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
)

__all__ = [
    "Measured",
    "Metered",
    "Regexes",
    "compiles_on_first_use_walked",
    "freeze_metered",
    "freeze_within",
    "measure_within",
    "nests_within",
    "regexes_to_check",
]

_ATOMS = frozenset({str, int, float, bool, type(None)})
_FINITE_ATOMS = _ATOMS - {float}  # a float is checked: no NaN, no infinity
_OBJECTS = frozenset({dict, FrozenDict})
_ARRAYS = frozenset({list, FrozenList})
_CONTAINERS = _OBJECTS | _ARRAYS
_INFINITIES = (float("inf"), float("-inf"))
_FALLIBLE_BELOW_ROOT = FALLIBLE_KEYS
_FALLIBLE_AT_ROOT = FALLIBLE_KEYS - {"$schema"}
_STR = frozenset({str})
_set_item = dict.__setitem__  # a FrozenDict's own refuses: it is filled before anyone sees it

# A local reference that is a valid URI reference as written: "#/" and then the characters
# RFC 3986 allows in a fragment, without percent-encoding (jsonschema-rs refuses the rest).
_LOCAL_POINTER = re.compile(r"#/[A-Za-z0-9._~!$&'()*+,;=:@/?-]*")

_UNCHECKED_BY_METASCHEMA = {
    "2020-12": frozenset({"additionalItems"}),
    "2019-09": frozenset({"additionalItems"}),
    "draft-07": frozenset({"$defs"}),
    "draft-06": frozenset({"$defs"}),
    "draft-04": frozenset({"$defs"}),
}
"""Subschema keywords a draft's metaschema does not check, besides its ``unknown_keywords``."""

_CHECKED_STEPS = {
    draft.name: (SUBSCHEMA_KEYWORDS | SUBSCHEMA_LIST_KEYWORDS | SUBSCHEMA_MAP_KEYWORDS)
    - draft.unknown_keywords
    - _UNCHECKED_BY_METASCHEMA[draft.name]
    for draft in DRAFTS
}
"""Per draft, the keywords under which its metaschema checks every subschema: a local
reference may compile on first use only if it reaches its target through these."""


class _Unfit(Exception):
    """The value needs the slow path."""


# What ``freeze_within`` learned of a tree it froze: (the depth bound it holds to,
# whether it compiles on first use: True, False, or the ``Regexes`` it does if they
# compile). Kept on the frozen root.
_set_walked = FrozenDict._walked.__set__


class Regexes(NamedTuple):
    """A schema's regexes, when they are all that could make it fail to compile."""

    patterns: tuple[str, ...]  # every string under a ``pattern`` key
    property_patterns: tuple[str, ...]  # every key of a ``patternProperties`` object
    dialect: str | None  # the root's ``$schema``: older drafts compile patterns differently


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
    walk = _Walk(max_depth)
    if type(schema) in _ATOMS:
        return Metered(schema, 1, walk.regexes)
    try:
        frozen = walk.freeze(schema, 1)
    except _Unfit:
        return None
    if type(frozen) is FrozenDict:
        walk.remember(frozen)
    return Metered(frozen, walk.nodes, walk.regexes)


class Measured(NamedTuple):
    """What ``measure_within`` learned of a plain JSON schema, which it leaves as it is."""

    nodes: int  # values in the tree: containers and scalars
    regexes: list[str]  # every string under a ``pattern`` key, every ``patternProperties`` key
    verdict: bool | Regexes  # whether it compiles on first use (see ``_Walk.verdict``)


def measure_within(schema: Any, max_depth: int) -> Measured | None:
    """``freeze_metered`` without the frozen copy: the same checks and counts, no allocation.

    For a tree whose owner keeps it private and freezes it only when someone
    reads it (an MCP catalog's schemas, most never read). ``None`` where
    ``freeze_metered`` answers ``None``, and also for an object key that is
    not a string (JSON's never are): take the slow path then.
    """
    if type(schema) not in _OBJECTS:
        return None
    walk = _Walk(max_depth)
    try:
        walk.measure(schema, 1)
    except _Unfit:
        return None
    return Measured(walk.nodes, walk.regexes, walk.verdict(schema))


class _Walk:
    """One walk over a schema: what it counts and learns besides the frozen tree.

    A class rather than a closure: a recursive closure is a reference cycle,
    garbage that only the collector frees, a thousand times per catalog.
    """

    __slots__ = (
        "fallible",
        "max_depth",
        "nodes",
        "patterns",
        "property_patterns",
        "refs",
        "regexes",
    )

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.nodes = 1
        self.fallible = False
        self.refs: list[str] = []  # local references, resolved once the tree is walked
        self.regexes: list[str] = []
        self.patterns: list[str] = []
        self.property_patterns: list[str] = []

    def freeze(self, value: Any, depth: int) -> Any:
        """Freeze ``value``, ``depth`` containers deep; strings and integers never get here."""
        kind = type(value)
        if kind is float:
            if value != value or value in _INFINITIES:
                raise _Unfit
            return value
        if depth > self.max_depth:
            raise _Unfit  # too deep, or a cycle
        depth += 1
        if kind not in _CONTAINERS:
            raise _Unfit
        self.nodes += len(value)
        if kind is dict:
            frozen = self._freeze_object(value, depth)
        elif kind is list:
            if _FINITE_ATOMS.issuperset(map(type, value)):
                return frozen_list(value)
            freeze = self.freeze
            return frozen_list(
                [item if type(item) in _FINITE_ATOMS else freeze(item, depth) for item in value]
            )
        else:  # FrozenDict or FrozenList: already frozen, kept as ``freeze`` keeps it
            for item in value.values() if kind is FrozenDict else value:
                if type(item) not in _FINITE_ATOMS:
                    self.freeze(item, depth)
            if kind is FrozenList:
                return value
            frozen = value
        if depth > 2 and not _FALLIBLE_BELOW_ROOT.isdisjoint(frozen):
            self.note(frozen, _FALLIBLE_BELOW_ROOT)
        return frozen

    def _freeze_object(self, value: dict[Any, Any], depth: int) -> FrozenDict:
        """A frozen copy of a plain ``dict``, its keys made strings, ``depth`` deep inside."""
        if not _STR.issuperset(map(type, value)):
            return frozen_dict(
                {
                    key if type(key) is str else str(key): item
                    if type(item) in _FINITE_ATOMS
                    else self.freeze(item, depth)
                    for key, item in value.items()
                }
            )
        frozen = frozen_dict(value)  # JSON's keys: copy, then freeze what nests
        if not _FINITE_ATOMS.issuperset(map(type, value.values())):
            for key, item in value.items():
                if type(item) not in _FINITE_ATOMS:
                    _set_item(frozen, key, self.freeze(item, depth))
        return frozen

    def measure(self, value: Any, depth: int) -> None:
        """Check ``value`` as ``freeze`` would, without a copy; object keys must be strings."""
        kind = type(value)
        if kind is float:
            if value != value or value in _INFINITIES:
                raise _Unfit
            return
        if depth > self.max_depth:
            raise _Unfit  # too deep, or a cycle
        depth += 1
        if kind is dict or kind in _OBJECTS:
            items = value.values()
            self.nodes += len(items)
            for item in items:
                if type(item) not in _FINITE_ATOMS:
                    self.measure(item, depth)
            if not _STR.issuperset(map(type, value)):
                raise _Unfit
            if depth > 2 and not _FALLIBLE_BELOW_ROOT.isdisjoint(value):
                self.note(value, _FALLIBLE_BELOW_ROOT)
        elif kind is list or kind in _ARRAYS:
            self.nodes += len(value)
            for item in value:
                if type(item) not in _FINITE_ATOMS:
                    self.measure(item, depth)
        else:
            raise _Unfit

    def note(self, frozen: dict[str, Any], keys: frozenset[str]) -> None:
        """Record what makes compiling ``frozen`` fallible.

        A local ``$ref`` (a valid URI reference) is resolved once the tree is frozen, and a regex is
        left for ``regexes_to_check``. A ``pattern`` that is not a string, or a
        ``patternProperties`` that is not an object, is no regex: the
        metaschema check refuses it where it is a keyword, and compiling
        ignores it anywhere else.
        """
        found = keys.intersection(frozen) - REGEX_KEYWORDS
        pattern = frozen.get("pattern")
        if type(pattern) is str:
            self.regexes.append(pattern)
            self.patterns.append(pattern)
        named = frozen.get("patternProperties")
        if isinstance(named, dict):  # one of _OBJECTS: the walks refuse any other
            self.regexes.extend(named)
            self.property_patterns.extend(named)
        ref = frozen.get("$ref")
        if found == {"$ref"} and type(ref) is str and _LOCAL_POINTER.fullmatch(ref):
            self.refs.append(ref)
        elif found:
            self.fallible = True

    def remember(self, root: FrozenDict) -> None:
        """Keep on the frozen root what the walk learned (see ``compiles_on_first_use_walked``)."""
        _set_walked(root, (self.max_depth, self.verdict(root)))

    def verdict(self, root: dict[str, Any]) -> bool | Regexes:
        """Whether ``root`` compiles on first use: ``True``, ``False`` or if its ``Regexes`` do."""
        self.note(root, _FALLIBLE_AT_ROOT)
        infallible = not self.fallible and declares_known_draft(root)
        if infallible and self.refs:
            steps = _checked_steps(root)
            infallible = all(_resolves(root, ref, steps) for ref in self.refs)
        if infallible and (self.patterns or self.property_patterns):
            dialect = root.get("$schema")
            return Regexes(tuple(self.patterns), tuple(self.property_patterns), dialect)
        return infallible


def _checked_steps(root: dict[str, Any]) -> frozenset[str]:
    draft = declared_draft(root)
    return frozenset() if draft is None else _CHECKED_STEPS[draft.name]


_SCHEMA, _LIST, _MAP = "schema", "list", "map"


def _resolves(root: dict[str, Any], ref: str, steps: frozenset[str]) -> bool:
    """Whether the JSON pointer fragment ``ref`` ("#/$defs/name") leads to a checked subschema.

    Only through ``steps``, the keywords under which the metaschema check saw
    every subschema: a target in ``default``, ``const`` or an unknown keyword is
    data no check has seen, and compiling it as a schema can fail.
    """
    node: Any = root
    holds = _SCHEMA  # what ``node`` is: a schema, a list of schemas, or a map of them
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if holds is _SCHEMA:
            if type(node) not in _OBJECTS or token not in steps or token not in node:
                return False
            node = node[token]
            if token in SUBSCHEMA_MAP_KEYWORDS:
                holds = _MAP
            elif type(node) in _ARRAYS:
                holds = _LIST  # allOf and its kin, or ``items`` before 2020-12
        elif holds is _MAP:
            if type(node) not in _OBJECTS or token not in node:
                return False
            node, holds = node[token], _SCHEMA
        else:
            if not (token.isascii() and token.isdigit()) or int(token) >= len(node):
                return False
            node, holds = node[int(token)], _SCHEMA
    return holds is _SCHEMA and (type(node) in _OBJECTS or type(node) is bool)


def compiles_on_first_use_walked(schema: Any) -> bool | None:
    """``compiles_on_first_use`` for a schema ``freeze_within`` froze; ``None`` for others.

    ``False`` also for a schema that compiles on first use only if its regexes
    compile (see ``regexes_to_check``).
    """
    walked = getattr(schema, "_walked", None) if type(schema) is FrozenDict else None
    return None if walked is None else walked[1] is True


def regexes_to_check(schema: Any) -> Regexes | None:
    """The regexes of a schema ``freeze_within`` froze, if nothing else could fail to compile.

    Each compiles alone, or not, as it does in the schema: the caller checks
    them (a cached compile per regex) and compiles the whole schema on first use.
    """
    walked = getattr(schema, "_walked", None) if type(schema) is FrozenDict else None
    return walked[1] if walked is not None and type(walked[1]) is Regexes else None


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
