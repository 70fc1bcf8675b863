"""A test run leaves no server logs in the machine's temp folder (tests/conftest.py)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")

# A run whose stdio server dies at start, writing to stderr: `littleghost check` keeps its
# log (never empty) in the temp folder. Subprocesses inherit the folder (the test above).
CRASHING_RUN = """
import sys

from littleghost_testing.cli import main

DYING = ["--", sys.executable, "-c", "import sys; sys.exit('fatal: no config')"]


def test_a_crashing_server() -> None:
    assert main(["check", "--timeout", "30", *DYING]) == 2
"""


def test_the_session_and_its_subprocesses_use_pytests_temp_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    basetemp = tmp_path_factory.getbasetemp()
    assert Path(tempfile.gettempdir()).is_relative_to(basetemp)
    child = subprocess.run(
        [sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert Path(child.stdout.strip()).is_relative_to(basetemp)


def _inner_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, **files: str
) -> tuple[Path, Path, pytest.RunResult]:
    """A pytest run of ``files`` with the suite's conftest, its TMPDIR a folder of its own (as
    /tmp is on a machine): that folder, the run's basetemp, and its result."""
    machine = pytester.mkdir("machine-tmp")
    monkeypatch.setenv("TMPDIR", str(machine))
    monkeypatch.setattr(tempfile, "tempdir", str(machine))
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(**files)
    inner = pytester.path / "basetemp"
    result = pytester.runpytest_inprocess(
        f"--basetemp={inner}", "-p", "no:randomly", "-p", "no:cacheprovider"
    )
    return machine, inner, result


def test_a_test_run_leaves_no_server_log_in_the_machines_temp_folder(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine, inner, result = _inner_run(pytester, monkeypatch, test_crashing_run=CRASHING_RUN)
    result.assert_outcomes(passed=1)
    assert list(machine.glob("littleghost-server-*.log")) == []
    # The log is kept, in the inner run's basetemp, where its conftest points TMPDIR.
    kept = list((inner / "tmp").glob("littleghost-server-*.log"))
    assert [path.read_text().strip() for path in kept] == ["fatal: no config"]


# A module-level fake server, used over stdio and never closed, as tests share one; and a
# test that leaves a folder of the fake server's name, which the session must not let pass.
STDIO_RUN = """
import tempfile

import anyio

from littleghost_testing.fake_server import FakeMCPServer

server = FakeMCPServer("shared")


@server.tool(description="Echo.")
def echo(text: str) -> str:
    return text


def test_a_stdio_connection() -> None:
    async def connect() -> None:
        with anyio.fail_after(60):
            async with server.client("stdio") as client:
                await client.call_tool("echo", {"text": "hi"})

    anyio.run(connect)
    assert server.calls == [("echo", {"text": "hi"})]


def test_a_leftover() -> None:
    tempfile.mkdtemp(prefix="littleghost-fake-left-")
"""


def test_no_fake_server_folder_outlives_the_session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine, _, result = _inner_run(pytester, monkeypatch, test_stdio_run=STDIO_RUN)
    result.assert_outcomes(passed=2, errors=1)  # the session's end fails on the leftover alone
    error = next(line for line in result.outlines if line.startswith("E   "))
    assert re.fullmatch(
        r"E +AssertionError: FakeMCPServer temp folders outlived the session: "
        r"\['littleghost-fake-left-\w+'\]",
        error,
    ), error
    assert list(machine.iterdir()) == []
