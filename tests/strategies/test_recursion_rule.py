"""A reference met twice on a path is a recursion only if its target can lead back to it.

A root that ``$ref``s the schema one of its own properties uses meets that
schema twice on the path to the property, and nothing recurses: the property's
optional keys are drawn as often as anywhere, and its constraints are broken.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import Phase, find, settings

from littleghost_testing.strategies import invalid_inputs
from littleghost_testing.strategies._context import Context, RefStack
from littleghost_testing.strategies._coverage import measure

from .test_suite_cases import FILES

# Shared twice on one path, never recursive.
SHARED = {
    "$ref": "#/$defs/inner",
    "properties": {"foo": {"$ref": "#/$defs/inner"}},
    "$defs": {"inner": {"properties": {"bar": {"type": "string", "minLength": 2}}}},
}
# Recursive: `node` holds a `node`.
TREE = {
    "$ref": "#/$defs/node",
    "$defs": {"node": {"properties": {"child": {"$ref": "#/$defs/node"}}}},
}
_FIND = settings(max_examples=200, database=None, derandomize=True, phases=[Phase.generate])


def _suite_case(file: str, description: str) -> Any:
    [case] = [case for case in FILES[file] if case["description"] == description]
    return case["schema"]


def test_only_a_reference_that_leads_back_to_itself_is_cyclic() -> None:
    shared, tree = Context(json.loads(json.dumps(SHARED))), Context(TREE)
    assert not shared.cyclic(shared.absolute("#/$defs/inner"))
    assert tree.cyclic(tree.absolute("#/$defs/node"))
    twice = shared.absolute("#/$defs/inner")
    assert not RefStack().push([twice], shared).push([twice], shared).recursing
    node = tree.absolute("#/$defs/node")
    assert RefStack().push([node], tree).push([node], tree).recursing


def test_a_shared_schema_s_constraint_is_broken_where_it_is_used_again() -> None:
    broken = find(
        invalid_inputs(SHARED),
        lambda found: found.keyword == "minLength" and found.path == "$.foo.bar",
        settings=_FIND,
    )
    assert len(broken.value["foo"]["bar"]) < 2


@pytest.mark.parametrize(
    "description", ["refs with relative uris and defs", "relative refs with absolute uris and defs"]
)
def test_the_suites_bundled_shared_resource_reaches_every_target(description: str) -> None:
    # The root `$ref`s the resource its property `foo` is: 4 / 6 valid and 1 / 2 invalid
    # when a second meeting counted as a recursion.
    found = measure(_suite_case("draft2020-12/ref.json", description))
    assert found.part(invalid=False) == (6, 6), found.missed
    assert found.part(invalid=True) == (2, 2), found.missed
