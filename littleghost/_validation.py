"""Compiling JSON Schemas into fast validators, and keeping hostile input away from them.

``jsonschema`` is the reference: it checks schemas against the Draft 2020-12
metaschema and names the bad keyword. ``jsonschema-rs`` validates instances on
the hot path: it is compiled once per schema, applies ECMA-262 regular
expression semantics (``\\d`` is ASCII, ``.`` excludes line terminators) and,
configured with the ``regex`` crate, matches in linear time (lookaround and
backreferences, which need backtracking, run under a time budget, see
``_backtracking``). Native code recurses over its input, so ``json_problem``
checks depth, cycles and plain JSON first, in one iterative pass; reports of
invalid input are bounded.
"""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
import jsonschema_rs
import regex

from ._backtracking import DEFAULT_REGEX_TIMEOUT, TIMED_OUT, backtracking_keyword, compile_ecma
from ._backtracking import KEYWORD as BACKTRACKING_KEYWORD
from ._first_use import compiles_on_first_use
from ._frozen import FrozenDict, FrozenList
from ._schema_walk import compiles_on_first_use_walked, freeze_within, nests_within
from .errors import ConfigurationError

__all__ = [
    "FULL_REPORT_VALUES",
    "MAX_LISTED_VIOLATIONS",
    "SchemaValidator",
    "Violation",
    "compile_instance_validator",
    "first_problem",
    "json_path",
    "json_problem",
]

# Model-facing reports of invalid input stay within a few KiB: at most this many
# violations, each quoting at most an excerpt of a value ...
MAX_LISTED_VIOLATIONS = 8
EXCERPT_CHARS = 80
# ... and past this many values in the input, only the first violation (see ``report``).
FULL_REPORT_VALUES = 1_000
# Schemas are the application's (or an MCP server's): deeper than this is a
# ConfigurationError, before the recursive metaschema check can overflow.
MAX_SCHEMA_DEPTH = 128
# Input that reuses the same containers (only programmatic callers can) counts
# every occurrence: past this many values it is invalid, as validating it would
# visit them all.
MAX_EXPANDED_VALUES = 10_000_000
# Backtracking steps one match of a lookaround patternProperties pattern may take.
PATTERN_PROPERTIES_STEPS = 1_000_000
# No depth limit: for trusted callers (tests, the testing kit); cycles are still caught.
UNBOUNDED = sys.maxsize

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

    __slots__ = ("_compiled", "_patterns", "_pending", "schema")

    def __init__(
        self, schema: Mapping[str, Any], *, regex_timeout: float = DEFAULT_REGEX_TIMEOUT
    ) -> None:
        self.schema = schema
        # A plain JSON tree is checked and frozen in one pass (see _schema_walk) ...
        plain: Any = freeze_within(schema, MAX_SCHEMA_DEPTH)
        lazy = compiles_on_first_use_walked(plain)
        if plain is None:  # ... anything else takes the slow path that names the problem
            problem = schema_problem(schema)
            if problem is not None:
                raise ConfigurationError(f"Invalid input schema: {problem}")
            try:
                text = json.dumps(schema, allow_nan=False)
                plain = json.loads(text)
            except (TypeError, ValueError) as error:
                raise ConfigurationError(f"Invalid input schema: not JSON ({error})") from None
            lazy = compiles_on_first_use(plain, text)
        _check_schema(plain)
        # The rewritten patterns, mapped back to what the schema declares.
        self._patterns: dict[str, str] = {}
        if lazy:
            self._pending = (plain, regex_timeout)  # compiled by ``__getattr__``
        else:
            self._compiled = self._compile(plain, regex_timeout)

    if not TYPE_CHECKING:  # keep attribute typos visible to the type checker

        def __getattr__(self, name: str) -> Any:
            """Compile on first use a schema that cannot fail to compile (see ``_first_use``)."""
            if name != "_compiled":
                raise AttributeError(name)
            self._compiled = compiled = self._compile(*self._pending)
            del self._pending
            return compiled

    def _compile(self, plain: Any, regex_timeout: float) -> Any:
        if type(plain) is not dict:  # frozen: jsonschema-rs takes no list subclass
            plain = json.loads(json.dumps(plain))
        try:
            return compile_instance_validator(plain, self._patterns, regex_timeout=regex_timeout)
        except jsonschema_rs.ValidationError as error:
            raise ConfigurationError(_schema_failure(error, self._patterns)) from None
        except (jsonschema_rs.ReferencingError, ValueError) as error:
            raise ConfigurationError(f"Invalid input schema: {_first_line(error)}") from None

    def accepts(self, instance: Any) -> bool:
        """The native check alone, for input ``json_problem`` has already passed."""
        try:
            return self._compiled.is_valid(instance)
        except Exception:  # a container subclass whose methods raise, say
            return False

    def is_valid(self, instance: Any, *, max_depth: int = UNBOUNDED) -> bool:
        # jsonschema-rs never reads what no keyword needs, and lets NaN and infinities
        # (which Python's json module parses) through every numeric bound: only plain
        # JSON is valid input, and it is checked first, so that no cycle and no input
        # deeper than ``max_depth`` reaches native code.
        return json_problem(instance, max_depth=max_depth) is None and self.accepts(instance)

    def violations(self, instance: Any, *, max_depth: int = UNBOUNDED) -> list[Violation]:
        """Every violation, each with its ``$``-rooted path and keyword.

        Complete, so its cost grows with the number of violations: model-facing
        messages use ``report``, which is bounded.
        """
        problem = first_problem(instance, max_depth=max_depth)
        if problem is not None:
            return [problem]
        try:
            errors = list(self._compiled.iter_errors(instance))
        except Exception:
            return [Violation("$", "type", "$ cannot be read as JSON")]
        return [v for error in errors for v in _describe(error, instance, self._patterns)]

    def report(self, instance: Any) -> str:
        """A bounded account of why plain-JSON ``instance`` is invalid, for the model.

        At most ``MAX_LISTED_VIOLATIONS`` violations, each quoting at most a
        short excerpt of a value, then "and K more". jsonschema-rs computes
        every error (and renders the failing value into each message) before
        returning any, so input with more than ``FULL_REPORT_VALUES`` values
        gets only the first violation, from the check that stops at it.
        """
        if _more_values_than(instance, FULL_REPORT_VALUES):
            try:
                self._compiled.validate(instance)
            except jsonschema_rs.ValidationError as error:
                listed = list(_describe(error, instance, self._patterns))[:MAX_LISTED_VIOLATIONS]
                return "; ".join(v.message for v in listed) + "; and possibly more"
            except Exception:
                pass
            return "$ cannot be read as JSON"
        try:
            errors = list(self._compiled.iter_errors(instance))
        except Exception:
            return "$ cannot be read as JSON"
        shown: list[str] = []
        hidden = 0
        for error in errors:
            if len(shown) >= MAX_LISTED_VIOLATIONS:
                hidden += 1  # an error that would list several properties counts once
                continue
            for violation in _describe(error, instance, self._patterns):
                if len(shown) < MAX_LISTED_VIOLATIONS:
                    shown.append(violation.message)
                else:
                    hidden += 1
        listed = "; ".join(shown) or "$ is not valid"
        return f"{listed}; and {hidden} more" if hidden else listed


def _more_values_than(instance: Any, limit: int) -> bool:
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


def compile_instance_validator(
    schema: Any,
    patterns: dict[str, str] | None = None,
    *,
    registry: Any = None,
    regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
) -> Any:
    """A jsonschema-rs validator with littleghost's semantics, for every caller that needs them.

    ECMA-262 patterns matched in linear time (ASCII word boundaries) where
    the linear engine can run them; lookaround and backreferences on a
    backtracking engine, each match within ``regex_timeout`` seconds.
    ``format`` is an annotation, and there is no network. ``patterns``
    receives each rewritten pattern mapped to the declared one. Raises
    jsonschema-rs's errors.
    """
    options: dict[str, Any] = {} if registry is None else {"registry": registry}
    backtracking: list[str] = []
    rewritten = _ecma_schema(schema, {} if patterns is None else patterns, backtracking)
    engine: Any = jsonschema_rs.RegexOptions()
    if backtracking:
        # patternProperties cannot be a custom keyword (additionalProperties depends
        # on it): its lookaround patterns run on fancy-regex, a step budget per match.
        engine = jsonschema_rs.FancyRegexOptions(backtrack_limit=PATTERN_PROPERTIES_STEPS)
    return jsonschema_rs.validator_for(
        rewritten,
        validate_formats=False,
        pattern_options=engine,
        offline=True,
        keywords={BACKTRACKING_KEYWORD: backtracking_keyword(regex_timeout)},
        **options,
    )


@functools.lru_cache(maxsize=1024)
def _runs_in_linear_time(pattern: str) -> bool:
    """Whether the linear-time engine accepts ``pattern`` (lookaround and backreferences
    are what it rejects)."""
    try:
        jsonschema_rs.validator_for(
            {"pattern": pattern}, pattern_options=jsonschema_rs.RegexOptions()
        )
    except jsonschema_rs.ValidationError:
        return False
    return True


@functools.lru_cache(maxsize=1024)
def _runs_backtracking(pattern: str) -> bool:
    try:
        compile_ecma(pattern)
    except (regex.error, ValueError, OverflowError):
        return False
    return True


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
    if type(schema) is not dict:
        schema = json.loads(json.dumps(schema))  # frozen: its messages quote plain values
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
        reason += " (patterns use ECMA-262 syntax)"
    return f"Invalid input schema: keyword {keyword!r} at {where}: {reason}"


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


def _describe(error: Any, instance: Any, patterns: Mapping[str, str]) -> Iterator[Violation]:
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
    if len(path) <= 3 * EXCERPT_CHARS:
        return path
    return f"{path[:EXCERPT_CHARS]}…{path[-EXCERPT_CHARS:]}"


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
            return f"must be one of {_json_excerpt(details.get('options'))}"
        case "const":
            return f"must equal {_json_excerpt(details.get('expected_value'))}"
        case "uniqueItems":
            return "must not contain duplicate items"
        case "anyOf":
            return "must match at least one of the anyOf schemas"
        case "oneOf":
            return "must match exactly one of the oneOf schemas"
        case "not":
            return "must not match the schema under 'not'"
        case "contains":
            return "must contain an item that matches 'contains'"
        case "minContains":
            return "must contain more items that match 'contains' (minContains)"
        case "maxContains":
            return "must contain fewer items that match 'contains' (maxContains)"
        case "propertyNames":
            return "has a property name that breaks 'propertyNames'"
        case _:
            # jsonschema-rs renders the failing value into its message: excerpt it.
            return f"fails {keyword!r}: {_excerpt(_first_line(error))}"


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


def schema_problem(schema: object) -> str | None:
    """Whether ``schema`` nests deeper than ``MAX_SCHEMA_DEPTH`` or holds a cycle.

    Checked before anything recursive (freezing, ``json.dumps``, the
    metaschema check, compiling) sees the schema. Any mapping counts as an
    object here; whether the schema is plain JSON is checked afterwards.
    """
    if nests_within(schema, MAX_SCHEMA_DEPTH):
        return None  # the common case, a plain tree, answered by the fast pass
    try:
        problem = _locate_problem(schema, MAX_SCHEMA_DEPTH, mappings=True)
    except Exception as error:
        return f"the schema cannot be read ({type(error).__name__})"
    if problem is None:
        return None
    if problem.path == "$":  # "$ is nested deeper than ...": say which document
        return problem.message.replace("$", "the schema", 1)
    return f"at {problem.message}"  # "at $.properties.self refers back to $ (a cycle)"


def first_problem(value: object, *, max_depth: int) -> Violation | None:
    """``json_problem`` as a located ``Violation``."""
    try:
        if _scan(value, max_depth):
            return None
        return _locate_problem(value, max_depth)
    except Exception as error:  # a dict or list subclass whose methods raise
        return Violation("$", "type", f"$ cannot be read as JSON ({type(error).__name__})")


def _scan(value: object, max_depth: int) -> bool:
    """The hot path of ``json_problem``: whether ``value`` is fine, level by level.

    Model input is plain dicts, lists and strings, and this runs on every
    call, so it dispatches on exact types and only says yes or no
    (``_locate_problem`` says what and where). Cycles never end, so they
    exceed ``max_depth``. A container met twice sends the input to the slow
    path; to keep the common case cheap only large containers are tracked one
    by one, and wide levels are checked as a whole, which bounds the work a
    repeated small container can cause.
    """
    level: list[Any] = [value]
    large: set[int] = set()
    depth = 0
    while level:
        children: list[Any] = []
        extend = children.extend
        nested = False
        for item in level:
            kind = type(item)
            if kind is str:
                if not item.isascii() and _has_surrogate(item):
                    return False
            elif kind is dict:
                nested = True
                if len(item) > _SMALL_CONTAINER:
                    if id(item) in large:
                        return False
                    large.add(id(item))
                for key in item:
                    if type(key) is not str or (not key.isascii() and _has_surrogate(key)):
                        return False
                extend(item.values())
            elif kind is list:
                nested = True
                if len(item) > _SMALL_CONTAINER:
                    if id(item) in large:
                        return False
                    large.add(id(item))
                extend(item)
            elif kind is int or kind is bool or item is None:
                continue
            elif kind is float:
                if not math.isfinite(item):
                    return False
            elif kind is FrozenDict or kind is FrozenList:  # frozen input, e.g. from a test
                nested = True
                if len(item) > _SMALL_CONTAINER:
                    if id(item) in large:
                        return False
                    large.add(id(item))
                if kind is FrozenList:
                    extend(item)
                elif all(type(key) is str and not _has_surrogate(key) for key in item):
                    extend(item.values())
                else:
                    return False
            else:
                return False  # other subclasses and tuples: the slow path checks them
        if nested:
            depth += 1
            if depth > max_depth:
                return False
        if len(children) > _WIDE_LEVEL:
            if _plain_scalars(children):
                return True  # nothing below: a long array of numbers or strings
            if _repeats_a_container(children, large):
                return False
        level = children
    return True


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
        while visit is not None and visit.parent is not None:
            parts.append(visit.key)  # type: ignore[arg-type]
            visit = visit.parent
        return parts[::-1]

    def path(self) -> str:
        return json_path(self.parts())


def _locate_problem(value: Any, max_depth: int, *, mappings: bool = False) -> Violation | None:
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
        if isinstance(item, str):
            if not mappings and _has_surrogate(item):
                where = visit.path()
                return Violation(where, "type", f"{where} is not valid Unicode (a lone surrogate)")
            continue
        if isinstance(item, float):
            if not mappings and not math.isfinite(item):
                where = visit.path()
                return Violation(where, "type", f"{where} must be a finite number, not {item!r}")
            continue
        if item is None or isinstance(item, bool | int):
            continue
        if not isinstance(item, objects | list | tuple):
            if mappings:
                continue
            where = visit.path()
            return Violation(where, "type", f"{where} is not a JSON value")
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
        if isinstance(item, objects) and not mappings:
            for key in item:
                if not isinstance(key, str):
                    where = visit.path()
                    return Violation(
                        where, "type", f"{where} has a key that is not a string: {key!r}"
                    )
                if _has_surrogate(key):
                    where = visit.path()
                    return Violation(where, "type", f"{where} has a key that is not valid Unicode")
        open_[ident] = visit
        stack.append((visit, True))
        entries = list(item.items()) if isinstance(item, objects) else list(enumerate(item))
        stack.extend((_Visit(child, key, visit, depth), False) for key, child in reversed(entries))
    if not mappings and sizes.get(id(value), 1) > MAX_EXPANDED_VALUES:
        # Shared values are fine, but validating visits each occurrence.
        limit = f"{MAX_EXPANDED_VALUES:,}"
        return Violation("$", "type", f"$ repeats shared values until it holds over {limit} values")
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


def _ecma_schema(schema: Any, patterns: dict[str, str], backtracking: list[str]) -> Any:
    """``schema`` with its patterns' word boundaries made ASCII, as ECMA-262 defines them.

    jsonschema-rs gives ``\\d``, ``\\w`` and ``\\s`` their ECMA-262 meaning but leaves
    ``\\b``/``\\B`` Unicode-aware (``é`` counts as a word character); the regex crate
    spells the ASCII boundary ``(?-u:\\b)``. ``patterns`` records each rewrite.
    A ``pattern`` the linear engine cannot run becomes the backtracking keyword;
    ``backtracking`` receives each such ``patternProperties`` pattern.
    """
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "pattern" and isinstance(value, str):
            if not _runs_in_linear_time(value) and _runs_backtracking(value):
                out[BACKTRACKING_KEYWORD] = value
                continue
            value = _ecma_pattern(value, patterns)
        elif key == "patternProperties" and isinstance(value, dict):
            backtracking.extend(p for p in value if not _runs_in_linear_time(p))
            value = {
                _ecma_pattern(p, patterns): _ecma_schema(s, patterns, backtracking)
                for p, s in value.items()
            }
        elif key in _NAMING_KEYWORDS and isinstance(value, dict):
            value = {name: _ecma_schema(s, patterns, backtracking) for name, s in value.items()}
        elif key in _SUBSCHEMA_KEYWORDS and isinstance(value, list):
            value = [_ecma_schema(s, patterns, backtracking) for s in value]
        elif key in _SUBSCHEMA_KEYWORDS:
            value = _ecma_schema(value, patterns, backtracking)
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
