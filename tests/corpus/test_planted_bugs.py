"""``littleghost check`` at default settings finds every planted bug of the Python-SDK corpus.

Each server runs in-process (a ``module:attribute`` target) in its own
``littleghost check`` process, both at once. Every input is the default run's;
only the hanging tool's wait is cut to ``HANG_TIMEOUT`` (it sleeps a minute,
so it hangs either way). The FastMCP and TypeScript servers need their own
installs and are measured by ``bench/kill_rate.py`` instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from corpus.judge import CONTROL, judge, load_manifest, planted

REPO = Path(__file__).resolve().parents[2]
SERVERS = ("sdk", "lowlevel")
HANG_TIMEOUT = 2
"""Seconds ``forecast`` gets before its hang counts as a timeout (the default is 10)."""
RUN_TIMEOUT = 300
"""A run that takes longer than this is broken, not slow."""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    manifest = load_manifest()
    folder = tmp_path_factory.mktemp("corpus")
    runs = {}
    for server in SERVERS:
        command = [
            sys.executable,
            "-m",
            "littleghost_testing.cli",
            "check",
            manifest["servers"][server]["module"],
            "--quiet",
            *_hang_timeout(manifest, server),
            "--json",
            str(folder / f"{server}.json"),
        ]
        runs[server] = subprocess.Popen(
            command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    for server, run in runs.items():
        _, stderr = run.communicate(timeout=RUN_TIMEOUT)
        assert run.returncode == 1, f"{server}: exit {run.returncode}: {stderr}"
    return {server: json.loads((folder / f"{server}.json").read_text()) for server in SERVERS}


def _hang_timeout(manifest: dict, server: str) -> list[str]:
    """``--tool-timeout`` for the hanging tool, on the server that has it (naming an unlisted
    tool is a usage error)."""
    if not any(row["tool"] == "forecast" for row in planted(manifest, server)):
        return []
    return ["--tool-timeout", f"forecast={HANG_TIMEOUT}"]


@pytest.mark.parametrize("server", SERVERS)
def test_every_planted_bug_is_found_with_its_kind(server: str, reports: dict[str, dict]) -> None:
    rows = planted(load_manifest(), server)
    verdict = judge([row for row in rows if row["kind"] != CONTROL], reports[server])
    assert verdict.missed == []


@pytest.mark.parametrize("server", SERVERS)
def test_no_finding_on_a_control_tool(server: str, reports: dict[str, dict]) -> None:
    rows = planted(load_manifest(), server)
    verdict = judge([row for row in rows if row["kind"] == CONTROL], reports[server])
    assert verdict.false_alarms == []


@pytest.mark.parametrize("server", SERVERS)
def test_the_manifest_lists_every_tool_of_the_server(server: str, reports: dict[str, dict]) -> None:
    listed = {row["tool"] for row in planted(load_manifest(), server)}
    assert {tool["name"] for tool in reports[server]["tools"]} == listed
