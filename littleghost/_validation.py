"""Compiling JSON Schemas into fast, linear-time validators.

``jsonschema`` is the reference: it checks schemas against the Draft 2020-12
metaschema and names the bad keyword. ``jsonschema-rs`` validates instances on
the hot path: it is compiled once per schema, applies ECMA-262 regular
expression semantics (``\\d`` is ASCII, ``.`` excludes line terminators) and,
configured with the ``regex`` crate, matches in linear time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
import jsonschema_rs

from .errors import ConfigurationError

__all__ = ["SchemaValidator", "Violation", "json_path"]

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


class SchemaValidator:
    """A JSON Schema compiled once and reused for every instance."""

    __slots__ = ("_compiled", "schema")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        try:
            plain = json.loads(json.dumps(schema, allow_nan=False))
        except (TypeError, ValueError) as error:
            raise ConfigurationError(f"Invalid input schema: not JSON ({error})") from None
        _check_schema(plain)
        try:
            self._compiled = jsonschema_rs.validator_for(
                plain,
                validate_formats=False,
                pattern_options=jsonschema_rs.RegexOptions(),
                offline=True,
            )
        except jsonschema_rs.ValidationError as error:
            raise ConfigurationError(_schema_failure(error)) from None
        except (jsonschema_rs.ReferencingError, ValueError) as error:
            raise ConfigurationError(f"Invalid input schema: {_first_line(error)}") from None

    def is_valid(self, instance: Any) -> bool:
        return self._compiled.is_valid(instance)

    def violations(self, instance: Any) -> list[Violation]:
        """Every violation, each with its ``$``-rooted path and keyword."""
        found: list[Violation] = []
        for error in self._compiled.iter_errors(instance):
            found.extend(_describe(error))
        return found


def _check_schema(schema: Any) -> None:
    if not isinstance(schema, dict):
        raise ConfigurationError("Invalid input schema: the schema must be a JSON object")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    error = jsonschema.exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema))
    if error is not None:
        where = ".".join(str(part) for part in error.path) or "(root)"
        keyword = next(
            (str(p) for p in reversed(error.path) if isinstance(p, str)), str(error.validator)
        )
        raise ConfigurationError(
            f"Invalid input schema: keyword {keyword!r} at {where}: {error.message}"
        )


def _schema_failure(error: Any) -> str:
    """Name the keyword jsonschema-rs rejected; patterns are the usual culprit."""
    location = [str(part) for part in error.instance_path]
    keyword = next((p for p in reversed(location) if not p.isdigit()), "(root)")
    if location[-2:-1] == ["patternProperties"]:
        keyword = "patternProperties"
    where = ".".join(location) or "(root)"
    reason = _first_line(error)
    if keyword in ("pattern", "patternProperties") or "regex" in reason:
        reason += (
            " (patterns use ECMA-262 syntax matched in linear time: lookaround and"
            " backreferences are not supported)"
        )
    return f"Invalid input schema: keyword {keyword!r} at {where}: {reason}"


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


def _describe(error: Any) -> Iterator[Violation]:
    kind = error.kind
    keyword = next((str(p) for p in reversed(error.schema_path) if isinstance(p, str)), kind.name)
    parts = list(error.instance_path)
    path = json_path(parts)
    details = kind.as_dict()
    if keyword == "required":
        where = json_path([*parts, details.get("property")])
        yield Violation(where, keyword, f"{where} is required")
    elif keyword in ("additionalProperties", "unevaluatedProperties"):
        for name in details.get("unexpected", ()):
            where = json_path([*parts, name])
            yield Violation(where, keyword, f"{where} is not allowed")
    else:
        yield Violation(path, keyword, f"{path} {_explain(keyword, details, error)}")


def _explain(keyword: str, details: Mapping[str, Any], error: Any) -> str:
    limit = details.get("limit")
    match keyword:
        case "type":
            types = details.get("types")
            expected = types if isinstance(types, list) else [types]
            return f"must be {' or '.join(str(t) for t in expected)}"
        case "minimum":
            return f"must be >= {_number(limit)}"
        case "maximum":
            return f"must be <= {_number(limit)}"
        case "exclusiveMinimum":
            return f"must be > {_number(limit)}"
        case "exclusiveMaximum":
            return f"must be < {_number(limit)}"
        case "multipleOf":
            return f"must be a multiple of {_number(details.get('multiple_of'))}"
        case "minLength":
            return f"must be at least {limit} characters long"
        case "maxLength":
            return f"must be at most {limit} characters long"
        case "minItems":
            return f"must have at least {limit} items"
        case "maxItems":
            return f"must have at most {limit} items"
        case "minProperties":
            return f"must have at least {limit} properties"
        case "maxProperties":
            return f"must have at most {limit} properties"
        case "pattern":
            return f"must match pattern /{details.get('pattern')}/"
        case "enum":
            return f"must be one of {json.dumps(details.get('options'), ensure_ascii=False)}"
        case "const":
            return f"must equal {json.dumps(details.get('expected_value'), ensure_ascii=False)}"
        case "uniqueItems":
            return "must not contain duplicate items"
        case _:
            return f"fails {keyword!r}: {_first_line(error)}"


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    return str(value)
