"""Constraints are broken one recursion deeper: a tool that checks only the top of a tree is caught.

Inside a recursive ``$ref``, sites are placed through its first expansion and
its second (a child's ``title`` beside the root's), then stop: the third holds
the same constraints once more. Sites inside a second expansion are capped at
``MAX_DEEPER_SITES`` per schema, and come after the shallow ones, each saying
how often a recursion repeats above it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
from hypothesis import Phase, given, settings

from littleghost_testing.strategies import InvalidInput, invalid_inputs
from littleghost_testing.strategies._context import Context, RefStack
from littleghost_testing.strategies._coverage import measure
from littleghost_testing.strategies._in_turn import draw_outside
from littleghost_testing.strategies._invalid import MAX_DEEPER_SITES

from .support import check_invalid, compile_schema
from .test_suite_cases import FILES

TITLE = {"type": "string", "minLength": 1, "maxLength": 40}
# A document outline: its sections are sections too (a `$ref` into `$defs`, entered at the root).
OUTLINE = {
    "type": "object",
    "properties": {"outline": {"$ref": "#/$defs/section"}},
    "required": ["outline"],
    "$defs": {
        "section": {
            "type": "object",
            "properties": {
                "title": TITLE,
                "sections": {"type": "array", "items": {"$ref": "#/$defs/section"}},
            },
            "required": ["title"],
        }
    },
}
# What a handler that checks only the top of the outline enforces: nested sections need only
# be objects with a title.
TOP_ONLY = {
    **OUTLINE,
    "$defs": {
        "section": {
            **OUTLINE["$defs"]["section"],
            "properties": {
                "title": TITLE,
                "sections": {
                    "type": "array",
                    "items": {"type": "object", "required": ["title"]},
                },
            },
        }
    },
}
# Recursive at the root itself (`#`): the first expansion is `$.child`, the second `$.child.child`.
CHAIN = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 3}, "child": {"$ref": "#"}},
}
# A node with more constraints than MAX_DEEPER_SITES.
WIDE = {
    "$ref": "#/$defs/node",
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                **{f"p{index}": {"type": "integer", "maximum": index} for index in range(12)},
                "next": {"$ref": "#/$defs/node"},
            },
        }
    },
}
_INDEX = re.compile(r"\[\d+\]")


def _first_draws(schema: Any) -> list[tuple[InvalidInput, int, int]]:
    """Per site, in order: its first confirmed input, its depth and its recursion repeats."""
    built = compile_schema(schema)
    found = []
    for index, site in enumerate(built.sites):
        drawn = next(
            seed.value
            for seed in (draw_outside(built.invalid_drawn, s, prefix=[index]) for s in (None, 1))
            if seed is not None
        )
        found.append((drawn, site.depth, site.repeats))
    return found


def _places(schema: Any) -> set[tuple[str, str]]:
    """(keyword, path) of each site's first input, array indices as ``[]``."""
    return {(found.keyword, _INDEX.sub("[]", found.path)) for found, _, _ in _first_draws(schema)}


def test_repeats_count_the_expansions_of_a_recursive_reference_past_the_first() -> None:
    ctx = Context(OUTLINE)
    section = ctx.absolute("#/$defs/section")
    once = RefStack().push([section], ctx)
    assert (RefStack().repeats, once.repeats) == (0, 0)
    assert once.push([section], ctx).repeats == 1
    assert once.push([section], ctx).push([section], ctx).repeats == 2


def test_a_tree_is_broken_in_a_child_and_no_deeper() -> None:
    places = _places(OUTLINE)
    shallow = {("maxLength", "$.outline.title"), ("type", "$.outline.sections")}
    # One recursion deeper: today's repeat was broken only where it is entered (its type).
    deeper = {
        ("type", "$.outline.sections[]"),
        ("required", "$.outline.sections[].title"),
        ("maxLength", "$.outline.sections[].title"),
        ("minLength", "$.outline.sections[].title"),
        ("type", "$.outline.sections[].sections"),
    }
    assert shallow | deeper <= places
    assert not [path for _, path in places if path.count("sections[]") > 1]


def test_a_root_that_recurses_is_broken_through_its_second_expansion() -> None:
    places = _places(CHAIN)
    assert {("maxLength", "$.name"), ("maxLength", "$.child.name")} <= places
    assert ("maxLength", "$.child.child.name") in places
    assert not [path for _, path in places if path.startswith("$.child.child.child")]


def test_deeper_sites_come_after_the_shallow_ones_and_say_so() -> None:
    draws = _first_draws(OUTLINE)
    repeats = [repeat for _, _, repeat in draws]
    assert repeats == sorted(repeats) and repeats[0] == 0 and repeats[-1] == 1
    for found, depth, repeat in draws:
        assert repeat == ("sections[" in found.path), found
        # The objects and arrays around the place (a missing key is named below its object).
        steps = found.path.count(".") + found.path.count("[")
        assert depth == steps - (found.keyword == "required"), found


def test_deeper_sites_are_capped_per_schema() -> None:
    paths = [found.path for found, _, _ in _first_draws(WIDE)]
    assert {f"$.p{index}" for index in range(12)} <= set(paths)
    # `$.next` is the second expansion: its own `type` is broken there as before; the sites
    # below it (three per `p`: `type`, and `maximum` drawn and just past) take the cap.
    assert "$.next" in paths
    assert len([path for path in paths if path.startswith("$.next.")]) == MAX_DEEPER_SITES
    assert not [path for path in paths if path.startswith("$.next.next")]


def test_deeper_inputs_break_exactly_what_they_name() -> None:
    for schema in (OUTLINE, CHAIN, WIDE):
        check_invalid(schema, examples=30)


def test_the_suites_dynamic_ref_back_to_the_root_is_broken_one_recursion_deeper() -> None:
    # `$.bar.baz` is a `$dynamicRef` that resolves to the root, whose `foo` is a `const`:
    # broken at `$.foo` only (invalid 3 / 4) while sites stopped at the first repeat.
    description = (
        "A $dynamicRef that initially resolves to a schema with a matching $dynamicAnchor "
        "resolves to the first $dynamicAnchor in the dynamic scope"
    )
    [schema] = [
        case["schema"]
        for case in FILES["draft2020-12/dynamicRef.json"]
        if case["description"] == description
    ]
    assert ("const", "$.bar.baz.foo") in _places(schema)
    found = measure(schema)
    assert found.part(invalid=True) == (4, 4), found.missed


def test_a_tool_that_checks_only_the_top_of_a_tree_is_caught() -> None:
    # A handler validating with TOP_ONLY answers every shallow input right; within Hypothesis's
    # default number of examples, inputs broken one recursion deeper get past it.
    handler = jsonschema.Draft202012Validator(TOP_ONLY)
    oracle = jsonschema.Draft202012Validator(OUTLINE)
    accepted: list[InvalidInput] = []

    @settings(database=None, deadline=None, derandomize=True, phases=[Phase.generate])
    @given(invalid_inputs(OUTLINE))
    def call(broken: InvalidInput) -> None:
        assert not oracle.is_valid(broken.value), broken
        if handler.is_valid(broken.value):
            accepted.append(broken)

    call()
    assert accepted
    assert all(broken.path.startswith("$.outline.sections[") for broken in accepted)
    assert {broken.keyword for broken in accepted} >= {"maxLength", "minLength"}, [
        json.dumps(broken.value) for broken in accepted
    ]
