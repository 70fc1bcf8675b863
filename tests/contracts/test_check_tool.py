"""check_tool on well-behaved tools and on tools that each break one rule."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from contract_tools import (
    DeadlineBlindTool,
    DividingTool,
    FailingCloseTool,
    LeakyTool,
    LookupTool,
    MidLeakyTool,
    MisrenderingTool,
    RejectingTool,
    SlowTool,
    StubbornTool,
    SyncLookupTool,
    ThawedSchemaTool,
    UncheckedTool,
)
from hypothesis import Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

import littleghost as lg
from littleghost_testing._engine import coverage_inputs
from littleghost_testing.contracts import (
    TOOL_CHECKS,
    assert_tool_contract,
    check_tool,
)

FAST = {"max_examples": 10}


@pytest.mark.parametrize("tool_class", [LookupTool, SyncLookupTool])
def test_a_well_behaved_tool_passes_every_check(
    tool_class: type[lg.Tool], anyio_backend: str
) -> None:
    report = check_tool(tool_class, backend=anyio_backend, **FAST)
    assert report.passed, report.explain()
    assert [check.name for check in report.checks] == list(TOOL_CHECKS)
    assert all(check.passed and check.detail for check in report.checks)
    assert report.explain() == f"{tool_class.tool_name} passed all 8 contract checks"


def failed_only(tool_class: type[lg.Tool], backend: str = "asyncio") -> dict[str, object]:
    report = check_tool(tool_class, backend=backend, **FAST)
    return {check.name: check for check in report.failures}


def test_leaking_an_exception_message_fails_error_sanitization(anyio_backend: str) -> None:
    failures = failed_only(LeakyTool, anyio_backend)
    assert list(failures) == ["valid_inputs", "error_sanitization"]  # it crashes, and leaks
    check = check_tool(LeakyTool, checks=["error_sanitization"], **FAST)["error_sanitization"]
    assert not check.passed
    # Ten inputs reach the tool's own failure (each enum value comes early), shrunk.
    assert check.input == {"article": 1, "locale": "de"}
    assert check.expected == "content 'Tool failed (RuntimeError)'"
    assert check.observed is not None and "(the exception's message leaked)" in check.observed


def test_skipping_validation_fails_invalid_inputs() -> None:
    report = check_tool(UncheckedTool, checks=["invalid_inputs"], **FAST)
    check = report["invalid_inputs"]
    assert not check.passed
    assert check.detail == "an input the schema forbids was not rejected"
    assert check.input is None  # not even an object: the simplest invalid input
    assert check.expected is not None and "names $ (it breaks 'type' there)" in check.expected
    assert check.observed is not None and check.observed.startswith("a success result")


def test_rejecting_valid_input_fails_valid_inputs() -> None:
    check = check_tool(RejectingTool, checks=["valid_inputs"], **FAST)["valid_inputs"]
    assert not check.passed
    assert check.input == {"article": 1}
    assert check.observed == "Invalid tool input: no"


def test_content_that_is_not_the_rendered_value_fails_valid_inputs() -> None:
    check = check_tool(MisrenderingTool, checks=["valid_inputs"], **FAST)["valid_inputs"]
    assert not check.passed
    assert check.expected == "a well-formed ExecutionResult"
    assert check.observed is not None and "success content 'done'" in check.observed


def test_turning_cancellation_into_a_result_fails_cancellation(anyio_backend: str) -> None:
    failures = failed_only(StubbornTool, anyio_backend)
    assert list(failures) == ["cancellation"]
    check = check_tool(StubbornTool, checks=["cancellation"], **FAST)["cancellation"]
    assert check.detail == "CancelledError did not propagate"
    assert check.expected == "CancelledError before call is invoked"
    assert check.observed == "a error result with content 'cancelled'"
    assert check.input == {"article": 1}  # the input the stop probes call with


def test_dropping_the_deadline_fails_deadline(anyio_backend: str) -> None:
    failures = failed_only(DeadlineBlindTool, anyio_backend)
    assert list(failures) == ["deadline"]


def test_a_close_that_raises_fails_cleanup() -> None:
    check = check_tool(FailingCloseTool, checks=["cleanup"])["cleanup"]
    assert not check.passed
    assert check.expected == "close() to succeed"
    assert check.observed is not None and "socket already closed" in check.observed


def test_a_mutable_schema_fails_the_schema_check() -> None:
    check = check_tool(ThawedSchemaTool, checks=["schema"])["schema"]
    assert not check.passed
    assert check.expected == "$ to be frozen (mutation raises TypeError)"


def test_assert_tool_contract_explains_every_failure() -> None:
    with pytest.raises(AssertionError) as raised:
        assert_tool_contract(LeakyTool, **FAST)
    message = str(raised.value)
    assert message.startswith("leaky_tool broke 2 of 8 contract checks:")
    assert (
        "FAILED error_sanitization: an error result shows more than the contract allows" in message
    )
    assert '  input:    {"article": 1, "locale": "de"}' in message
    assert "  expected: content 'Tool failed (RuntimeError)'" in message
    assert assert_tool_contract(LookupTool, **FAST).passed


def test_an_unhandled_exception_on_a_valid_input_fails_valid_inputs(anyio_backend: str) -> None:
    failures = failed_only(DividingTool, anyio_backend)
    assert list(failures) == ["valid_inputs"]  # "Tool failed (ZeroDivisionError)" is sanitized
    check = check_tool(DividingTool, checks=["valid_inputs"], **FAST)["valid_inputs"]
    assert check.input == {"article": 1}
    assert check.expected == "a result, or a deliberate error (a ToolError): the input is valid"
    assert check.observed == (
        "an error result 'Tool failed (ZeroDivisionError)' for "
        "ZeroDivisionError('integer division or modulo by zero'), which the tool did not handle"
    )


def test_a_deliberate_tool_error_on_a_valid_input_is_fine() -> None:
    class Refusing(LookupTool):
        async def call(self, input: object) -> object:
            raise lg.ToolError("no such article")

    assert check_tool(Refusing, checks=["valid_inputs"], **FAST).passed


def test_the_time_budget_ends_each_search_and_says_how_many_inputs_ran() -> None:
    started = time.monotonic()
    report = check_tool(
        SlowTool,
        checks=["valid_inputs", "invalid_inputs"],
        max_examples=1000,
        time_budget=0.5,
    )
    elapsed = time.monotonic() - started
    assert report.passed, report.explain()
    valid = report["valid_inputs"].detail
    ran = int(valid.split()[0])
    assert 1 <= ran <= 0.5 / 0.05 + 1  # each call sleeps 0.05 s; the first always runs
    assert valid == (
        f"{ran} generated inputs (the 0.5 s time_budget ended the search): "
        "well-formed results, no unhandled exception"
    )
    assert elapsed < 2 * 0.5 + 3.0  # both searches, plus the portal and Hypothesis's setup
    # Without a bound every example runs: invalid inputs never reach the slow call.
    unbounded = check_tool(SlowTool, checks=["invalid_inputs"], max_examples=20, time_budget=None)
    assert unbounded["invalid_inputs"].detail.startswith("20 invalid inputs: ")


def test_given_examples_are_tried_first() -> None:
    check = check_tool(
        LeakyTool, checks=["error_sanitization"], examples=[{"article": 42, "locale": "de"}]
    )
    assert check["error_sanitization"].input == {"article": 42, "locale": "de"}


def test_a_seed_gives_the_same_report_twice() -> None:
    first = check_tool(LeakyTool, seed=7, checks=["error_sanitization"], **FAST)
    second = check_tool(LeakyTool, seed=7, checks=["error_sanitization"], **FAST)
    assert first == second


def test_the_binding_reaches_every_instance() -> None:
    seen: list[lg.Binding] = []

    class BoundTool(LookupTool):
        async def call(self, input: object) -> object:
            seen.append(self.binding)
            return "ok"

    binding = lg.Binding(workspace="/tmp/workspace")
    assert check_tool(BoundTool, binding=binding, checks=["valid_inputs"], **FAST).passed
    assert seen and all(bound is binding for bound in seen)


def test_unknown_checks_and_non_tools_are_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown checks \['speed'\]"):
        check_tool(LookupTool, checks=["speed"])
    with pytest.raises(TypeError, match="needs a Tool subclass"):
        check_tool(object)  # type: ignore[arg-type]


@pytest.fixture
def profile(tmp_path: Path) -> Iterator[Callable[..., None]]:
    """Load a Hypothesis profile for one test, then put the previous one back."""
    previous = settings.get_current_profile_name()

    def load(**options: object) -> None:
        settings.register_profile("littleghost-contract-test", **options)  # type: ignore[arg-type]
        settings.load_profile("littleghost-contract-test")

    yield load
    settings.load_profile(previous)


def test_the_profile_database_replays_a_failure_found_before(
    profile: Callable[..., None], tmp_path: Path
) -> None:
    database = DirectoryBasedExampleDatabase(tmp_path / "examples")
    profile(database=database, max_examples=100)
    first = check_tool(MidLeakyTool, checks=["error_sanitization"])["error_sanitization"]
    assert first.input == {"article": 600}  # at no edge of the schema: a random draw, shrunk
    profile(database=database, phases=[Phase.reuse])  # only what the database holds
    again = check_tool(MidLeakyTool, checks=["error_sanitization"])["error_sanitization"]
    assert (again.passed, again.input) == (False, {"article": 600})
    profile(database=None, phases=[Phase.reuse])  # nothing to replay, nothing generated...
    report = check_tool(MidLeakyTool, checks=["valid_inputs", "error_sanitization"])
    assert report["valid_inputs"].passed
    check = report["error_sanitization"]  # ...but the injected failures still run
    assert check.observed is not None and check.observed.endswith("from an injected RuntimeError")


def test_an_explicit_budget_wins_over_the_profile(profile: Callable[..., None]) -> None:
    calls: list[object] = []

    class Counted(LookupTool):
        async def call(self, input: object) -> object:
            calls.append(input)
            return "ok"

    first = len(coverage_inputs(Counted.input_schema))  # every budget runs these first
    profile(max_examples=4, database=None)
    check_tool(Counted, checks=["valid_inputs"])
    assert len(calls) == first + 4
    calls.clear()
    check_tool(Counted, checks=["valid_inputs"], max_examples=9)
    assert len(calls) == first + 9
