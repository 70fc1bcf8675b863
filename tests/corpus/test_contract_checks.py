"""The contract checks on the planted-bug corpus: every bug in their reach found, nothing else.

What ``check_toolset`` runs for a ``ToolsetContract``'s ``test_valid_inputs`` and
``test_error_sanitization``, at the small budget the docs use, with a fresh
Hypothesis database and several seeds, on every corpus SDK: the two Python-SDK
servers in process, the TypeScript, FastMCP 2.x and 3.x servers over stdio (as
tests/corpus/test_planted_bugs.py runs them). The checks call only through the
toolset's own validation, so a server that takes what its schema forbids
(``accepted_invalid``, ``ignored_unknown_property``) or a success that reads as an
error (``error_as_success``) is ``littleghost check``'s to find: those rows must
pass here, as the controls must. So must a refusal FastMCP words as a crash
(``schema_looser_than_tool``, a warning in ``check``): the checks read an error
text with ``check``'s own ``unhandled_exception``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest
from hypothesis import settings

import littleghost as lg
from corpus.judge import load_manifest, planted, server_target
from littleghost.mcp import Toolset, client
from littleghost_testing.contracts import Report, check_toolset

REPO = Path(__file__).resolve().parents[2]
SEEDS = (0, 1, 2)
BUDGET = 5
"""``max_examples``, as small as the docs' examples."""
HANG_TIMEOUT = 2.0
"""``call_timeout`` for the corpus: ``forecast`` hangs a minute past ``days`` 300."""
CHECK_OF_KIND = {
    "unhandled_exception": "valid_inputs",
    "jsonrpc_error": "valid_inputs",
    "output_schema": "valid_inputs",
    "timeout": "valid_inputs",
    "leaked_error_detail": "error_sanitization",
}
"""The contract check that must fail for each kind of planted bug in the checks' reach."""
ALSO = {"timeout": {"error_sanitization"}}
"""Other checks a kind of bug fails as well: a hanging input hangs every check that sends it."""
CHECKS = sorted(set(CHECK_OF_KIND.values()))


@pytest.fixture(scope="module", autouse=True)
def fresh_database() -> Iterator[None]:
    """No example database: every seed's run is a first run."""
    previous = settings.get_current_profile_name()
    settings.register_profile("corpus-contracts", database=None)
    settings.load_profile("corpus-contracts")
    yield
    settings.load_profile(previous)


def _toolset(server: str, request: pytest.FixtureRequest) -> type[Toolset]:
    """A Toolset over one corpus server: in process for the Python SDK's, else over stdio."""
    target: Any = server_target(server, request)
    if isinstance(target, str):
        module, attribute = target.split(":")
        target = getattr(__import__(module, fromlist=[attribute]), attribute)

    class CorpusTools(Toolset):
        discovery_timeout = 120.0  # importing fastmcp 2.x alone takes ~10 s on a busy machine

        def client(self, binding: lg.Binding) -> mcp.Client:
            if isinstance(target, list):
                return client(target, cwd=REPO, stderr=lambda line: None)
            return client(target)

    return CorpusTools


def _judged(server: str, report: Report) -> tuple[list[str], list[str]]:
    """``(missed, false_alarms)`` by the manifest: a bug's check must fail, no other check."""
    missed: list[str] = []
    false_alarms: list[str] = []
    for row in planted(load_manifest(), server):
        tool = row["tool"]
        expected = CHECK_OF_KIND.get(row["kind"])
        for name in CHECKS:
            check = report[f"{name}[{tool}]"]
            if name == expected and check.passed:
                missed.append(f"{tool}: {name}")
            elif name != expected and not check.passed and name not in ALSO.get(row["kind"], ()):
                false_alarms.append(check.explain())
    return missed, false_alarms


@pytest.mark.parametrize("server", ["sdk", "lowlevel", "typescript", "fastmcp", "fastmcp3"])
def test_every_planted_bug_in_reach_is_found_on_every_seed(
    server: str, request: pytest.FixtureRequest
) -> None:
    toolset = _toolset(server, request)
    for seed in SEEDS:
        report = check_toolset(
            toolset, checks=CHECKS, max_examples=BUDGET, seed=seed, call_timeout=HANG_TIMEOUT
        )
        assert report.checks[0].title != "discovery" or report.checks[0].passed, report.explain()
        missed, false_alarms = _judged(server, report)
        assert (seed, missed) == (seed, [])
        assert (seed, false_alarms) == (seed, [])


@pytest.mark.parametrize("server", ["fastmcp", "fastmcp3"])
def test_a_refusal_fastmcp_words_as_a_crash_is_no_crash_but_a_runtime_error_is(
    server: str, request: pytest.FixtureRequest
) -> None:
    """``Error calling tool 'search': max_results must be an integer >= 1`` passes
    ``valid_inputs`` (``check``: ``schema_looser_than_tool``, a warning), where
    ``Error calling tool 'share': integer division or modulo by zero`` fails it
    (``check``: ``unhandled_exception``): each input sent first, on every run."""
    refused = {"query": "books", "max_results": 0}
    crashed = {"total_cents": 100, "people": 0}
    report = check_toolset(
        _toolset(server, request),
        checks=["valid_inputs"],
        examples={"search": [refused], "share": [crashed]},
        max_examples=1,
        call_timeout=HANG_TIMEOUT,
    )
    assert report["valid_inputs[search]"].passed, report["valid_inputs[search]"].explain()
    crash = report["valid_inputs[share]"]
    assert not crash.passed
    assert "FastMCP (an unhandled exception)" in crash.explain()
