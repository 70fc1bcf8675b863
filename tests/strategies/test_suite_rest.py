"""The JSON-Schema-Test-Suite cases that timed out or failed in whole-suite runs (issue 20).

Each is drawn from the suite's own schema; the families they belong to
(``items``, ``pattern``, ``patternProperties``) run through the same checks as
test_suite_cases.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from littleghost import ConfigurationError
from littleghost._validation import SchemaValidator
from littleghost_testing.strategies import SchemaError, from_schema, invalid_inputs
from littleghost_testing.strategies._api import compiled
from littleghost_testing.strategies._coverage import _draw
from littleghost_testing.strategies._ecma import property_spans
from littleghost_testing.strategies._patterns import characters_in, pattern_strings, search

from .test_suite_cases import FILES, _check_group

PATTERN_FILES = ["draft2020-12/pattern.json", "draft2020-12/patternProperties.json"]


def _case(description: str) -> Any:
    groups = [group for groups in FILES.values() for group in groups]
    found = [group for group in groups if group["description"] == description]
    assert len(found) == 1, description
    return found[0]["schema"]


def _groups(names: list[str]) -> list[Any]:
    return [
        pytest.param(group, id=f"{name.split('/')[1]}: {group['description']}")
        for name in names
        for group in FILES[name]
    ]


@pytest.mark.parametrize("group", _groups(["draft2020-12/items.json"]))
def test_items(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", _groups(PATTERN_FILES))
def test_pattern_and_pattern_properties(group: dict[str, Any]) -> None:
    _check_group(group)


def test_a_unicode_property_class_is_drawn_without_listing_its_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Hypothesis's from_regex lists a class's characters one by one on first use:
    # 1.2 to 1.6 s of CPU for \p{Letter}'s 140 000, more than a whole 50-value run.
    schema = _case("pattern with Unicode property escape requires unicode mode")
    for cached in (compiled, property_spans, pattern_strings, characters_in):
        cached.cache_clear()

    def listing(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a \\p{...} atom went through st.from_regex")

    monkeypatch.setattr(st, "from_regex", listing)
    values = _draw(from_schema(schema), 10)
    assert len({value for value in values if isinstance(value, str)}) > 5
    assert all(search(schema["pattern"], value) for value in values if isinstance(value, str))


def test_characters_in_draws_every_character_of_its_spans_and_no_other() -> None:
    spans = ((0x41, 0x43), (0xE000, 0xE001), (0x1F600, 0x1F600))
    wanted = {"A", "B", "C", "\ue000", "\ue001", "\U0001f600"}
    strategy = characters_in(spans)
    assert set(_draw(strategy, 100)) == wanted


def test_the_simplest_character_of_a_property_is_its_first() -> None:
    values = _draw(pattern_strings("^\\p{Letter}+$"), 1)
    assert values == ["A"]


@pytest.mark.parametrize(
    ("pattern", "escape"),
    [("\\p{Foo}", "\\p{Foo}"), ("^[a-z\\P{NotAProperty}]+$", "\\P{NotAProperty}")],
)
def test_an_unknown_unicode_property_is_refused_by_name_as_the_validator_refuses_it(
    pattern: str, escape: str
) -> None:
    schema = {"type": "string", "pattern": pattern}
    with pytest.raises(ConfigurationError) as refused:
        SchemaValidator(schema)  # what Tool.execute validates with
    assert f"{escape!r} names no Unicode property" in str(refused.value)
    for strategy in (from_schema, invalid_inputs):
        with pytest.raises(SchemaError) as error:
            strategy(schema).validate()
        assert str(error.value) == str(refused.value)


def test_a_property_the_validator_knows_is_honoured() -> None:
    # The suite's own case, spelled as the validator also accepts it (a general category).
    schema = {**_case("pattern with Unicode property escape requires unicode mode")}
    schema["pattern"] = "^\\p{L}{2}$"
    validator = SchemaValidator(schema)
    values = _draw(from_schema(schema), 10)
    assert all(validator.is_valid(value) for value in values)
    assert any(isinstance(value, str) and not value.isascii() for value in values)
