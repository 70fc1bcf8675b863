"""The kit's clients -- ``check``, ``call``, ``from_target`` -- read hostile servers in bounds.

Each case runs one front end in a child process under ``MEMORY_MB`` of address
space (``run_limited``): a 1 GB HTTP body, a 100 MB stdio answer, a 50 MB
catalog, a line of invalid UTF-8 and a server that dies mid-call must each
end promptly with the library's own one-line error. Without the bounded
transport, the 1 GB body alone took ``check`` past 4 GB. The child reports its
peak RSS and wall time; ``KIT_BOUNDS_REPORT=1`` prints them (``pytest -s``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tests.hostile.servers.clients import REPO, http_server

from .sandbox import run_limited

MEMORY_MB = 600
"""The child's address space: the kit with hypothesis and a thread pool needs about 400."""

SECONDS = 60
"""A child past this is killed, and the test fails: no case may hang."""

PROMPT = 20.0
"""How long a case may take, on a loaded CI runner; each takes 1-3 s on a quiet one."""

BODY_BOUND = "MCP server exceeded max_result_bytes (16777216): a response body longer than that"
LINE_BOUND = "MCP server exceeded max_result_bytes (16777216): a message longer than that"
NOT_UTF8 = "MCP server sent a line that is not valid utf-8 (byte 39); connection closed"
CLOSED = "MCP connection closed"


@dataclass(frozen=True)
class Case:
    transport: str
    behavior: str
    size: int
    message: str
    lists: bool = False  # the server misbehaves on tools/list, not tools/call


CASES = {
    "http-1GB-body": Case("http", "huge", 1 << 30, BODY_BOUND),
    "stdio-100MB-answer": Case("stdio", "huge", 100 << 20, LINE_BOUND),
    "stdio-50MB-catalog": Case("stdio", "huge-list", 50 << 20, LINE_BOUND, lists=True),
    "stdio-invalid-utf8": Case("stdio", "invalid-utf8", 0, NOT_UTF8),
    "stdio-dead-server": Case("stdio", "exit", 0, CLOSED),
}

# Each phase is written to the child's stderr as it ends, with the CPU time spent so far:
# a child killed at ``SECONDS`` says whether importing, the run or exiting took the time.
RUN = """
import contextlib, json, resource, sys, tempfile, time

def phase(name):
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    seconds = cpu.ru_utime + cpu.ru_stime
    print(f"phase: {{name}} ({{seconds:.1f}} s CPU)", file=sys.stderr, flush=True)

phase("imported")
started = time.monotonic()
# Real files: a stdio server's stderr goes to ours when the kit has no log for it.
with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code, message = run({where!r})
    out.seek(0)
    err.seek(0)
    printed, complained = out.read(), err.read()
phase("ran")
print(json.dumps({{
    "code": code,
    "out": printed,
    "err": complained,
    "message": message,
    "seconds": time.monotonic() - started,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}}), flush=True)
phase("reported")  # what follows is the interpreter's exit
"""

CLI = """
from littleghost_testing.cli._main import main

def run(where):
    return main({argv!r}), None
"""

FROM_TARGET = """
from littleghost_testing import from_target

def run(where):
    server = from_target(where, allow_side_effects=True, examples=1, timeout=10)
    try:
        [param] = server.parametrize().args[1]
        param.values[0].check()
    except BaseException as error:  # pytest.fail's Failed is a BaseException
        return type(error).__name__, str(error)
    finally:
        server.close()
    return "passed", None
"""


@contextmanager
def hostile(case: Case) -> Iterator[Any]:
    """Where the hostile server is: a URL, or a stdio command (a list of words)."""
    if case.transport == "http":
        with http_server(case.behavior, case.size) as url:
            yield url
    else:
        yield [
            sys.executable,
            "-m",
            "tests.hostile.servers.raw_stdio",
            case.behavior,
            str(case.size),
        ]


def run_case(code: str, where: Any) -> dict[str, Any]:
    try:
        completed = run_limited(
            code + RUN.format(where=where), memory_mb=MEMORY_MB, seconds=SECONDS
        )
    except subprocess.TimeoutExpired as timeout:
        stderr = timeout.stderr or b""
        text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
        phases = [line for line in text.splitlines() if line.startswith("phase: ")]
        pytest.fail(f"the child ran past {SECONDS} s after: {phases or 'nothing'}", pytrace=False)
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    if os.environ.get("KIT_BOUNDS_REPORT"):
        print(f"\n{result['rss_mb']:.0f} MB peak RSS, {result['seconds']:.2f} s", end=" ")
    assert result["seconds"] < PROMPT, result
    return result


def cli_words(where: Any, *words: str) -> list[str]:
    if isinstance(where, str):
        return [words[0], where, *words[1:]]
    return [*words, "--", *where]


@pytest.mark.parametrize("name", CASES)
def test_check(name: str) -> None:
    case = CASES[name]
    with hostile(case) as where:
        argv = cli_words(where, "check", "--allow-side-effects", "--examples", "1", "-q")
        result = run_case(CLI.format(argv=argv), where)
    if case.lists:  # check reports a broken catalog as a finding of its own
        [line] = [line for line in result["out"].splitlines() if "malformed_catalog" in line]
        assert (
            line == f"(tools/list): malformed_catalog (violation): LimitExceeded({case.message!r})"
        )
    else:
        assert f"  observed:  {case.message}" in result["out"], result["out"]
    assert result["code"] == 1, result


@pytest.mark.parametrize("name", CASES)
def test_call(name: str) -> None:
    case = CASES[name]
    with hostile(case) as where:
        result = run_case(CLI.format(argv=cli_words(where, "call", "probe", "{}")), where)
    if case.lists:  # call sends tools/call alone: the catalog is never read
        assert result["code"] == 0, result
        assert json.loads(result["out"])["result"]["content"] == [{"type": "text", "text": "ok"}]
        return
    [line] = result["err"].splitlines()
    assert line.startswith("littleghost: error: probe: "), line
    assert case.message in line, line
    assert result["code"] == 2


@pytest.mark.parametrize("name", CASES)
def test_from_target(name: str) -> None:
    case = CASES[name]
    with hostile(case) as where:
        result = run_case(FROM_TARGET, where)
    kind, message = result["code"], result["message"]
    if case.lists:  # the server's one item fails with why; the session goes on
        assert kind == "Failed"
        assert message.startswith("cannot discover the tools of "), message
        assert message.endswith(f"LimitExceeded: {case.message}"), message
        assert "\n" not in message
    else:
        assert kind == "Failed"
        assert f"  observed:  {case.message}" in message, message


def test_the_children_run_from_the_repository() -> None:
    """The snippets import ``tests.hostile``: the sandbox runs them from the repository root."""
    assert (REPO / "tests" / "hostile" / "servers" / "raw_stdio.py").is_file()
