"""Patterns follow ECMA-262, as JSON Schema and littleghost's validator apply them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import find, given, settings

from littleghost_testing.strategies import SchemaError, from_schema

from .support import check_invalid, check_valid

LINE_TERMINATORS = "\n\r\u2028\u2029"
ECMA_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2028\u2029\u202f\u205f\u3000\ufeff"


def _strings(pattern: str, **bounds: int) -> Any:
    return from_schema({"type": "string", "pattern": pattern, **bounds})


def _each(strategy: Any, check: Any, examples: int = 80) -> None:
    @settings(max_examples=examples, database=None, deadline=None)
    @given(strategy)
    def run(value: str) -> None:
        assert check(value), repr(value)

    run()


def test_digit_class_is_ascii() -> None:
    _each(_strings("^\\d+$"), lambda text: set(text) <= set("0123456789"))


def test_word_class_is_ascii() -> None:
    _each(
        _strings("^\\w+$"),
        lambda text: all(c.isascii() and (c.isalnum() or c == "_") for c in text),
    )


def test_dot_never_matches_a_line_terminator() -> None:
    _each(_strings("^a.b$"), lambda text: len(text) == 3 and text[1] not in LINE_TERMINATORS)


def test_non_space_excludes_every_ecma_space() -> None:
    _each(_strings("^\\S+$"), lambda text: not set(text) & set(ECMA_SPACE))


def test_dollar_is_the_end_of_input() -> None:
    _each(_strings("^abc$"), lambda text: text == "abc")


def test_pattern_is_a_search_not_a_full_match() -> None:
    _each(_strings("abc"), lambda text: "abc" in text)
    assert len(find(_strings("abc"), lambda text: text != "abc")) == 4


def test_lengths_and_pattern_are_built_together() -> None:
    check_valid(
        {"type": "string", "pattern": "^[a-z][a-z0-9_-]*$", "minLength": 20, "maxLength": 25}
    )
    check_valid({"type": "string", "pattern": "^[A-Z]{2}-\\d+$", "minLength": 6, "maxLength": 8})
    check_valid({"type": "string", "pattern": "^(foo|bar)+$", "maxLength": 9})


def test_pattern_misses_fail_only_on_pattern() -> None:
    check_invalid({"type": "string", "pattern": "^\\d{3}-\\d{4}$"})


@pytest.mark.parametrize(
    "pattern",
    [
        "(a)\\1",
        "^(?<tag>[ab])-\\k<tag>$",
        "^(?!x)",
        "^(?!admin$)[a-z]+$",
        "(?<=@)\\w+",
        "^(?=.*[A-Z])(?=.*[a-z])(?=.*\\d).{8,}$",
    ],
)
def test_lookaround_and_backreferences_generate_matches(pattern: str) -> None:
    check_valid({"type": "string", "pattern": pattern}, 30)
    check_invalid({"type": "string", "pattern": pattern}, 20)


def test_a_lookaround_pattern_no_string_matches_is_refused_when_built() -> None:
    with pytest.raises(SchemaError, match="no string generated for it matched"):
        _strings("^(?<=a)b")
