"""``littleghost check`` at default settings finds every planted bug of the corpus, on every SDK.

One test per corpus server, each in its own ``littleghost check`` process: the two
Python-SDK servers in-process (a ``module:attribute`` target), the FastMCP server
from a venv of its own, once under FastMCP 2.x and once under 3.x (both pin ``mcp<2``;
the ``fastmcp_python`` and ``fastmcp3_python`` fixtures make them in pytest's cache)
and the TypeScript SDK server under node (``npm install`` of ``tests/corpus/ts``,
pinned by its ``package.json``), all three over stdio. Every input is
the default run's; only the hanging tool's wait is cut to ``HANG_TIMEOUT`` (it sleeps a
minute, so it hangs either way). The same run reads the servers' resources,
resource templates and prompts (``check`` does by default), judged alike.
``bench/kill_rate.py`` measures the same corpus at other
settings, and mcp-fuzzer beside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from corpus.judge import item_key, judge, load_manifest, planted, planted_reads, server_target

REPO = Path(__file__).resolve().parents[2]
SERVERS = ("sdk", "lowlevel", "fastmcp", "fastmcp3", "typescript")
HANG_TIMEOUT = 2
"""Seconds ``forecast`` gets before its hang counts as a timeout (the default is 10)."""
SLOW_START_TIMEOUT = 60
"""``--timeout`` for the FastMCP servers: importing fastmcp 2.x alone takes ~10 s on a busy
machine (its tools answer at once, so no call comes near it)."""
RUN_TIMEOUT = 300
"""A run that takes longer than this is broken, not slow."""


@pytest.mark.parametrize("server", SERVERS)
def test_every_planted_bug_is_found_and_nothing_else(
    server: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Each bug tool or read gets a finding of its planted kind and no other; a control none."""
    rows = planted(load_manifest(), server)
    reads = planted_reads(load_manifest(), server)
    options = ["--timeout", str(SLOW_START_TIMEOUT)] if server.startswith("fastmcp") else []
    if any(row["tool"] == "forecast" for row in rows):  # naming an unlisted tool is an error
        options += ["--tool-timeout", f"forecast={HANG_TIMEOUT}"]
    report = _check(server, [*options, *_target(server, request)], tmp_path / "report.json")
    assert {tool["name"] for tool in report["tools"]} == {row["tool"] for row in rows}
    read = [*report["resources"], *report["prompts"]]
    assert {item_key(item) for item in read} == {item_key(row) for row in reads}
    verdict = judge([*rows, *reads], report)
    assert verdict.missed == []
    assert verdict.false_alarms == []


def _target(server: str, request: pytest.FixtureRequest) -> list[str]:
    """``check``'s target arguments for one corpus server."""
    target = server_target(server, request)
    return [target] if isinstance(target, str) else ["--", *target]


def _check(server: str, arguments: list[str], report: Path) -> dict:
    command = [sys.executable, "-m", "littleghost_testing.cli", "check", "--quiet"]
    run = subprocess.run(
        [*command, "--json", str(report), *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert run.returncode == 1, f"{server}: exit {run.returncode}: {run.stderr}"
    return json.loads(report.read_text())
