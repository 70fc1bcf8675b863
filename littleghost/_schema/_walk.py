"""One step of every walk over subschemas: which values of a keyword are schemas.

Passes that rebuild a schema (compiling its patterns, rewriting an older
draft) share this step, so that they agree on where a subschema may sit
(``_keywords``). Each pass decides what to do at a subschema and how deep to
go. The walk is lenient about shapes the metaschema check refuses (a list
under ``not``, an object under ``allOf``): it visits what is there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._keywords import SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS

__all__ = ["Steps", "map_subschemas"]

Steps = tuple[str, ...]
"""The keys from a schema down to one of its subschemas (a list index as a string)."""


def map_subschemas(keyword: str, value: Any, visit: Callable[[Any, Steps], Any]) -> Any:
    """``value`` of ``keyword`` with each subschema it holds replaced by ``visit(it, steps)``."""
    if keyword in SUBSCHEMA_MAP_KEYWORDS:
        if isinstance(value, dict):
            return {name: visit(schema, (keyword, name)) for name, schema in value.items()}
        return value
    if keyword in SUBSCHEMA_LIST_KEYWORDS or keyword in SUBSCHEMA_KEYWORDS:
        if isinstance(value, list):
            return [visit(schema, (keyword, str(index))) for index, schema in enumerate(value)]
        return visit(value, (keyword,))
    return value
