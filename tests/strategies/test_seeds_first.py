"""Seeds first: the first examples reach every constraint and shape, and replay stays exact."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from littleghost_testing.strategies import InvalidInput, from_schema, invalid_inputs
from littleghost_testing.strategies._api import compiled
from littleghost_testing.strategies._coverage import _draw as draw
from littleghost_testing.strategies._coverage import coverage_of
from littleghost_testing.strategies._in_turn import draw_outside

# Thirty integer properties: 60 constraints (type and maximum of each), and
# thirty optional keys with a six-value enum beside them.
WIDE: dict[str, Any] = {
    "type": "object",
    "properties": {f"p{index:02}": {"type": "integer", "maximum": 9} for index in range(30)},
    "additionalProperties": False,
}
ENUMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "unit": {"enum": ["each", "box", "pallet", "crate", "roll", "sheet"]},
        **{f"flag{index}": {"type": "boolean"} for index in range(12)},
    },
}


def test_fifty_invalid_inputs_break_fifty_different_constraints() -> None:
    # At random, 50 draws over 61 constraints reach about 34 of them (1 - (60/61)^50);
    # a few examples go to Hypothesis's own first draws and mutations.
    found = draw(invalid_inputs(WIDE), 50)
    broken = {(record.keyword, record.path) for record in found}
    assert len(broken) >= 42
    assert all(isinstance(record, InvalidInput) for record in found)


def test_every_constraint_of_a_small_schema_is_broken_within_its_count() -> None:
    schema = {**WIDE, "properties": dict(list(WIDE["properties"].items())[:8])}
    # 17 constraints (16 and the extra key); Hypothesis spends a few examples on its own.
    found = draw(invalid_inputs(schema), 25)
    targets = coverage_of(schema, [], found)
    assert [target for target in targets.missed if target[0] == "break"] == []


def test_thirty_valid_values_reach_every_enum_value_and_both_booleans() -> None:
    found = coverage_of(ENUMS, draw(from_schema(ENUMS), 30))
    assert found.missed == []


def test_the_first_example_is_still_the_simplest() -> None:
    assert draw(from_schema(ENUMS), 1) == [{}]
    first = draw(invalid_inputs(WIDE), 1)[0]
    assert (first.value, first.keyword, first.path) == (None, "type", "$")


def test_a_test_changing_its_input_does_not_change_the_next_examples() -> None:
    values = draw(from_schema(ENUMS), 40)
    for value in values:
        value["spoiled"] = True
    assert all("spoiled" not in value for value in draw(from_schema(ENUMS), 40))


def test_a_failure_on_a_seed_replays_and_shrinks_without_flakiness() -> None:
    """Hypothesis replays the failing choices and shrinks them: a seed is rebuilt from them."""
    seen: list[InvalidInput] = []

    @settings(max_examples=60, database=None, derandomize=True)
    @given(invalid_inputs(WIDE))
    def breaks_nothing_at_p17(record: InvalidInput) -> None:
        seen.append(record)
        assert record.path != "$.p17", record

    with pytest.raises(AssertionError) as failed:
        breaks_nothing_at_p17()
    reported = failed.value.args[0]
    assert "$.p17" in str(reported)
    assert sum(record.path == "$.p17" for record in seen) >= 2  # found, then replayed


def test_a_failure_found_on_a_seed_shrinks_as_far_as_plain_draws_do() -> None:
    def flag3(value: dict[str, Any]) -> bool:
        return value.get("flag3") is True

    quiet = settings(max_examples=100, database=None, derandomize=True, phases=list(Phase))
    plain = compiled(json.dumps(ENUMS, sort_keys=True)).checked
    seeded = find(from_schema(ENUMS), flag3, settings=quiet)
    assert seeded == find(plain, flag3, settings=quiet)
    assert len(seeded) <= 3  # from a seed of up to 13 keys


def test_a_draw_whose_filter_runs_dry_gives_no_seed() -> None:
    assert draw_outside(st.integers().filter(lambda _: False)) is None
    assert draw_outside(st.integers().filter(lambda _: False), seed=3) is None
    seed = draw_outside(st.integers(5, 9), seed=3)
    assert seed is not None and 5 <= seed.value <= 9
    assert draw_outside(st.integers(5, 9), seed=3) == seed  # the same in every process


def test_a_schema_with_one_value_has_no_seeds_and_still_draws_it() -> None:
    assert draw(from_schema({"const": 7}), 5) == [7]


def test_a_strategy_names_its_schema_in_a_short_repr() -> None:
    assert repr(from_schema({"type": "integer"})) == 'from_schema({"type": "integer"})'
    assert repr(invalid_inputs({"type": "integer"})) == 'invalid_inputs({"type": "integer"})'
    wide = repr(from_schema(WIDE))
    assert wide.startswith('from_schema({"additionalProperties": false, "properties": {')
    assert wide.endswith("...)") and len(wide) == len("from_schema()") + 80


@pytest.mark.filterwarnings("error::hypothesis.errors.HypothesisWarning")
def test_a_test_of_a_large_schema_spells_no_huge_repr() -> None:
    """Hypothesis describes the strategies of a test; a metaschema's must not take kilobytes."""
    values = draw(from_schema({"$ref": "https://json-schema.org/draft/2020-12/schema"}), 3)
    assert len(values) == 3


def test_valid_seeds_stop_drawing_once_every_shape_is_reached() -> None:
    from littleghost_testing.strategies._coverage import covering
    from littleghost_testing.strategies._in_turn import Seed

    drawn: list[bool] = []

    def candidates() -> Iterator[Seed[bool]]:
        while True:
            value = len(drawn) % 2 == 1  # False, True, False, ...
            drawn.append(value)
            yield Seed(value, ())

    chosen = covering({"type": "boolean"}, candidates(), 48, 192)
    assert drawn == [False, True]  # both shapes reached: no 46 more draws
    assert [seed.value for seed in chosen] == [True]  # the first (simplest) is Hypothesis's own


def test_valid_seeds_keep_drawing_while_a_shape_is_unreached() -> None:
    from littleghost_testing.strategies._coverage import covering
    from littleghost_testing.strategies._in_turn import Seed

    drawn = 0

    def only_false() -> Iterator[Seed[bool]]:
        nonlocal drawn
        while True:
            drawn += 1
            yield Seed(False, ())

    assert covering({"type": "boolean"}, only_false(), 48, 192) == []
    assert drawn == 96  # a batch of 48, then one more that reached nothing new
