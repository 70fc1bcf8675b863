"""Findings that explain themselves (issue 29, points 9 and 12).

``littleghost read`` and ``get`` send one request as ``call`` does; an error
answer of any of the three shows what the server logged (an in-process
server's traceback, a stdio server's stderr); resource and prompt findings
carry their own repro line and, where one is known, the fix; a repro line
carries the server's working directory as an absolute path.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from servers.cli_harness import FAST, HERE, reproduce_lines, run, run_process

from littleghost_testing._targets import resolve

CRASHES = "servers.sdk_crashes.python_sdk:app"
GOOD = "servers.read_servers:sdk_good"
BROKEN = "servers.read_servers:sdk_broken"


def _stdio(module: str, attribute: str) -> list[str]:
    """The stdio command that serves ``module.attribute`` (from the tests' folder)."""
    return ["--", sys.executable, "-c", f"from {module} import {attribute} as s; s.run()"]


# -- call: what the server said about an error answer ---------------------------------------


def test_call_of_an_in_process_crash_shows_the_server_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "call", CRASHES, "divide", '{"total": 1, "parts": 0}')
    assert code == 1
    assert json.loads(out)["result"]["content"][0]["text"] == "Error executing tool divide"
    lines = err.splitlines()
    assert lines[0] == "the server logged:"
    # The first cause, in the server's own code, not the SDK's wrapper around it.
    assert "  server log:     return total / parts" in lines
    assert lines[-1] == "  server log: ZeroDivisionError: division by zero"
    # A success shows nothing of the server's.
    code, out, err = run(capsys, "call", CRASHES, "divide", '{"total": 4, "parts": 2}')
    assert (code, err) == (0, "")


def test_call_of_a_stdio_crash_shows_the_tail_of_its_stderr_and_the_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    server = _stdio("servers.sdk_crashes.python_sdk", "app")
    argv = ["divide", '{"total": 1, "parts": 0}', "--cwd", str(HERE), "--server-log", str(log)]
    code, out, err = run(capsys, "call", *argv, *server)
    assert code == 1 and json.loads(out)["result"]["isError"] is True
    lines = err.splitlines()
    assert lines[0] == f"last lines of the server's stderr ({log}):"
    assert len(lines) > 1 and all(line.startswith("  server stderr: ") for line in lines[1:])
    assert "ZeroDivisionError" in log.read_text()


# -- read and get ----------------------------------------------------------------------------


def test_read_prints_the_raw_answer_and_exits_by_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "read", GOOD, "docs://readme")
    assert (code, err) == (0, "")
    assert json.loads(out)["result"]["contents"][0]["text"] == "Welcome to the shelf."
    code, out, err = run(capsys, "read", BROKEN, "docs://index")
    assert code == 1
    assert json.loads(out)["error"]["message"] == "Error reading resource docs://index"
    assert err.splitlines()[-1] == "  server log: RuntimeError: the index is gone"


def test_get_prints_the_raw_answer_with_or_without_arguments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "get", GOOD, "summarize", '{"topic": "tides"}')
    assert code == 0
    [message] = json.loads(out)["result"]["messages"]
    assert message["content"]["text"] == "Summarize tides in a short way."
    code, out, _ = run(capsys, "get", GOOD, "hello")
    assert code == 0 and json.loads(out)["result"]["messages"][0]["content"]["text"] == "Hello."
    code, out, err = run(capsys, "get", BROKEN, "review", '{"chapter": "2"}')
    assert code == 1 and json.loads(out)["error"]["code"] == -32603
    assert err.splitlines()[-1] == "  server log: IndexError: list index out of range"


def test_read_and_get_over_stdio(capsys: pytest.CaptureFixture[str]) -> None:
    server = ["--cwd", str(HERE), *_stdio("servers.read_servers", "sdk_good")]
    code, out, _ = run(capsys, "read", "docs://readme", *server)
    assert code == 0 and json.loads(out)["result"]["contents"][0]["text"].startswith("Welcome")
    code, out, _ = run(capsys, "get", "summarize", '{"topic": "x"}', *server)
    assert code == 0 and "Summarize x" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["read", GOOD], "read takes TARGET URI, got 1 words"),
        (["read", GOOD, "a://b", "c://d"], "read takes TARGET URI, got 3 words"),
        (["get", GOOD], "get takes TARGET PROMPT [ARGUMENTS], got 1 words"),
        (
            ["get", GOOD, "p", "[1]"],
            "ARGUMENTS must be a JSON object (MCP prompt arguments are one)",
        ),
        (["get", GOOD, "p", '{"n": 1}'], "ARGUMENTS must map names to strings (MCP types them so)"),
        (["get", "p", "{}", "x", "--", "cmd"], "get takes PROMPT [ARGUMENTS], got 3 words"),
    ],
)
def test_read_and_get_misused_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"littleghost: error: {message}"]


# -- check: repro lines and fixes of resources and prompts -----------------------------------


def test_resource_and_prompt_findings_repeat_with_their_own_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({"prompt:review": [{"chapter": "2"}]}))
    code, out, _ = run(capsys, "check", BROKEN, *FAST, "--inputs", str(inputs))
    assert code == 1
    lines = reproduce_lines(out)
    assert lines == [
        f"littleghost read {BROKEN} docs://index",
        f'littleghost get {BROKEN} review \'{{"chapter":"2"}}\'',
    ]
    for line in lines:  # each reproduces its finding: the same error answer, exit 1
        code, out, _ = run(capsys, *shlex.split(line)[1:])
        assert code == 1 and "error" in json.loads(out)


def test_a_template_raising_for_an_unknown_id_names_the_fix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    code, out, _ = run(capsys, "check", "servers.read_servers:sdk_ids", "--json", str(report))
    assert code == 0  # a made-up id refused, whatever the way, is unexercised: a warning
    findings = {
        item["name"]: item["findings"] for item in json.loads(report.read_text())["resources"]
    }
    [notes] = findings["docs://notes/{note_id}"]
    assert notes["kind"] == "unexercised"
    assert notes["fix"].startswith("a template that raises for a value it does not know")
    assert "ResourceNotFoundError" in notes["fix"]
    # The control: ResourceNotFoundError is the refusal the fix asks for; no fix to name.
    [pages] = findings["docs://pages/{page_id}"]
    assert pages["kind"] == "unexercised" and pages["fix"] is None
    assert f"  fix:       {notes['fix']}" in out.splitlines()


# -- the working directory -------------------------------------------------------------------


def test_a_relative_cwd_is_carried_as_an_absolute_path() -> None:
    target = resolve(None, command=["server"], cwd="sandbox")
    words = target.connect_words("tool", "{}")
    assert words[words.index("--cwd") + 1] == os.path.abspath("sandbox")


def test_a_repro_line_runs_the_server_where_check_ran_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The server's module is found from --cwd: pasted elsewhere, the line needs the folder.
    server = _stdio("servers.sdk_crashes.python_sdk", "app")
    relative = os.path.relpath(HERE)
    code, out, _ = run(capsys, "check", *FAST, "--include", "divide", "--cwd", relative, *server)
    assert code == 1
    line = next(line for line in reproduce_lines(out) if "divide" in line)
    words = shlex.split(line)
    assert words[words.index("--cwd") + 1] == str(HERE.resolve())
    repeated = run_process(*words[1:], cwd=tmp_path)  # another folder
    assert repeated.returncode == 1, repeated.stderr
    assert json.loads(repeated.stdout)["result"]["isError"] is True
