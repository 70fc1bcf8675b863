"""Each distinct bug's input is shrunk, whatever phase found it: the coverage phase's fullest
input, an input broken from it, or a random draw with a number of thirty digits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import mcp
import pytest
from servers import engine_planted
from servers.cli_harness import run
from servers.engine_harness import Engine, connected

from littleghost._validation import SchemaValidator
from littleghost_testing._engine import DEFAULT_SHRINK_BUDGET, FuzzOptions, ToolReport
from littleghost_testing._engine._shrink import shrunk

SMALLEST = {
    "accepted_invalid minimum": {"n": -1, "tag": ""},
    "accepted_invalid maximum": {"n": 10, "tag": ""},
}
"""The smallest input showing each of ``tagged``'s two bugs: ``n`` just past a bound, ``tag``
present, nothing else."""


@pytest.fixture
def gated(anyio_backend: str) -> Iterator[Engine]:
    with connected(anyio_backend, lambda: mcp.Client(engine_planted.gated)) as engine:
        yield engine


def reported(report: ToolReport) -> dict[str, Any]:
    return {f"{g.example.kind} {g.example.keyword}": g.example.input for g in report.groups}


# Before each bug's own input was shrunk, the first two reported the coverage phase's fullest
# input, and the third a random draw: {"n": 37200, "a": "", "c": ..., "d": "", "tag": ...}.
@pytest.mark.parametrize(("examples", "seed"), [(20, None), (20, 2), (100, 8)])
def test_a_bug_behind_an_optional_key_is_shrunk_to_its_smallest_input(
    gated: Engine, examples: int, seed: int | None
) -> None:
    options = FuzzOptions(examples=examples, seed=seed, shrink_budget=DEFAULT_SHRINK_BUDGET)
    report = gated.fuzz("tagged", options)
    assert reported(report) == SMALLEST
    assert report.notes == []


def test_without_a_shrink_budget_the_coverage_phases_input_is_reported(gated: Engine) -> None:
    report = gated.fuzz("tagged", FuzzOptions(shrink_budget=0.0))
    fullest = {"n": -1, "tag": "", **{key: "" for key in "abcdefgh"}}
    assert reported(report)["accepted_invalid minimum"] == fullest


def test_check_prints_the_shrunk_input_at_default_settings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "check", "servers.engine_planted:gated", "--quiet")
    assert code == 1, err
    assert """  input:     {"n":-1,"tag":""} (invalid input)""" in out.splitlines()
    assert """  input:     {"n":10,"tag":""} (invalid input)""" in out.splitlines()


BOUNDED = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 3},
        "ratio": {"type": "number"},
        "name": {"type": "string", "minLength": 2},
        "items": {"type": "array", "items": {"type": "integer"}},
        "flag": {"type": "boolean"},
        "inner": {"type": "object", "properties": {"x": {"type": "integer"}}},
    },
    "required": ["count", "name"],
}


def shrink(value: dict[str, Any], fails: Any) -> tuple[Any, list[Any]]:
    """``shrunk`` on a valid input of ``BOUNDED``; also every input it sent."""
    validator = SchemaValidator(BOUNDED)
    sent: list[Any] = []

    def sending(candidate: Any) -> bool:
        assert validator.is_valid(candidate)  # nothing the validator refuses is sent
        sent.append(candidate)
        return bool(fails(candidate))

    return shrunk(value, validator.is_valid, sending), sent


FULL = {
    "count": 123_456_789_012_345_678_901_234,
    "ratio": -7.25,
    "name": "some long name",
    "items": [5, 8, 13],
    "flag": True,
    "inner": {"x": 4},
}


def test_each_place_shrinks_to_the_smallest_value_its_schema_allows() -> None:
    smallest, sent = shrink(FULL, lambda value: True)
    assert smallest == {"count": 3, "name": "so"}
    assert len(sent) < 10  # the edges are found by the validator, not by calls


def test_what_the_bug_needs_is_kept_and_the_rest_shrinks() -> None:
    def fails(value: dict[str, Any]) -> bool:
        return value["count"] >= 1000 and len(value.get("items", ())) >= 2 and "flag" in value

    smallest, sent = shrink(FULL, fails)
    assert smallest == {"count": 1000, "name": "so", "items": [0, 0], "flag": False}
    assert len(sent) < 200  # bisection: about log2 of the number, not the number


def test_a_fraction_is_dropped_before_a_number_moves_toward_zero() -> None:
    smallest, _ = shrink(FULL, lambda value: value.get("ratio", 0) < -2)
    assert smallest == {"count": 3, "name": "so", "ratio": -3.0}


def test_nothing_smaller_is_nothing_sent() -> None:
    smallest, sent = shrink({"count": 3, "name": "ab"}, lambda value: True)
    assert (smallest, sent) == ({"count": 3, "name": "ab"}, [])
