"""Seed order: with more seeds than examples, the first examples break the most constraints.

An example takes a seed by an index Hypothesis draws among the unused ones. Seeds
of a constraint met at its first pass through every ``$ref`` (tier 0) come
before the same constraints met again one recursion deeper: a tier's index has
one more value, for the later tiers, that carries almost none of its weight.
While seeds are left, no example is a plain draw (whose mutated copies
Hypothesis would try next, each a new example).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, find, settings

from littleghost_testing.strategies import InvalidInput, invalid_inputs
from littleghost_testing.strategies._coverage import EXAMPLES, coverage_of
from littleghost_testing.strategies._coverage import _draw as draw
from littleghost_testing.strategies._in_turn import (
    LATER_TIERS_WEIGHT,
    MOST_WEIGHTED,
    Seed,
    SeedsFirst,
    tier_weights,
    tiers,
)
from littleghost_testing.strategies._invalid import MAX_DEEPER_SITES

CORPUS = Path(__file__).resolve().parent.parent / "data" / "tool_schemas"
SUITE = Path(__file__).resolve().parent.parent / "data" / "json_schema_test_suite" / "cases.json"

# A node with 20 bounded integers (40 constraints) and 20 children that are nodes again:
# a child's `type` is the node's own `type` one recursion deeper (20 more seeds).
NODE: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{f"n{index:02}": {"type": "integer", "maximum": 9} for index in range(20)},
        **{f"c{index:02}": {"$ref": "#/$defs/node"} for index in range(20)},
    },
}
TREE: dict[str, Any] = {"$defs": {"node": NODE}, "$ref": "#/$defs/node"}
# Thirty integer properties, closed: 62 constraints, no recursion (one tier).
WIDE: dict[str, Any] = {
    "type": "object",
    "properties": {f"p{index:02}": {"type": "integer", "maximum": 9} for index in range(30)},
    "additionalProperties": False,
}


def seeds_of(schema: Any) -> list[Seed[InvalidInput]]:
    strategy = invalid_inputs(schema)
    assert isinstance(strategy, SeedsFirst)
    return list(strategy.seeds())


def key(record: InvalidInput) -> str:
    return json.dumps([record.value, record.keyword, record.path], sort_keys=True)


def test_a_constraint_met_again_one_recursion_deeper_is_in_a_later_tier() -> None:
    tier_of = {(seed.value.keyword, seed.value.path): seed.tier for seed in seeds_of(TREE)}
    # Inside a child (`$.c00.n00`), up to MAX_DEEPER_SITES constraints one recursion deeper.
    deeper = {place: tier for place, tier in tier_of.items() if place[1].count(".") == 2}
    assert 0 < len(deeper) <= MAX_DEEPER_SITES and set(deeper.values()) == {1}
    assert len(tier_of) == 60 + len(deeper)
    assert {tier_of[("maximum", f"$.n{index:02}")] for index in range(20)} == {0}
    assert {tier_of[("type", f"$.n{index:02}")] for index in range(20)} == {0}
    assert {tier_of[("type", f"$.c{index:02}")] for index in range(20)} == {1}
    assert [seed.tier for seed in seeds_of(TREE)] == [0] * 40 + [1] * (20 + len(deeper))


def test_a_schema_without_recursion_has_one_tier() -> None:
    seeds = seeds_of(WIDE)
    assert len(seeds) == 61  # the simplest example breaks the 62nd, `type` at $
    assert tiers(seeds) == [seeds]


def test_seeds_are_grouped_by_tier_in_their_order() -> None:
    seeds = [Seed(index, (), tier=index % 3 * 2) for index in range(7)]
    assert [[seed.value for seed in tier] for tier in tiers(seeds)] == [[0, 3, 6], [1, 4], [2, 5]]


def test_a_tier_weighs_its_seeds_and_barely_the_later_tiers() -> None:
    weights = tier_weights(3)
    assert sorted(weights) == [0, 1, 2]  # 3, the later tiers, only shares the rest
    assert sum(weights.values()) == pytest.approx(1 - LATER_TIERS_WEIGHT)
    assert sum(weights.values()) < 1  # Hypothesis's bound
    assert sorted(tier_weights(300)) == list(range(MOST_WEIGHTED))


def test_the_first_examples_take_first_tier_seeds_each_once() -> None:
    seeds = seeds_of(TREE)
    first = {key(seed.value) for seed in seeds if seed.tier == 0}
    found = draw(invalid_inputs(TREE), 21)
    assert (found[0].value, found[0].keyword) == (None, "type")  # still the simplest first
    taken = [key(record) for record in found[1:]]
    assert len(set(taken)) == 20
    assert set(taken) <= first


def test_every_seed_comes_once_before_any_plain_draw() -> None:
    """Hypothesis mutates each new example; a seed's mutations rebuild the seed (its choices
    are forced), so they are no new example, and no plain draw comes while seeds are left."""
    seeds = seeds_of(WIDE)
    found = draw(invalid_inputs(WIDE), len(seeds) + 1)
    assert (found[0].value, found[0].keyword) == (None, "type")
    assert sorted(key(record) for record in found[1:]) == sorted(key(seed.value) for seed in seeds)


def test_a_failure_on_a_weighted_seed_replays_and_shrinks() -> None:
    quiet = settings(
        max_examples=60, database=None, derandomize=True, phases=[Phase.generate, Phase.shrink]
    )
    shrunk = find(
        invalid_inputs(TREE),
        lambda record: record.path == "$.n07" and record.keyword == "maximum",
        settings=quiet,
    )
    assert (shrunk.value, shrunk.keyword, shrunk.path) == ({"n07": 10}, "maximum", "$.n07")


def _tool(name: str) -> dict[str, Any]:
    for path in sorted(CORPUS.glob("*.json")):
        for tool in json.loads(path.read_text())["tools"]:
            if tool["name"] == name:
                return tool["inputSchema"]
    raise LookupError(name)


def _suite_case(file: str, description: str) -> Any:
    groups = json.loads(SUITE.read_text())["files"][file]
    return next(group["schema"] for group in groups if group["description"] == description)


def _broken(schema: Any) -> tuple[list[InvalidInput], tuple[int, int]]:
    """As ``bench/strategies.py --coverage`` counts: EXAMPLES derandomized inputs."""
    found = draw(invalid_inputs(schema), EXAMPLES)
    return found, coverage_of(schema, [], found).part(invalid=True)


def test_a_tool_with_more_constraints_than_inputs_breaks_one_per_input() -> None:
    # firecrawl_interact: 82 constraints, 81 seeds. A plain draw among the seeds and
    # Hypothesis's six mutated copies of it (one constraint) took seven of 50 inputs.
    found, (broken, total) = _broken(_tool("firecrawl_interact"))
    assert total == 82
    assert broken == EXAMPLES
    assert len({key(record) for record in found}) == EXAMPLES


def test_the_2020_12_metaschema_breaks_its_first_pass_constraints_first() -> None:
    schema = _suite_case("draft2020-12/ref.json", "remote ref, containing refs itself")
    seeds = seeds_of(schema)
    # 71 first-pass seeds, 20 of a node met again one recursion in, 15 inside it (MAX_DEEPER_SITES).
    assert (len(seeds), sum(seed.tier == 0 for seed in seeds)) == (106, 71)
    later = {key(seed.value) for seed in seeds if seed.tier > 0}
    found, (broken, total) = _broken(schema)
    assert not later & {key(record) for record in found}
    assert len({key(record) for record in found}) == EXAMPLES
    # 69 of the 71 first-tier seeds break a counted constraint (`anyOf` is not counted);
    # 49 of them at random, and the simplest input, break 48 or more (39 at random of 91).
    assert total == 71 and broken >= 45


def test_the_draft_04_metaschema_breaks_every_constraint_its_validator_lets_break() -> None:
    schema = _suite_case("draft4/ref.json", "remote ref, containing refs itself")
    found = draw(invalid_inputs(schema), EXAMPLES)
    missed = [target for target in coverage_of(schema, [], found).missed if target[0] == "break"]
    # jsonschema-rs's copy of the draft-04 metaschema lets `enum` be empty or repeat
    # values (see docs/strategies.md): no input breaks these two for littleghost.
    assert missed == [("break", "minItems", "$.enum"), ("break", "uniqueItems", "$.enum")]
