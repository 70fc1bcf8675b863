"""The coverage phase, invalid inputs broken from working ones, prefix-stable draws, budgets."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import mcp
import pytest
from hypothesis import strategies as st
from servers import engine_planted
from servers.engine_harness import Engine, connected

from littleghost._validation import SchemaValidator
from littleghost_testing._engine import FuzzOptions, ToolReport, _tool_run
from littleghost_testing._engine._calls import Probe
from littleghost_testing._engine._coverage import SchemaParts, base_inputs, valid_coverage
from littleghost_testing._engine._draws import Budget, OutOfBudget, draw, plain
from littleghost_testing._engine._mutations import broken_inputs, invalid_from
from littleghost_testing.strategies import from_schema
from littleghost_testing.strategies._coverage import coverage_of
from littleghost_testing.strategies._invalid import InvalidInput

BOUNDS = {
    "type": "object",
    "properties": {
        "days": {"type": "integer", "minimum": 1, "maximum": 365},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "page": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
    },
    "required": ["days"],
}
SHAPES = {
    "type": "object",
    "properties": {
        "mode": {"enum": ["fast", "slow", "auto"]},
        "verbose": {"type": "boolean"},
        "name": {"type": ["string", "null"], "minLength": 1, "maxLength": 5},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "pick": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^x+$"}]},
        "nested": {"$ref": "#/$defs/Nested"},
    },
    "required": ["mode"],
    "additionalProperties": False,
    "$defs": {
        "Nested": {
            "type": "object",
            "properties": {"level": {"type": "integer", "minimum": 0, "maximum": 3}},
            "required": ["level"],
        }
    },
}
SCHEMAS = [BOUNDS, SHAPES]


def coverage(schema: dict[str, Any]) -> tuple[list[Any], list[Probe]]:
    validator, parts = SchemaValidator(schema), SchemaParts(schema, Budget(30.0))
    bases = base_inputs(parts, validator)
    valid = list(valid_coverage(parts, validator, bases))
    invalid = [probe for base in bases for probe in broken_inputs(parts, validator, base)]
    return valid, invalid


def values_at(inputs: list[Any], key: str) -> list[Any]:
    return [value[key] for value in inputs if key in value]


def test_coverage_inputs_reach_every_bound_at_and_past_its_limit() -> None:
    valid, invalid = coverage(BOUNDS)
    assert valid[:2] == [{"days": 1}, {"days": 1, "ratio": 5e-324, "page": 1}]
    assert {1, 365} <= set(values_at(valid, "days"))
    assert {1, 9} <= set(values_at(valid, "page"))  # next to each exclusive bound
    assert {5e-324, 0.9999999999999999} <= set(values_at(valid, "ratio"))
    broken = {
        (probe.keyword, probe.path, json.dumps(probe.input.get(probe.path[2:])))
        for probe in invalid
    }
    assert {
        ("minimum", "$.days", "0"),
        ("maximum", "$.days", "366"),
        ("exclusiveMinimum", "$.page", "0"),
        ("exclusiveMaximum", "$.page", "10"),
        ("exclusiveMinimum", "$.ratio", "0"),
        ("exclusiveMaximum", "$.ratio", "1"),
        ("type", "$.days", '"1"'),  # the text of a valid number
        ("required", "$.days", "null"),
    } <= broken


def test_coverage_inputs_reach_each_enum_value_branch_and_optional_key() -> None:
    valid, _ = coverage(SHAPES)
    assert valid[0] == {"mode": "fast"}  # every optional key absent
    assert set(valid[1]) == set(SHAPES["properties"])  # every optional key present
    assert set(values_at(valid, "mode")) == {"fast", "slow", "auto"}
    assert {True, False} <= set(values_at(valid, "verbose"))
    assert None in values_at(valid, "name") and "aaaaa" in values_at(valid, "name")
    assert [] in values_at(valid, "tags") and 3 in map(len, values_at(valid, "tags"))
    picks = values_at(valid, "pick")
    assert any(isinstance(pick, int) for pick in picks) and "x" in picks
    assert {0, 3} <= {nested["level"] for nested in values_at(valid, "nested")}


@pytest.mark.parametrize("schema", SCHEMAS)
def test_coverage_inputs_are_valid_and_invalid_ones_break_exactly_their_keyword(
    schema: dict[str, Any],
) -> None:
    validator = SchemaValidator(schema)
    valid, invalid = coverage(schema)
    assert all(validator.violations(value) == [] for value in valid)
    for probe in invalid:
        [found] = validator.violations(probe.input)
        assert (found.keyword, found.path) == (probe.keyword, probe.path)
    # Every shape and every constraint the strategies count is reached (MCP sends objects only).
    records = [
        InvalidInput(probe.input, probe.keyword or "", probe.path or "$") for probe in invalid
    ]
    reached = coverage_of(schema, valid, records)
    assert reached.missed == [("break", "type", "$")]


def test_the_fullest_input_adds_optional_keys_at_their_defaults() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "max_cells": {"type": "integer", "default": 2000},
            "mode": {"enum": ["values", "formulas"], "default": "formulas"},
            "range": {"type": ["string", "null"], "default": None},  # null: the key's absence
            "limit": {"type": "integer", "maximum": 5, "default": 50},  # not allowed: ignored
        },
        "required": ["path"],
    }
    parts = SchemaParts(schema, Budget(30.0))
    fullest = parts.fullest({"path": "a.xlsx"})
    assert fullest["max_cells"] == 2000 and fullest["mode"] == "formulas"
    assert fullest["range"] is not None and fullest["limit"] != 50
    broken = [
        probe.input["max_cells"] for probe in broken_inputs(parts, SchemaValidator(schema), fullest)
    ]
    assert "2000" in broken  # a lax server's hidden max_cells >= 1 no longer refuses it first


def test_coverage_confuses_types_the_way_lax_servers_accept() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "on": {"type": "boolean"}},
        "required": ["n", "on"],
    }
    _, invalid = coverage(schema)
    sent = [probe.input for probe in invalid if probe.keyword == "type"]
    for confused in ({"n": "0"}, {"n": True}, {"n": [0]}, {"on": "false"}, {"on": 0}):
        assert any(value.items() >= confused.items() for value in sent), confused


@pytest.fixture
def planted(anyio_backend: str) -> Iterator[Engine]:
    with connected(anyio_backend, lambda: mcp.Client(engine_planted.planted)) as engine:
        yield engine


def kinds(report: ToolReport) -> dict[str, int]:
    return {group.example.kind: group.count for group in report.groups}


QUICK = FuzzOptions(examples=5, timeout=0.5, shrink_budget=0.0)


def test_a_hang_on_the_schemas_maximum_is_found_at_five_examples(planted: Engine) -> None:
    report = planted.fuzz("forecast", QUICK)
    [group] = report.groups
    assert (group.example.kind, group.example.input) == ("timeout", {"days": 365})


def test_a_range_bug_behind_an_optional_key_is_found_at_five_examples(planted: Engine) -> None:
    report = planted.fuzz("usage", QUICK)
    [group] = report.groups
    assert group.example.kind == "timeout"
    assert group.example.input["days"] > 300 and group.example.input["detailed"] is not None


def test_text_accepted_for_an_integer_is_accepted_invalid(planted: Engine) -> None:
    report = planted.fuzz("count", QUICK)
    accepted = [
        group.example for group in report.groups if group.example.kind == "accepted_invalid"
    ]
    assert any(example.input == {"limit": "1"} for example in accepted)


def test_invalid_inputs_broken_from_working_inputs_reach_the_servers_own_checks(
    planted: Engine,
) -> None:
    without = planted.fuzz("log", QUICK)
    assert kinds(without) == {"unexercised": 1}  # every input names an unknown repository
    given = FuzzOptions(
        examples=5, timeout=0.5, shrink_budget=0.0, inputs={"log": [{"repo": "/srv/repo"}]}
    )
    report = planted.fuzz("log", given)
    [group] = report.groups
    assert (group.example.kind, group.example.keyword) == ("accepted_invalid", "type")
    # max_count added at its default, 10 (the server's own choice), then sent as text
    assert group.example.input == {"repo": "/srv/repo", "max_count": "10"}


@pytest.fixture
def sent_by_engine(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[tuple[str, str]]]:
    """Every input the engine sends, as it leaves (the calls still go to the server)."""
    sent: list[tuple[str, str]] = []
    original = _tool_run.call_once

    async def recording(tool: Any, probe: Probe, **keywords: Any) -> Any:
        sent.append((type(tool).__name__, _tool_run._key(probe)[1]))
        return await original(tool, probe, **keywords)

    monkeypatch.setattr(_tool_run, "call_once", recording)

    def taken() -> list[tuple[str, str]]:
        out = list(sent)
        sent.clear()
        return out

    return taken


@pytest.mark.parametrize("tool", ["pick", "window"])
def test_more_examples_send_every_input_fewer_examples_send(
    anyio_backend: str, sent_by_engine: Callable[[], list[tuple[str, str]]], tool: str
) -> None:
    with connected(anyio_backend, lambda: mcp.Client(engine_planted.correct)) as engine:
        runs = []
        for examples in (5, 10, 20):
            engine.fuzz(tool, FuzzOptions(examples=examples, shrink_budget=0.0))
            runs.append(sent_by_engine())
    five, ten, twenty = runs
    assert len(five) < len(ten) < len(twenty)
    assert set(five) <= set(ten) <= set(twenty)


def test_a_draw_ends_at_its_budget() -> None:
    def slow(value: int) -> int:
        time.sleep(0.02)
        return value

    budget = Budget(0.3)
    started = time.monotonic()
    with pytest.raises(OutOfBudget):  # 20 s of drawing without the budget
        draw(st.lists(st.integers().map(slow), min_size=1000), budget, seed=1)
    assert time.monotonic() - started < 5.0  # loaded CI runners stretch every step
    assert budget.left <= 0
    with pytest.raises(OutOfBudget):  # spent: the next draw does not start
        draw(st.integers(), budget, seed=2)


ROW_ITEM = {"type": "string", "minLength": 20, "maxLength": 20}


def test_a_first_draw_ends_at_its_budget_while_the_strategy_draws_its_seeds() -> None:
    # 40 enums keep new shapes coming: the seeds take up to 192 draws of 100 rows
    # apart from the test, 15 s on the first draw whatever its budget (issue 19, point 2).
    schema = {
        "type": "object",
        "properties": {f"k{i}": {"enum": list(range(8))} for i in range(40)}
        | {"rows": {"type": "array", "minItems": 100, "maxItems": 100, "items": ROW_ITEM}},
        "required": ["rows"],
    }
    strategy = from_schema(schema)  # its seeds are drawn on its first draw
    started = time.monotonic()
    with pytest.raises(OutOfBudget):
        draw(strategy, Budget(0.01), seed=None)
    assert time.monotonic() - started < 3.0
    assert draw(plain(strategy), Budget(60), seed=1) is not None  # the schema itself is fine


def test_max_time_holds_while_inputs_are_generated(planted: Engine) -> None:
    started = time.monotonic()
    report = planted.fuzz("bulk", QUICK, deadline=started + 0.01)
    assert time.monotonic() - started < 8.0  # unbounded, each random draw takes seconds
    assert report.notes == ["stopped early: out of time"]


def test_a_tool_whose_inputs_take_too_long_gets_a_note(
    planted: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 3000 rows of 20 characters are 60 000 choices: far more than 10 ms on any machine
    # (with 0.5 s a fast runner drew them all in time and the note never came).
    monkeypatch.setattr(_tool_run, "GENERATION_BUDGET", 0.01)
    started = time.monotonic()
    report = planted.fuzz("bulk", QUICK)
    assert time.monotonic() - started < 8.0
    assert "input generation stopped: over its 0.01 s budget per tool" in report.notes


def test_the_contract_checks_break_the_examples_that_work_first() -> None:
    schema = {
        "type": "object",
        "properties": {
            "repo": {"type": "string"},
            "max_count": {"type": "integer", "minimum": 1, "default": 10},
        },
        "required": ["repo"],
    }
    broken = invalid_from(schema, [{"repo": "/srv/repo"}, {"max_count": 2}])
    # Only valid examples are broken, one place at a time: elsewhere the repository stays.
    assert all(record.value["repo"] == "/srv/repo" for record in broken if record.path != "$.repo")
    assert ({"repo": "/srv/repo", "max_count": "10"}, "type") in [  # added at its default
        (record.value, record.keyword) for record in broken
    ]
    assert ({}, "required") in [(record.value, record.keyword) for record in broken]
