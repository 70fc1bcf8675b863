"""The bench scripts still run: each imports what it measures (a rename there broke one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "bench").glob("*.py"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_every_bench_script_is_covered() -> None:
    assert {script.name for script in SCRIPTS} >= {
        "check.py",
        "execute.py",
        "kill_rate.py",
        "mcp_overhead.py",
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda script: script.name)
def test_a_bench_script_imports_what_it_measures(script: Path) -> None:
    finished = run(str(script.relative_to(REPO)), "--help")
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.startswith("usage:")


def test_the_check_bench_runs_end_to_end() -> None:
    """It patches the engine's call function: the smallest run proves the seam is still there."""
    finished = run("bench/check.py", "--examples", "2", "--rounds", "1")
    assert finished.returncode == 0, finished.stderr
    assert "whole run:  check" in finished.stdout
