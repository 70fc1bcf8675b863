"""Valid seeds reach shapes that fixed draws reach only by luck: steered draws (issue 20)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis import Phase, find, given, settings

from littleghost_testing.strategies import from_schema
from littleghost_testing.strategies._api import compiled
from littleghost_testing.strategies._coverage import EXAMPLES, _draw, coverage_of, covering
from littleghost_testing.strategies._in_turn import Seed, draw_outside
from littleghost_testing.strategies._steer import MAX_STEERED_DRAWS, STEERED_DRAWS_PER_SHAPE

# The JSON-Schema-Test-Suite's "simple URN base URI with $ref via the URN": `foo` is the
# untyped root again, so an object at `foo` with a `foo` of its own takes an object (one
# type of six) with `foo` present, twice.
URN: dict[str, Any] = {
    "$comment": "URIs do not have to have HTTP(s) schemes",
    "$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed",
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "minimum": 30,
    "properties": {"foo": {"$ref": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"}},
}
# A tree of untyped nodes: `tag` at `$.next.meta` is an optional key two levels inside
# one recursion (an object at `$.next`, `meta` in it an object, `tag` in that).
TREE: dict[str, Any] = {
    "minimum": 0,
    "properties": {
        "next": {"$ref": "#"},
        "meta": {"minLength": 1, "properties": {"tag": {"type": "string"}}},
    },
}
# Each key's presence is forbidden beside the properties that declare it: the coverage
# walker counts `present` shapes no value can reach, and steering spends its budget on them.
FORBIDDEN: dict[str, Any] = {
    "type": "object",
    "properties": {key: {"type": "integer"} for key in "abcde"},
    "not": {"anyOf": [{"required": [key]} for key in "abcde"]},
}


def seeds_of(schema: dict[str, Any]) -> Sequence[Seed[Any]]:
    return compiled(json.dumps(schema, sort_keys=True)).valid.seeds()


def valid_coverage(schema: dict[str, Any]) -> tuple[int, int]:
    """Valid shapes reached of those reachable, as ``bench/strategies.py`` measures them."""
    return coverage_of(schema, _draw(from_schema(schema), EXAMPLES)).part(invalid=False)


def test_the_urn_case_reaches_every_valid_shape_within_fifty_values() -> None:
    assert valid_coverage(URN) == (4, 4)


def test_a_seed_holds_the_urn_case_s_shape_inside_the_recursion() -> None:
    values = [seed.value for seed in seeds_of(URN)]
    assert ("present", "$.foo", "foo") in coverage_of(URN, values).reached


def test_a_tree_reaches_an_optional_key_two_levels_inside_a_recursion() -> None:
    values = [seed.value for seed in seeds_of(TREE)]
    assert ("present", "$.next.meta", "tag") in coverage_of(TREE, values).reached
    assert valid_coverage(TREE) == (12, 12)


def test_steered_seeds_replay_exactly_and_come_smallest_first() -> None:
    strategy = compiled(json.dumps(TREE, sort_keys=True)).checked
    seeds = seeds_of(TREE)
    for seed in seeds:
        replayed = draw_outside(strategy, prefix=seed.choices)
        assert replayed is not None and replayed.value == seed.value
    sizes = [len(json.dumps(seed.value)) for seed in seeds]
    assert sizes == sorted(sizes)


def test_the_first_example_is_still_the_simplest() -> None:
    out: list[Any] = []

    @settings(max_examples=1, database=None, derandomize=True, phases=[Phase.generate])
    @given(from_schema(URN))
    def run(value: Any) -> None:
        out.append(value)

    run()
    assert out == [30]


def test_a_failure_on_a_steered_seed_shrinks_to_the_smallest_such_value() -> None:
    def foo_in_foo(value: Any) -> bool:
        inner = value.get("foo") if isinstance(value, dict) else None
        return isinstance(inner, dict) and "foo" in inner

    quiet = settings(database=None, derandomize=True, phases=list(Phase))
    assert find(from_schema(URN), foo_in_foo, settings=quiet) == {"foo": {"foo": 30}}


def test_steering_stops_at_its_budget() -> None:
    strategy = compiled(json.dumps(FORBIDDEN, sort_keys=True)).checked
    steered: list[int | None] = []

    def candidates() -> Iterator[Seed[Any]]:
        for seed in (None, *range(1, 48)):
            drawn = draw_outside(strategy, seed)
            if drawn is not None:
                yield drawn

    def redraw(prefix: Sequence[Any], seed: int | None) -> Seed[Any] | None:
        steered.append(seed)
        return draw_outside(strategy, None if seed is None else 48 + seed, prefix)

    chosen = covering(FORBIDDEN, candidates(), 48, 48, redraw)
    values = [seed.value for seed in chosen]
    assert not any(key in value for value in values for key in "abcde")
    # Five shapes no value reaches, each worth a share: the schema's budget ends it.
    assert 5 * STEERED_DRAWS_PER_SHAPE > MAX_STEERED_DRAWS
    assert len(steered) == MAX_STEERED_DRAWS


def test_no_steered_draw_once_every_shape_is_reached() -> None:
    steered: list[int | None] = []

    def candidates() -> Iterator[Seed[bool]]:
        yield Seed(False, ())
        yield Seed(True, ())

    def redraw(prefix: Sequence[Any], seed: int | None) -> Seed[Any] | None:
        steered.append(seed)
        return None

    assert [seed.value for seed in covering({"type": "boolean"}, candidates(), 48, 192, redraw)]
    assert steered == []
