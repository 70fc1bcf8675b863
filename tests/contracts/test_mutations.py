"""The mutation suite: for each check a tool broken in exactly that way fails exactly that check.

A check that cannot fail for the bug it exists to catch is worse than none;
these run the whole battery on each mutant and require one failed check,
explained readably.
"""

from __future__ import annotations

import time

import pytest
from contract_tools import (
    DeadlineBlindTool,
    DividingTool,
    MisrenderingTool,
    StubbornTool,
)
from mutants import (
    CancelShieldedTool,
    DeadlineShieldedTool,
    HangingCloseTool,
    HangingTool,
    NoteLeakingTool,
    QuietlyLeakyTool,
    RaisingCloseTool,
    RespecifiedTool,
    SteadyLookupTool,
    ThawedLookupTool,
    TracebackTool,
    VagueRejectionTool,
    WrappingTool,
)
from toolset_targets import (
    CancelBlindTools,
    DeadlineBlindTools,
    HangUpOnCancelTools,
    LeakyDeskTools,
    OrphaningTools,
    SlowDeskTools,
)

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing.contracts import TOOL_CHECKS, check_tool, check_toolset

FAST = {"max_examples": 5, "call_timeout": 2.0}

MUTANTS: list[tuple[type[lg.Tool], str, list[str]]] = [
    (ThawedLookupTool, "schema", ["expected: $ to be frozen (mutation raises TypeError)"]),
    (RespecifiedTool, "specification", ['exactly "name", "description" and "input_schema"']),
    (MisrenderingTool, "valid_inputs", ["observed: success content 'done'"]),
    (
        VagueRejectionTool,
        "invalid_inputs",
        ["an input the schema forbids was not rejected", "content 'Invalid tool input: rejected'"],
    ),
    (DividingTool, "valid_inputs", ["observed: an error result 'Tool failed (ZeroDivisionError)'"]),
    (
        QuietlyLeakyTool,
        "error_sanitization",
        [
            "expected: content 'Tool failed (RuntimeError)'",
            "(the exception's message leaked), from an injected RuntimeError",
        ],
    ),
    (
        TracebackTool,
        "error_sanitization",
        [
            "expected: error content without stack traces or credentials",
            "shows a Python stack trace (Traceback (most recent call last))",
        ],
    ),
    (
        WrappingTool,
        "error_sanitization",
        [
            "expected: no text of the injected RuntimeError in the content",
            "observed: content \"Lookup failed: RuntimeError('database password is canary-",
        ],
    ),
    (
        NoteLeakingTool,
        "error_sanitization",
        ["from an injected __notes__", "expected: content 'Tool failed (RuntimeError)'"],
    ),
    (StubbornTool, "cancellation", ["observed: a error result with content 'cancelled'"]),
    (
        CancelShieldedTool,
        "cancellation",
        [
            "expected: CancelledError within 0.25 s of a stop 0 s into the tool's own call",
            "observed: execute was still running 0.25 s later",
        ],
    ),
    (DeadlineBlindTool, "deadline", ["DeadlineExceededError did not propagate"]),
    (
        DeadlineShieldedTool,
        "deadline",
        [
            "expected: DeadlineExceededError within 0.25 s of a stop 0.01 s into the tool's own",
            "observed: execute was still running 0.25 s later",
        ],
    ),
    (
        RaisingCloseTool,
        "cleanup",
        [
            "expected: close() to succeed",
            "observed: it raised RuntimeError('pool already shut down')",
        ],
    ),
]


def test_the_unbroken_tool_passes_every_check() -> None:
    report = check_tool(SteadyLookupTool, **FAST)
    assert report.passed, report.explain()


@pytest.mark.parametrize(
    ("mutant", "check", "explanation"), MUTANTS, ids=[tool.__name__ for tool, _, _ in MUTANTS]
)
def test_a_mutant_fails_exactly_its_check(
    mutant: type[lg.Tool], check: str, explanation: list[str]
) -> None:
    report = check_tool(mutant, **FAST)
    assert [failed.name for failed in report.failures] == [check], report.explain()
    explained = report.explain()
    assert explained.startswith(f"{mutant.tool_name} broke 1 of {len(TOOL_CHECKS)} contract")
    assert f"FAILED {check}: " in explained
    for fragment in explanation:
        assert fragment in explained


def test_every_check_has_a_mutant() -> None:
    assert {check for _, check, _ in MUTANTS} == set(TOOL_CHECKS)


@pytest.mark.parametrize("mutant", [CancelShieldedTool, RaisingCloseTool])
def test_mutants_fail_on_trio_too(mutant: type[lg.Tool]) -> None:
    expected = dict((tool, check) for tool, check, _ in MUTANTS)[mutant]
    report = check_tool(mutant, backend="trio", **FAST)
    assert [failed.name for failed in report.failures] == [expected]


def test_a_close_that_hangs_fails_cleanup_after_the_call_timeout() -> None:
    report = check_tool(HangingCloseTool, max_examples=5, call_timeout=0.3)
    assert [failed.name for failed in report.failures] == ["cleanup"], report.explain()
    assert report["cleanup"].expected == "close() to finish within 0.3 s"
    assert report["cleanup"].observed == "it was still running"


def test_a_timeout_is_reported_once_and_never_shrunk() -> None:
    HangingTool.hung = 0
    started = time.monotonic()
    check = check_tool(
        HangingTool,
        checks=["valid_inputs"],
        examples=[{"article": 900}],
        max_examples=50,
        call_timeout=0.2,
    )["valid_inputs"]
    assert HangingTool.hung == 1  # no shrinking, no retries
    assert time.monotonic() - started < 5
    assert (check.passed, check.input) == (False, {"article": 900})
    assert (check.expected, check.observed) == (
        "execute to finish within 0.2 s",
        "it was still running",
    )


# -- toolsets: the server is what is broken ------------------------------------------


def test_the_slow_but_sound_toolset_passes() -> None:
    report = check_toolset(SlowDeskTools, **FAST)
    assert report.passed, report.explain()


def test_a_server_that_shows_its_traceback_fails_error_sanitization() -> None:
    report = check_toolset(LeakyDeskTools, **FAST)
    assert [check.title for check in report.failures] == ["error_sanitization[leaky_lookup]"]
    explained = report.explain()
    assert "expected: error content without stack traces or credentials" in explained
    assert "shows a Python stack trace (Traceback (most recent call last))" in explained


def test_a_server_that_hangs_up_on_cancellation_fails_cancellation() -> None:
    report = check_toolset(HangUpOnCancelTools, **FAST)
    check = report["cancellation[slow_lookup]"]
    assert (check.passed, check.detail) == (False, "a stopped call broke the tool")
    assert check.expected == "the tool to keep answering after a stopped call"
    assert check.observed is not None and check.observed.startswith("the next call failed: ")
    # deadline gets a fresh connection (the stop lost the last one) and breaks it alike
    failed = [check.title for check in report.failures]
    assert failed == ["cancellation[slow_lookup]", "deadline[slow_lookup]"], report.explain()


def test_a_toolset_that_orphans_a_process_fails_cleanup() -> None:
    try:
        report = check_toolset(OrphaningTools, **FAST)
    finally:
        for orphan in OrphaningTools.orphans:
            orphan.kill()
            orphan.wait()
    assert [check.title for check in report.failures] == ["cleanup"], report.explain()
    check = report["cleanup"]
    assert check.expected == (
        "every process the toolset started to end once the registry is closed"
    )
    assert check.observed is not None and "processes (1)" in check.observed
    assert "time.sleep(60)" in check.observed


@pytest.mark.parametrize(
    ("mutant", "check", "error"),
    [
        (CancelBlindTools, "discovery_cancellation", "CancelledError"),
        (DeadlineBlindTools, "discovery_deadline", "DeadlineExceededError"),
    ],
)
def test_discovery_that_swallows_a_stop_fails_its_check(
    mutant: type[Toolset], check: str, error: str
) -> None:
    report = check_toolset(mutant, **FAST)
    assert [failed.title for failed in report.failures] == [check], report.explain()
    assert f"FAILED {check}: {error} did not propagate from discovery" in report.explain()
    assert report[check].expected == f"tools(binding) to raise {error}"
    assert report[check].observed == "it discovered 0 tools"
