"""The contract checks on a stdio server with a planted bug per tool: each verdict its own.

One ``check_toolset`` run over ``planted_stdio_server.py`` (a fresh Hypothesis
database, the docs' small budget) pins each bug on its tool in the words of
``check``'s finding kinds, and passes the two correct tools listed after the
one that kills the server. The boundary bug is also found at a budget of one
example, with every seed: the coverage inputs come before any random one.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings
from planted_stdio_server import INVISIBLE_STYLE
from toolset_targets import BoundaryDeskTools, OnceStdioTools, PlantedStdioTools

from littleghost_testing.contracts import Report, check_toolset

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def report(fresh_database: None) -> Report:
    return check_toolset(
        PlantedStdioTools, checks=["valid_inputs", "cancellation"], max_examples=5, seed=0
    )


@pytest.fixture(scope="module")
def fresh_database() -> Iterator[None]:
    """No example database: what a first run on a new machine sees."""
    previous = settings.get_current_profile_name()
    settings.register_profile("contracts-fresh", database=None)
    settings.load_profile("contracts-fresh")
    yield
    settings.load_profile(previous)


def test_a_crash_at_the_schema_maximum_fails_valid_inputs(report: Report) -> None:
    check = report["valid_inputs[list_books]"]
    assert (check.passed, check.input) == (False, {"query": "", "limit": 50})
    assert check.observed is not None and "JSON-RPC error -32603" in check.observed


def test_a_result_breaking_its_own_output_schema_fails_valid_inputs(report: Report) -> None:
    check = report["valid_inputs[stock_level]"]
    assert not check.passed
    assert check.observed is not None
    assert check.observed.endswith("a result that breaks the tool's own outputSchema")
    assert "OutputSchemaError(" in check.observed


def test_a_tool_that_kills_the_server_is_told_as_a_dead_server(report: Report) -> None:
    valid = report["valid_inputs[reload_config]"]
    assert not valid.passed
    assert valid.observed is not None
    assert valid.observed.endswith("the connection closed during the call (the server died)")
    stopped = report["cancellation[reload_config]"]
    assert (stopped.passed, stopped.detail) == (False, "the server died")
    assert stopped.observed is not None and "still running" not in stopped.observed


def test_the_tools_after_the_server_killer_get_their_own_verdict(report: Report) -> None:
    for tool in ("format_label", "echo_label", "word_count"):
        assert report[f"cancellation[{tool}]"].passed, report.explain()
    assert report["valid_inputs[echo_label]"].passed, report.explain()
    assert report["valid_inputs[word_count]"].passed, report.explain()
    failed = {check.title for check in report.failures}
    assert failed == {
        "valid_inputs[list_books]",
        "valid_inputs[stock_level]",
        "valid_inputs[reload_config]",
        "cancellation[reload_config]",
        "valid_inputs[format_label]",
    }


def test_invisible_characters_are_escaped_in_the_explanation(report: Report) -> None:
    check = report["valid_inputs[format_label]"]
    assert check.input == {"label": "", "style": INVISIBLE_STYLE}
    explanation = report.explain()
    assert "\u202e" not in explanation and "\u200b" not in explanation
    assert '  input:    {"label": "", "style": "mirrored\\u202e\\u200b"}' in explanation


def test_a_server_that_cannot_be_started_again_fails_the_checks_left(
    fresh_database: None,
) -> None:
    report = check_toolset(OnceStdioTools, checks=["valid_inputs"], max_examples=1, seed=0)
    assert not report["valid_inputs[reload_config]"].passed  # it killed the server
    for tool in ("format_label", "echo_label", "word_count"):
        check = report[f"valid_inputs[{tool}]"]
        assert (check.passed, check.detail) == (False, "the server could not be reached again")
        assert check.observed is not None
        assert check.observed.startswith("discovery failed: ConnectionClosed(")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_boundary_bug_is_found_on_every_run_at_any_budget(
    seed: int, fresh_database: None
) -> None:
    report = check_toolset(BoundaryDeskTools, checks=["valid_inputs"], max_examples=1, seed=seed)
    check = report["valid_inputs[list_books]"]
    assert (check.passed, check.input) == (False, {"query": "", "limit": 50})
