"""check_toolset: discovery, every discovered tool, and cleanup."""

from __future__ import annotations

import pytest
from toolset_targets import (
    CrashingDeskTools,
    HelpDeskTools,
    RefusingHelpDeskTools,
    UnreachableTools,
)

from littleghost_testing.contracts import TOOLSET_CHECKS, assert_toolset_contract, check_toolset


def test_a_well_behaved_toolset_passes_every_check(anyio_backend: str) -> None:
    report = check_toolset(HelpDeskTools, backend=anyio_backend, max_examples=10)
    assert report.passed, report.explain()
    titles = [check.title for check in report.checks]
    assert titles[:3] == ["discovery", "discovery_cancellation", "discovery_deadline"]
    assert "valid_inputs[lookup]" in titles and "invalid_inputs[count]" in titles
    assert titles[-1] == "cleanup"
    assert report["discovery"].detail == "2 tools: lookup, count"
    per_tool = [name for name in TOOLSET_CHECKS if name not in titles]
    assert len(per_tool) == 7  # each ran once per tool, titled by the tool
    assert len(report.checks) == 3 + 2 * 7 + 1


def test_a_toolset_that_cannot_connect_fails_discovery() -> None:
    report = check_toolset(UnreachableTools)
    assert [check.name for check in report.checks] == ["discovery"]
    check = report["discovery"]
    assert not check.passed
    assert check.observed is not None and check.observed.startswith("TransportError(")


def test_assert_toolset_contract_passes_a_tool_error_from_map_result() -> None:
    report = assert_toolset_contract(
        RefusingHelpDeskTools, checks=["valid_inputs", "error_sanitization"], max_examples=5
    )
    assert [check.title for check in report.checks] == [
        "valid_inputs[lookup]",
        "error_sanitization[lookup]",
        "valid_inputs[count]",
        "error_sanitization[count]",
    ]


def test_examples_per_tool_are_tried_first() -> None:
    report = check_toolset(
        HelpDeskTools,
        checks=["valid_inputs"],
        examples={"count": [{"text": "three little words"}]},
        max_examples=1,
    )
    assert report.passed


def test_a_toolset_failure_raises_with_the_explanation() -> None:
    with pytest.raises(AssertionError, match="UnreachableTools broke 1 of 1 contract checks"):
        assert_toolset_contract(UnreachableTools)


def test_a_server_crash_on_a_valid_input_fails_valid_inputs() -> None:
    report = check_toolset(CrashingDeskTools, checks=["valid_inputs"], max_examples=10)
    check = report["valid_inputs[pages]"]
    assert not check.passed
    assert check.input == {"total": 0, "parts": 0}
    assert check.observed == (
        "an error result 'Error executing tool pages' for the MCP Python SDK's MCPServer "
        "(an unhandled exception): 'Error executing tool pages'"
    )
