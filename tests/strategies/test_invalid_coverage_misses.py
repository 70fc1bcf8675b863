"""Issue 20: constraints `invalid_inputs` never broke, each on the schema it was missed in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings

from littleghost._validation import SchemaValidator
from littleghost_testing.strategies import InvalidInput, invalid_inputs
from littleghost_testing.strategies._api import _key, compiled
from littleghost_testing.strategies._coverage import measure
from littleghost_testing.strategies._in_turn import draw_outside
from littleghost_testing.strategies._patterns import pattern_strings

CORPUS = Path(__file__).resolve().parent.parent / "data" / "tool_schemas"
DRAFT_04 = "http://json-schema.org/draft-04/schema#"
# The JSON-Schema-Test-Suite's "remote ref, containing refs itself" (draft4/ref.json).
DRAFT_04_METASCHEMA_REF = {"$schema": DRAFT_04, "$ref": DRAFT_04}
# cyanheads git-mcp-server's `git_remote` (tests/data/tool_schemas): a remote's name.
REMOTE_NAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": 255,
    "pattern": "^[a-zA-Z0-9._]+(?:[-._a-zA-Z0-9]*)$",
}
_FIND = settings(
    max_examples=60, database=None, derandomize=True, phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip


def first_broken(schema: Any, keyword: str, path: str) -> InvalidInput:
    return find(
        invalid_inputs(schema),
        lambda broken: broken.keyword == keyword and broken.path == path,
        settings=_FIND,
    )


def test_the_draft_04_metaschema_s_exclusive_bound_flag_is_broken_beside_its_bound() -> None:
    # draft-04: `exclusiveMaximum: {type: boolean}` and `dependencies: {exclusiveMaximum:
    # [maximum]}`. A wrong type without `maximum` breaks the dependency too: never alone.
    schema = compiled(_key(DRAFT_04_METASCHEMA_REF))
    drawn = [draw_outside(site.strategy, seed) for site in schema.sites for seed in (None, 1)]
    confirmed = [schema.confirmed(seed.value) for seed in drawn if seed is not None]
    found = {(broken.keyword, broken.path): broken for broken in confirmed if broken is not None}
    for bound in ("maximum", "minimum"):
        broken = found[("type", f"$.exclusive{bound.title()}")]
        assert bound in broken.value
        assert not isinstance(broken.value[f"exclusive{bound.title()}"], bool)


def test_values_of_the_draft_04_metaschema_are_built_with_its_dependencies() -> None:
    # Before the validator's final check: every constructed value already passes it (the
    # metaschema was read as 2020-12 without rewriting `dependencies`, and most were dropped).
    strategy = compiled(_key(DRAFT_04_METASCHEMA_REF)).constructed
    validator = SchemaValidator(DRAFT_04_METASCHEMA_REF)
    drawn = [draw_outside(strategy, seed) for seed in range(1, 9)]
    values = [seed.value for seed in drawn if seed is not None]
    assert len(values) == 8
    assert all(validator.is_valid(value) for value in values)


def test_a_pattern_whose_tail_is_a_group_is_drawn_at_any_length() -> None:
    # `(?:[-._a-zA-Z0-9]*)` made the pattern "not a sequence": strings were drawn as
    # `from_regex` gives them and filtered by length, and none reached 256 characters.
    long = draw_outside(pattern_strings(REMOTE_NAME["pattern"], 256, None), 1)
    assert long is not None and len(long.value) >= 256


def test_a_remote_name_is_broken_past_its_max_length() -> None:
    schema = {"type": "object", "properties": {"name": REMOTE_NAME}}
    broken = first_broken(schema, "maxLength", "$.name")
    assert len(broken.value["name"]) == 256


def test_a_schema_with_49_constraints_has_each_broken_within_50_inputs() -> None:
    # Mapbox's PoiSearchTool: one seed per constraint, 49 seeds. With a plain draw one
    # example in 50 while seeds were left, that draw and Hypothesis's mutated copies of it
    # took seven of the 50 examples, and seven constraints went unbroken (42 / 49).
    tools = json.loads((CORPUS / "mapbox__mcp-server.json").read_text())["tools"]
    [schema] = [tool["inputSchema"] for tool in tools if tool["name"] == "PoiSearchTool"]
    assert measure(schema).part(invalid=True) == (49, 49)
