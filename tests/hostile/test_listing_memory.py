"""Resource, template and prompt listings bounded in total (issue 30, point 2).

The hostile server (``servers/listings.py``) answers 99 pages of one item each,
every item with a 15 MiB description: each page is within ``max_result_bytes``,
their sum is 1.5 GB. Before the bound, ``lock`` reached 3.07 GB and ended in a
``MemoryError`` traceback (exit 1) and ``check`` 1.6 GB. Each command runs in a
child process under ``MEMORY_MB`` of address space and must end as the CLI
promises: one line and exit 2 for ``lock``/``diff``/``lint``, a finding for ``check``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .sandbox import run_limited

MEMORY_MB = 400  # the interpreter, the CLI's imports and one 15 MiB page take about 160
PAGES, DESCRIPTION = 99, 15 << 20
METHODS = {
    "resources": "resources/list",
    "templates": "resources/templates/list",
    "prompts": "prompts/list",
}

CLI = """
import sys

from littleghost_testing.cli import main

sys.exit(main({argv!r}))
"""


def listing_server(kind: str, pages: int = PAGES, size: int = DESCRIPTION) -> list[str]:
    return [
        "--",
        sys.executable,
        "-m",
        "tests.hostile.servers.listings",
        kind,
        str(pages),
        str(size),
    ]


def limited(*argv: str) -> subprocess.CompletedProcess[str]:
    """``littleghost ARGV`` in a child process under ``MEMORY_MB`` of address space."""
    return run_limited(CLI.format(argv=list(argv)), memory_mb=MEMORY_MB, seconds=60)


def bound_line(kind: str) -> re.Pattern[str]:
    return re.compile(
        r"littleghost: error: cannot list the catalog of .*: MCP server exceeded "
        rf"max_catalog_bytes \(10485760\): {METHODS[kind]} listing of (\d+) bytes"
    )


@pytest.mark.parametrize("kind", list(METHODS))
def test_lock_diff_and_lint_refuse_a_listing_too_large_in_one_line(
    kind: str, tmp_path: Path
) -> None:
    small = tmp_path / "small.lock"
    control = limited("lock", "-o", str(small), *listing_server(kind, 3, 1024))
    assert control.returncode == 0, control.stderr[-2000:]
    runs = {
        "lock": limited("lock", "-o", str(tmp_path / "a.lock"), *listing_server(kind)),
        "diff": limited("diff", "--lock", str(small), *listing_server(kind)),
        "lint": limited("lint", *listing_server(kind)),
    }
    for command, completed in runs.items():
        assert (command, completed.returncode, completed.stdout) == (command, 2, "")
        [line] = completed.stderr.splitlines()
        matched = bound_line(kind).fullmatch(line)
        assert matched is not None, line
        assert DESCRIPTION < int(matched.group(1)) < DESCRIPTION + 1024  # the first page
    assert not (tmp_path / "a.lock").exists()


@pytest.mark.parametrize("kind", list(METHODS))
def test_check_reports_a_listing_too_large_as_a_finding(kind: str, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    completed = limited("check", "-q", "--json", str(report), *listing_server(kind))
    assert completed.returncode == 1, completed.stderr[-2000:]
    written = json.loads(report.read_text())
    section = written["prompts" if kind == "prompts" else "resources"]
    [listing] = section
    assert listing["name"] == f"({METHODS[kind]})"
    [finding] = listing["findings"]
    assert finding["kind"] == "malformed_catalog"
    assert f"max_catalog_bytes (10485760): {METHODS[kind]} listing of" in finding["observed"]


@pytest.mark.parametrize("kind", list(METHODS))
def test_control_a_long_listing_of_small_items_is_listed_whole(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "long.lock"
    completed = limited("lock", "-o", str(path), *listing_server(kind, PAGES, 1024))
    assert (completed.returncode, completed.stderr) == (0, "")
    noun = {"resources": "resources", "templates": "resource templates", "prompts": "prompts"}
    assert f"{PAGES} {noun[kind]}" in completed.stdout
