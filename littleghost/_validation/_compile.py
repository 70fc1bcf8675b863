"""Compiling a schema for jsonschema-rs with ECMA-262 regex semantics in linear time."""

from __future__ import annotations

import functools
from typing import Any

import jsonschema_rs
import regex

from .._backtracking import DEFAULT_REGEX_TIMEOUT, backtracking_keyword, compile_ecma
from .._backtracking import KEYWORD as BACKTRACKING_KEYWORD
from .._schema import WORD_BOUNDARIES, Steps, declared_draft, map_subschemas
from ._regex_syntax import pattern_problem

__all__ = [
    "PATTERN_PROPERTIES_STEPS",
    "PatternRefused",
    "compile_instance_validator",
    "regexes_compile",
]


# Backtracking steps one match of a lookaround patternProperties pattern may take.
PATTERN_PROPERTIES_STEPS = 1_000_000


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
    jsonschema-rs's errors, and ``PatternRefused`` for a pattern no engine
    may see (see ``_regex_syntax``).
    """
    options: dict[str, Any] = {} if registry is None else {"registry": registry}
    backtracking: list[str] = []
    boundaries = _boundaries(schema)
    rewritten = _ecma_schema(schema, {} if patterns is None else patterns, backtracking, boundaries)
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


class PatternRefused(ValueError):
    """A pattern refused before any engine saw it; the message names its keyword and place."""


def regexes_compile(
    patterns: tuple[str, ...], property_patterns: tuple[str, ...], dialect: str | None = None
) -> bool:
    """Whether each regex compiles as a schema's ``pattern`` or ``patternProperties`` key would.

    Each is compiled alone, as ``compile_instance_validator`` compiles it in
    a whole schema whose ``$schema`` is ``dialect`` (drafts 04 to 07 rewrite
    word boundaries, and their metaschema checks the result), and cached. A
    ``patternProperties`` key the linear engine refuses answers ``False``: it
    moves the whole schema to another engine, so only compiling that schema tells.
    """
    return all(_pattern_compiles(pattern, dialect) for pattern in patterns) and all(
        _property_pattern_compiles(pattern, dialect) for pattern in property_patterns
    )


@functools.lru_cache(maxsize=1024)
def _pattern_compiles(pattern: str, dialect: str | None) -> bool:
    try:
        compile_instance_validator(_in_dialect({"pattern": pattern}, dialect))
    except (jsonschema_rs.ValidationError, ValueError):
        return False
    return True


@functools.lru_cache(maxsize=1024)
def _property_pattern_compiles(pattern: str, dialect: str | None) -> bool:
    if pattern_problem(pattern) is not None:
        return False
    schema = _in_dialect({"patternProperties": {pattern: {}}}, dialect)
    if not _runs_in_linear_time(_ecma_pattern(pattern, {}, _boundaries(schema))):
        return False
    try:
        compile_instance_validator(schema)
    except (jsonschema_rs.ValidationError, ValueError):
        return False
    return True


def _in_dialect(schema: dict[str, Any], dialect: str | None) -> dict[str, Any]:
    return schema if dialect is None else {"$schema": dialect, **schema}


def _boundaries(schema: Any) -> dict[str, str]:
    """How ``schema``'s draft spells ECMA-262's word boundaries (see ``_LOOKAROUND``)."""
    draft = declared_draft(schema) if isinstance(schema, dict) else None
    return _LOOKAROUND if draft is not None and draft.regex_format_asserted else _FLAGGED


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


_FLAGGED = {"\\b": "(?-u:\\b)", "\\B": "(?-u:\\B)"}
"""ECMA-262's ASCII word boundaries as the regex crate spells them."""

_LOOKAROUND = {f"\\{letter}": spelled for letter, spelled in WORD_BOUNDARIES.items()}
"""The same boundaries in ECMA-262 itself, for drafts whose metaschema checks patterns.

Draft-04 to draft-07 metaschemas say ``format: regex``, and jsonschema-rs asserts
it when it checks the schema: ``(?-u:\\b)`` is not ECMA-262, so a rewritten
pattern would fail that check and the tool refuse every input. Lookaround is
ECMA-262, and needs the backtracking engine.
"""


def _ecma_schema(
    schema: Any,
    patterns: dict[str, str],
    backtracking: list[str],
    boundaries: dict[str, str],
    at: tuple[str, ...] = (),
) -> Any:
    """``schema`` with its patterns' word boundaries made ASCII, as ECMA-262 defines them.

    jsonschema-rs gives ``\\d``, ``\\w`` and ``\\s`` their ECMA-262 meaning but leaves
    ``\\b``/``\\B`` Unicode-aware (``é`` counts as a word character); ``boundaries``
    spells the ASCII ones (``_FLAGGED``, or ``_LOOKAROUND`` for drafts whose
    metaschema checks patterns). ``patterns`` records each rewrite.
    A ``pattern`` the linear engine cannot run becomes the backtracking keyword;
    ``backtracking`` receives each such ``patternProperties`` pattern. A pattern
    that is not ECMA-262, or too large to compile, is refused first (``at`` is
    where ``schema`` sits, for the message).
    """
    if not isinstance(schema, dict):
        return schema

    def rewrite(subschema: Any, steps: Steps) -> Any:
        return _ecma_schema(subschema, patterns, backtracking, boundaries, (*at, *steps))

    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "pattern" and isinstance(value, str):
            _refuse_unfit(value, (*at, key))
            ascii_value = _ecma_pattern(value, patterns, boundaries)
            if not _runs_in_linear_time(ascii_value) and _runs_backtracking(value):
                out[BACKTRACKING_KEYWORD] = value
                continue
            value = ascii_value
        elif key == "patternProperties" and isinstance(value, dict):
            for pattern in value:
                _refuse_unfit(pattern, (*at, key))
            rewritten = {p: _ecma_pattern(p, patterns, boundaries) for p in value}
            backtracking.extend(p for p in rewritten.values() if not _runs_in_linear_time(p))
            value = {rewritten[p]: rewrite(s, (key, p)) for p, s in value.items()}
        else:
            value = map_subschemas(key, value, rewrite)
        out[key] = value
    return out


def _refuse_unfit(pattern: str, at: tuple[str, ...]) -> None:
    """Raise ``PatternRefused`` if ``pattern`` is not ECMA-262 or too large to compile."""
    problem = pattern_problem(pattern)
    if problem is not None:
        raise PatternRefused(f"keyword {at[-1]!r} at {'.'.join(at)}: {problem}")


def _ecma_pattern(pattern: str, patterns: dict[str, str], boundaries: dict[str, str]) -> str:
    if "\\b" not in pattern and "\\B" not in pattern:
        return pattern
    out: list[str] = []
    in_class, i = False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escape = pattern[i : i + 2]
            boundary = escape in ("\\b", "\\B") and not in_class
            out.append(boundaries[escape] if boundary else escape)
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
