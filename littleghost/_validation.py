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

__all__ = ["SchemaValidator", "Violation", "compile_instance_validator", "json_path"]

_KNOWN_DRAFT = "https://json-schema.org/draft/2020-12/schema"
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

    __slots__ = ("_compiled", "_patterns", "schema")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        try:
            plain = json.loads(json.dumps(schema, allow_nan=False))
        except (TypeError, ValueError) as error:
            raise ConfigurationError(f"Invalid input schema: not JSON ({error})") from None
        _check_schema(plain)
        # The rewritten patterns, mapped back to what the schema declares.
        self._patterns: dict[str, str] = {}
        try:
            self._compiled = compile_instance_validator(plain, self._patterns)
        except jsonschema_rs.ValidationError as error:
            raise ConfigurationError(_schema_failure(error, self._patterns)) from None
        except (jsonschema_rs.ReferencingError, ValueError) as error:
            raise ConfigurationError(f"Invalid input schema: {_first_line(error)}") from None

    def is_valid(self, instance: Any) -> bool:
        try:
            valid = self._compiled.is_valid(instance)
        except ValueError:  # not JSON: a set, bytes, a non-str key, a lone surrogate...
            return False
        # jsonschema-rs never reads what no keyword needs, and lets NaN and infinities
        # (which Python's json module parses) through every numeric bound: only plain
        # JSON is valid input.
        return valid and _is_json(instance)

    def violations(self, instance: Any) -> list[Violation]:
        """Every violation, each with its ``$``-rooted path and keyword."""
        try:
            errors = list(self._compiled.iter_errors(instance))
        except ValueError:
            return list(_non_json(instance, [])) or [Violation("$", "type", "$ is not JSON")]
        found: list[Violation] = []
        for error in errors:
            found.extend(_describe(error, instance, self._patterns))
        return found or list(_non_json(instance, []))


def compile_instance_validator(
    schema: Any, patterns: dict[str, str] | None = None, *, registry: Any = None
) -> Any:
    """A jsonschema-rs validator with littleghost's semantics, for every caller that needs them.

    ECMA-262 patterns matched in linear time (ASCII word boundaries),
    ``format`` as an annotation, and no network. ``patterns`` receives each
    rewritten pattern mapped to the declared one. Raises jsonschema-rs's errors.
    """
    options: dict[str, Any] = {} if registry is None else {"registry": registry}
    return jsonschema_rs.validator_for(
        _ecma_schema(schema, {} if patterns is None else patterns),
        validate_formats=False,
        pattern_options=jsonschema_rs.RegexOptions(),
        offline=True,
        **options,
    )


_KNOWN_METASCHEMAS = frozenset(
    f"{scheme}://json-schema.org/{draft}/schema{suffix}"
    for scheme in ("http", "https")
    for draft in ("draft/2020-12", "draft/2019-09", "draft-07", "draft-06", "draft-04")
    for suffix in ("", "#")
)


def _check_schema(schema: Any) -> None:
    """Check ``schema`` against its metaschema; the error names the bad keyword.

    jsonschema-rs answers the common case (a valid schema) about 100 times
    faster than jsonschema, which matters when an MCP server lists hundreds of
    tools; jsonschema, the reference, explains a failure. An unknown
    ``$schema`` skips the fast check: jsonschema-rs would try to fetch it.
    """
    if not isinstance(schema, dict):
        raise ConfigurationError("Invalid input schema: the schema must be a JSON object")
    if schema.get("$schema", _KNOWN_DRAFT) in _KNOWN_METASCHEMAS:
        try:
            if jsonschema_rs.meta.is_valid(schema):
                return
        except (jsonschema_rs.ReferencingError, ValueError):
            pass  # let the reference explain
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    error = jsonschema.exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema))
    if error is not None:
        # best_match may descend into an anyOf branch: its ``path`` is then relative.
        path = error.absolute_path
        where = ".".join(str(part) for part in path) or "(root)"
        keyword = next((str(p) for p in reversed(path) if isinstance(p, str)), str(error.validator))
        raise ConfigurationError(
            f"Invalid input schema: keyword {keyword!r} at {where}: {error.message}"
        )


def _schema_failure(error: Any, patterns: Mapping[str, str]) -> str:
    """Name the keyword jsonschema-rs rejected; patterns are the usual culprit."""
    location = [str(part) for part in error.instance_path]
    keyword = next((p for p in reversed(location) if not p.isdigit()), "(root)")
    if location[-2:-1] == ["patternProperties"]:
        keyword = "patternProperties"
    elif isinstance(error.kind, jsonschema_rs.ValidationErrorKind.Referencing):
        keyword = "$ref"  # an unresolvable reference carries no location
    where = ".".join(location) or "(root)"
    reason = _first_line(error)
    for rewritten, declared in patterns.items():
        reason = reason.replace(json.dumps(rewritten), json.dumps(declared))
    if keyword in ("pattern", "patternProperties") or "regex" in reason:
        reason += (
            " (patterns use ECMA-262 syntax matched in linear time: lookaround and"
            " backreferences are not supported)"
        )
    return f"Invalid input schema: keyword {keyword!r} at {where}: {reason}"


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


def _describe(error: Any, instance: Any, patterns: Mapping[str, str]) -> Iterator[Violation]:
    kind = error.kind
    keyword = _keyword(error.schema_path, kind.name)
    parts = _real_keys(instance, error.instance_path)
    path = json_path(parts)
    details = kind.as_dict()
    if kind.name == "falseSchema":
        target = _at(instance, parts)
        if keyword in ("additionalProperties", "unevaluatedProperties") and target:
            # jsonschema-rs reports a closed object without properties once, at the object.
            for name in target:
                where = json_path([*parts, name])
                yield Violation(where, keyword, f"{where} is not allowed")
        else:
            yield Violation(path, keyword, f"{path} is not allowed")
    elif keyword == "pattern":
        declared = patterns.get(details.get("pattern"), details.get("pattern"))
        yield Violation(path, keyword, f"{path} must match pattern /{declared}/")
    elif keyword == "required":
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
        case "enum":
            return f"must be one of {json.dumps(details.get('options'), ensure_ascii=False)}"
        case "const":
            return f"must equal {json.dumps(details.get('expected_value'), ensure_ascii=False)}"
        case "uniqueItems":
            return "must not contain duplicate items"
        case _:
            return f"fails {keyword!r}: {_first_line(error)}"


# Keywords whose value maps names (not keywords) to subschemas.
_NAMING_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_SUBSCHEMA_KEYWORDS = frozenset(
    {
        "items", "prefixItems", "additionalItems", "contains", "additionalProperties",
        "unevaluatedProperties", "unevaluatedItems", "propertyNames", "not", "if", "then",
        "else", "allOf", "anyOf", "oneOf",
    }
)  # fmt: skip


def _keyword(schema_path: Sequence[str | int], default: str) -> str:
    """The last keyword of a schema path; a property named like a keyword is not one."""
    keyword, naming = default, False
    for part in schema_path:
        if naming or not isinstance(part, str):
            naming = False
            continue
        keyword, naming = part, part in _NAMING_KEYWORDS
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


def _non_json(value: Any, parts: list[str | int]) -> Iterator[Violation]:
    """Where ``value`` holds something JSON cannot express, in document order.

    Iterative, like ``_is_json``: input nested as deep as ``json.loads`` allows
    must not exhaust the stack.
    """
    stack: list[tuple[Any, list[str | int]]] = [(value, parts)]
    while stack:
        value, parts = stack.pop()
        if value is None or isinstance(value, bool | int):
            continue
        if isinstance(value, str):
            if _has_surrogate(value):
                where = json_path(parts)
                yield Violation(where, "type", f"{where} is not valid Unicode (a lone surrogate)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                where = json_path(parts)
                yield Violation(where, "type", f"{where} must be a finite number, not {value!r}")
        elif isinstance(value, dict):
            children: list[tuple[Any, list[str | int]]] = []
            for key, item in value.items():
                if isinstance(key, str) and not _has_surrogate(key):
                    children.append((item, [*parts, key]))
                    continue
                where = json_path(parts)
                if isinstance(key, str):
                    yield Violation(where, "type", f"{where} has a key that is not valid Unicode")
                else:
                    message = f"{where} has a key that is not a string: {key!r}"
                    yield Violation(where, "type", message)
            stack.extend(reversed(children))
        elif isinstance(value, list | tuple):
            items = list(enumerate(value))
            stack.extend((item, [*parts, index]) for index, item in reversed(items))
        else:
            where = json_path(parts)
            yield Violation(where, "type", f"{where} is not a JSON value")


def _is_json(value: Any) -> bool:
    """Whether ``value`` is plain JSON: string keys, valid Unicode, finite numbers.

    Dispatches on the exact type first: model input is plain dicts, lists and
    strings, and this check runs on every valid call.
    """
    stack = [value]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            if not value.isascii() and _has_surrogate(value):
                return False
        elif kind is dict:
            for key in value:
                if type(key) is not str or (not key.isascii() and _has_surrogate(key)):
                    return False
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
        elif kind is int or kind is bool or value is None:
            continue
        elif kind is float:
            if not math.isfinite(value):
                return False
        elif not _is_json_subclass(value, stack):
            return False
    return True


def _is_json_subclass(value: Any, stack: list[Any]) -> bool:
    """The slow path of ``_is_json``: subclasses of the JSON types, and tuples."""
    if isinstance(value, str):
        return not _has_surrogate(value)
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int):
        return True
    if isinstance(value, dict):
        if any(not isinstance(key, str) or _has_surrogate(key) for key in value):
            return False
        stack.extend(value.values())
        return True
    if isinstance(value, list | tuple):
        stack.extend(value)
        return True
    return False


def _has_surrogate(text: str) -> bool:
    """A lone surrogate: what ``json.loads`` makes of an unpaired ``\\ud800`` escape."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _ecma_schema(schema: Any, patterns: dict[str, str]) -> Any:
    """``schema`` with its patterns' word boundaries made ASCII, as ECMA-262 defines them.

    jsonschema-rs gives ``\\d``, ``\\w`` and ``\\s`` their ECMA-262 meaning but leaves
    ``\\b``/``\\B`` Unicode-aware (``é`` counts as a word character); the regex crate
    spells the ASCII boundary ``(?-u:\\b)``. ``patterns`` records each rewrite.
    """
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "pattern" and isinstance(value, str):
            value = _ecma_pattern(value, patterns)
        elif key == "patternProperties" and isinstance(value, dict):
            value = {
                _ecma_pattern(p, patterns): _ecma_schema(s, patterns) for p, s in value.items()
            }
        elif key in _NAMING_KEYWORDS and isinstance(value, dict):
            value = {name: _ecma_schema(s, patterns) for name, s in value.items()}
        elif key in _SUBSCHEMA_KEYWORDS and isinstance(value, list):
            value = [_ecma_schema(s, patterns) for s in value]
        elif key in _SUBSCHEMA_KEYWORDS:
            value = _ecma_schema(value, patterns)
        out[key] = value
    return out


def _ecma_pattern(pattern: str, patterns: dict[str, str]) -> str:
    if "\\b" not in pattern and "\\B" not in pattern:
        return pattern
    out: list[str] = []
    in_class, i = False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escape = pattern[i : i + 2]
            boundary = escape in ("\\b", "\\B") and not in_class
            out.append(f"(?-u:{escape})" if boundary else escape)
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        out.append(char)
        i += 1
    rewritten = "".join(out)
    if rewritten != pattern:
        patterns[rewritten] = pattern
    return rewritten


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    return str(value)
