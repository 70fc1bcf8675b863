"""Deeply frozen JSON values.

Frozen containers subclass ``dict`` and ``list`` so that they compare equal to
the plain values and ``json.dumps`` accepts them, while every mutator raises
``TypeError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

__all__ = ["FrozenDict", "FrozenList", "freeze", "frozen_dict", "frozen_list"]


def _immutable(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is immutable")


def _seal(self: FrozenDict | FrozenList) -> None:
    if getattr(self, "_sealed", False):
        _immutable(self)
    object.__setattr__(self, "_sealed", True)


class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses mutation."""

    # ``_walked``: set by ``_schema.freeze_within`` on a tree it checked (see there).
    __slots__ = ("_sealed", "_walked")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # dict.__init__ on an existing dict updates it: allow it only once, at creation.
        _seal(self)
        dict.__init__(self, *args, **kwargs)

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _immutable
    __ior__ = __setattr__ = __delattr__ = _immutable

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


class FrozenList(list[Any]):
    """A ``list`` that refuses mutation."""

    __slots__ = ("_sealed",)

    def __init__(self, *args: Any) -> None:
        # list.__init__ on an existing list replaces its items: allow it only once.
        _seal(self)
        list.__init__(self, *args)

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = _immutable
    clear = sort = reverse = __iadd__ = __imul__ = __setattr__ = __delattr__ = _immutable

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))

    def __repr__(self) -> str:
        return f"FrozenList({list.__repr__(self)})"


def freeze(value: Any) -> Any:
    """Return ``value`` deeply frozen, with every mapping key turned into ``str``.

    Plain JSON (``dict``, ``list``, ``str``...) takes a fast path on the exact
    type: schemas and catalogs freeze thousands of nodes, and this runs on
    every tool an MCP server lists.
    """
    kind = type(value)
    if kind is dict:
        if not value:
            return _EMPTY  # every RunContext without metadata: one shared, immutable value
        return frozen_dict(
            {
                key if type(key) is str else str(key): item
                if type(item) in _ATOMS
                else freeze(item)
                for key, item in value.items()
            }
        )
    if kind is list:
        return frozen_list([item if type(item) in _ATOMS else freeze(item) for item in value])
    if kind in _ATOMS or kind is FrozenDict or kind is FrozenList:
        return value
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        return frozen_dict({str(key): freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return frozen_list([freeze(item) for item in value])
    if isinstance(value, set):
        return frozenset(value)  # equal to the set; its items are hashable, so already fixed
    return value


# Immutable leaves that ``freeze`` returns as they are.
_ATOMS = frozenset({str, int, float, bool, type(None)})
_set_sealed_dict = FrozenDict._sealed.__set__
_set_sealed_list = FrozenList._sealed.__set__


def frozen_dict(items: dict[str, Any]) -> FrozenDict:
    """A sealed ``FrozenDict`` of ``items``, built without running ``__init__``."""
    frozen = dict.__new__(FrozenDict)
    dict.update(frozen, items)
    _set_sealed_dict(frozen, True)
    return frozen


def frozen_list(items: list[Any]) -> FrozenList:
    """A sealed ``FrozenList`` of ``items``, built without running ``__init__``."""
    frozen = list.__new__(FrozenList)
    list.extend(frozen, items)
    _set_sealed_list(frozen, True)
    return frozen


_EMPTY = frozen_dict({})
