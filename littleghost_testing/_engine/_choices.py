"""An answer that reads as an error only because the input chose it.

server-everything's ``get-annotated-message`` answers ``messageType: "error"``,
a member of its own ``enum``, with the demo text ``Error: Operation failed``:
the output that input asks for, not a refusal. A success reads so when, with
the schema's ``enum``/``const`` words the input picked masked out (whole words,
any case), it no longer reads as an error. Free text the input holds is never
masked: a refusal that echoes a generated ``"error"`` stays a refusal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ._crashes import reads_as_error

__all__ = ["chosen_words", "reads_as_chosen"]


def chosen_words(schema: Any, value: Any) -> set[str]:
    """The strings of ``value`` that ``schema`` offers as choices (``enum`` or ``const``)."""
    offered = set(_offered(schema))
    return {item for item in _strings(value) if item in offered}


def reads_as_chosen(value: Any, chosen: set[str], tool_name: str) -> bool:
    """Whether the success ``value`` reads as an error only through the ``chosen`` words."""
    if isinstance(value, dict) and len(value) == 1 and "result" in value:
        value = value["result"]  # as reads_as_error unwraps it
    if not isinstance(value, str) or not chosen:
        return False
    text = value
    for word in chosen:
        text = re.sub(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", "", text, flags=re.IGNORECASE)
    return text != value and reads_as_error(text, tool_name) is None


def _offered(schema: Any) -> Iterator[str]:
    """Every string an ``enum`` or ``const`` anywhere in ``schema`` names."""
    if isinstance(schema, dict):
        for key, item in schema.items():
            if key == "enum" and isinstance(item, list):
                yield from (choice for choice in item if isinstance(choice, str))
            elif key == "const" and isinstance(item, str):
                yield item
            else:
                yield from _offered(item)
    elif isinstance(schema, list):
        for item in schema:
            yield from _offered(item)


def _strings(value: Any) -> Iterator[str]:
    """Every string value inside a JSON value (not its keys)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
