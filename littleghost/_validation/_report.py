"""Reports of invalid input: bounded, ``$``-rooted, one readable line per violation."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._backtracking import KEYWORD as BACKTRACKING_KEYWORD
from .._backtracking import TIMED_OUT
from .._schema import SUBSCHEMA_MAP_KEYWORDS

__all__ = [
    "EXCERPT_CHARS",
    "FULL_REPORT_VALUES",
    "MAX_LISTED_VIOLATIONS",
    "Violation",
    "json_path",
    "middle_cut",
]


# Model-facing reports of invalid input stay within a few KiB: at most this many
# violations, each quoting at most an excerpt of a value ...
MAX_LISTED_VIOLATIONS = 8


EXCERPT_CHARS = 80


# ... and past this many values in the input, only the first violation (see ``report``).
FULL_REPORT_VALUES = 1_000


_IDENTIFIER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True, slots=True)
class Violation:
    """One failed constraint: where (``$``-rooted), which keyword, and a readable message."""

    path: str
    keyword: str
    message: str


def json_path(parts: Sequence[str | int]) -> str:
    """Render instance path parts as a ``$``-rooted path: ``$.items[0]['odd key']``."""
    rendered = ["$"]
    for part in parts:
        if isinstance(part, int):
            rendered.append(f"[{part}]")
        elif part and not part[0].isdigit() and set(part) <= _IDENTIFIER_CHARS:
            rendered.append(f".{part}")
        else:
            rendered.append(f"[{json.dumps(part, ensure_ascii=False)}]")
    return "".join(rendered)


def more_values_than(instance: Any, limit: int) -> bool:
    """Whether ``instance`` (plain JSON, no cycles) holds more than ``limit`` values."""
    count, level = 1, [instance]
    while level and count <= limit:
        children: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                children.extend(item.values())
            elif isinstance(item, list | tuple):
                children.extend(item)
        count += len(children)
        level = children
    return count > limit


def first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


def describe(error: Any, instance: Any, patterns: Mapping[str, str]) -> Iterator[Violation]:
    kind = error.kind
    keyword = _keyword(error.schema_path, kind.name)
    parts = _real_keys(instance, error.instance_path)
    path = _where(parts)
    details = kind.as_dict()
    if kind.name == "falseSchema":
        target = _at(instance, parts)
        if keyword in ("additionalProperties", "unevaluatedProperties") and target:
            # jsonschema-rs reports a closed object without properties once, at the object.
            for name in target:
                where = _where([*parts, name])
                yield Violation(where, keyword, f"{where} is not allowed")
        else:
            yield Violation(path, keyword, f"{path} is not allowed")
    elif keyword == "pattern":
        declared = patterns.get(details.get("pattern"), details.get("pattern"))
        yield Violation(path, keyword, f"{path} must match pattern /{_excerpt(declared)}/")
    elif keyword == BACKTRACKING_KEYWORD:
        outcome, _, declared = str(details.get("message", "")).partition(": ")
        declared = _excerpt(declared)
        if outcome == TIMED_OUT:
            reason = f"took too long to match pattern /{declared}/ (regex_timeout)"
        else:
            reason = f"must match pattern /{declared}/"
        yield Violation(path, "pattern", f"{path} {reason}")
    elif keyword == "required":
        where = _where([*parts, details.get("property")])
        yield Violation(where, keyword, f"{where} is required")
    elif keyword in ("additionalProperties", "unevaluatedProperties"):
        for name in details.get("unexpected", ()):
            where = _where([*parts, name])
            yield Violation(where, keyword, f"{where} is not allowed")
    else:
        yield Violation(path, keyword, f"{path} {_explain(keyword, details, error)}")


def _where(parts: Sequence[str | int]) -> str:
    """``json_path`` with every key excerpted (keys come from the model), and the
    middle of a long path left out."""
    path = json_path([part if isinstance(part, int) else _excerpt(part) for part in parts])
    return path if len(path) <= 3 * EXCERPT_CHARS else middle_cut(path, 2 * EXCERPT_CHARS + 1)


def middle_cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: a longer one keeps its start and its end (a
    path's last key, a nested error's cause), its middle left out and marked."""
    if len(text) <= limit:
        return text
    tail = (limit - 1) // 2
    return f"{text[: limit - 1 - tail]}…{text[len(text) - tail :]}"


def _excerpt(text: Any, limit: int = EXCERPT_CHARS) -> str:
    """``text`` cut to about ``limit`` characters, marked where it was cut."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}…"


def _json_excerpt(value: Any) -> str:
    """A value from the schema, rendered as JSON but never longer than an excerpt."""
    if isinstance(value, list) and len(value) > EXCERPT_CHARS:
        value = value[:EXCERPT_CHARS]  # an enum of millions renders only what is shown
    return _excerpt(json.dumps(value, ensure_ascii=False))


def _explain(keyword: str, details: Mapping[str, Any], error: Any) -> str:
    if keyword == "type":
        types = details.get("types")
        expected = types if isinstance(types, list) else [types]
        return f"must be {' or '.join(str(t) for t in expected)}"
    fixed = _FIXED_MESSAGES.get(keyword)
    if fixed is not None:
        return fixed
    quoting = _QUOTING_MESSAGES.get(keyword)
    if quoting is not None:
        detail, shown, message = quoting
        return message.format(shown(details.get(detail)))
    # jsonschema-rs renders the failing value into its message: excerpt it.
    return f"fails {keyword!r}: {_excerpt(first_line(error))}"


def _keyword(schema_path: Sequence[str | int], default: str) -> str:
    """The last keyword of a schema path; a property named like a keyword is not one."""
    keyword, naming = default, False
    for part in schema_path:
        if naming or not isinstance(part, str):
            naming = False
            continue
        keyword, naming = part, part in SUBSCHEMA_MAP_KEYWORDS
    return keyword


def _real_keys(instance: Any, parts: Sequence[str | int]) -> list[str | int]:
    """jsonschema-rs turns numeric keys into ints ("01" -> 1): recover the real keys."""
    real: list[str | int] = []
    node = instance
    for part in parts:
        if isinstance(node, dict) and not isinstance(part, str):
            text = str(part)
            if text not in node:
                text = next((k for k in node if _as_index(k) == part), text)
            part = text
        real.append(part)
        node = _step(node, part)
    return real


def _as_index(key: Any) -> int | None:
    if isinstance(key, str) and key.isascii() and key.lstrip("+").isdigit():
        return int(key)
    return None


def _step(node: Any, part: str | int) -> Any:
    if isinstance(node, dict):
        return node.get(part)
    if isinstance(node, list | tuple) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return None


def _at(instance: Any, parts: Sequence[str | int]) -> Any:
    for part in parts:
        instance = _step(instance, part)
    return instance


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    return str(value)


# Keywords whose message is always the same.
_FIXED_MESSAGES = {
    "uniqueItems": "must not contain duplicate items",
    "anyOf": "must match at least one of the anyOf schemas",
    "oneOf": "must match exactly one of the oneOf schemas",
    "not": "must not match the schema under 'not'",
    "contains": "must contain an item that matches 'contains'",
    "minContains": "must contain more items that match 'contains' (minContains)",
    "maxContains": "must contain fewer items that match 'contains' (maxContains)",
    "propertyNames": "has a property name that breaks 'propertyNames'",
}
# Keywords whose message quotes one detail of the error: (detail, shown as, message).
_QUOTING_MESSAGES: dict[str, tuple[str, Callable[[Any], str], str]] = {
    "minimum": ("limit", _number, "must be >= {}"),
    "maximum": ("limit", _number, "must be <= {}"),
    "exclusiveMinimum": ("limit", _number, "must be > {}"),
    "exclusiveMaximum": ("limit", _number, "must be < {}"),
    "multipleOf": ("multiple_of", _number, "must be a multiple of {}"),
    "minLength": ("limit", str, "must be at least {} characters long"),
    "maxLength": ("limit", str, "must be at most {} characters long"),
    "minItems": ("limit", str, "must have at least {} items"),
    "maxItems": ("limit", str, "must have at most {} items"),
    "minProperties": ("limit", str, "must have at least {} properties"),
    "maxProperties": ("limit", str, "must have at most {} properties"),
    "enum": ("options", _json_excerpt, "must be one of {}"),
    "const": ("expected_value", _json_excerpt, "must equal {}"),
}
