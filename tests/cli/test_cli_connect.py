"""Connecting ``littleghost check`` and ``call`` to real servers: headers, env, config, failures."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from servers.cli_harness import (
    FAST,
    STDIO_SERVER,
    calls_of,
    environment,
    reproduce_lines,
    run,
    run_in_thread,
    run_process,
    stdio_command,
)
from servers.cli_http_auth import TOKEN, build

from littleghost_testing.fake_server._http import HttpServer
from littleghost_testing.leaks import ResourceSnapshot


@pytest.fixture(scope="module")
def auth_url() -> Iterator[str]:
    with HttpServer(build, name="cli-http-auth") as server:
        yield f"{server.url}/mcp"


@pytest.mark.anyio
async def test_an_http_server_gets_the_header_and_the_report_never_shows_its_value(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    auth_url: str,
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    with environment(CLI_TOKEN=TOKEN):
        code, out, err = await run_in_thread(
            capsys,
            "check",
            auth_url,
            "--header",
            "Authorization: Bearer ${CLI_TOKEN}",
            "--header",
            f"X-Literal: {TOKEN}",
            *FAST,
            "--json",
            str(report),
            "--junit-xml",
            str(junit),
        )
    assert code == 1, err  # shout accepts words longer than its maxLength
    assert out.splitlines()[1].split()[:2] == ["lookup", "15"]
    for text in (out, err, report.read_text(), junit.read_text()):
        assert TOKEN not in text
    assert json.loads(report.read_text())["target"] == auth_url
    # The reproduce line names the header values as ${VAR} references, and works once set.
    words = shlex.split(reproduce_lines(out)[0])
    assert words[words.index("--header") + 1] == "Authorization: Bearer ${CLI_TOKEN}"
    assert "X-Literal: ${X_LITERAL}" in words
    with environment(CLI_TOKEN=TOKEN, X_LITERAL=TOKEN):
        code, answer, err = await run_in_thread(capsys, *words[1:])
    assert code == 0, err
    assert json.loads(answer)["result"]["isError"] is False
    await snapshot.assert_released()


def test_a_refused_credential_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], auth_url: str
) -> None:
    code, out, err = run(capsys, "check", auth_url, "--header", "Authorization: Bearer wrong")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"littleghost: error: {auth_url} refused the credentials (HTTP 401): "
        "check --header (or the headers of --config)"
    ]
    code, out, err = run(capsys, "call", auth_url, "lookup", '{"topic": "x"}')
    assert (code, out) == (2, "")
    assert "refused the credentials (HTTP 401)" in err and len(err.splitlines()) == 1


@pytest.mark.anyio
async def test_a_stdio_server_gets_env_values_expanded_and_its_stderr_goes_to_a_log(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    calls, log, report = tmp_path / "calls.jsonl", tmp_path / "server.log", tmp_path / "r.json"
    with environment(CLI_SECRET="hunter22"):
        code, out, err = await run_in_thread(
            capsys,
            "check",
            "--env",
            "CLI_SERVER_TOKEN=${CLI_SECRET}",
            "--env",
            f"CLI_CALLS_FILE={calls}",
            "--include",
            "whoami",
            "--server-log",
            str(log),
            "--json",
            str(report),
            *FAST,
            *stdio_command(),
        )
    assert code == 0, err
    assert calls_of(calls)[0] == {"tool": "whoami", "arguments": {}}
    assert "cli-stdio starting: banner line 0" in log.read_text()
    assert "banner" not in out + err
    assert f"server stderr: {log}" in out
    for text in (out, err, report.read_text()):
        assert "hunter22" not in text
    await snapshot.assert_released()


def test_env_values_in_an_env_command_stay_out_of_the_label(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    code, out, err = run(
        capsys,
        "check",
        "--include",
        "whoami",
        "--json",
        str(report),
        *FAST,
        "--",
        "env",
        "CLI_SERVER_TOKEN=hunter22",
        sys.executable,
        str(STDIO_SERVER),
    )
    assert code == 0, err
    label = json.loads(report.read_text())["target"]
    assert label == f"env 'CLI_SERVER_TOKEN=${{CLI_SERVER_TOKEN}}' {sys.executable} {STDIO_SERVER}"
    assert "hunter22" not in out + err + report.read_text()


def test_a_server_that_dies_at_start_shows_its_last_stderr_lines_and_exits_2(
    tmp_path: Path,
) -> None:
    done = run_process("check", *stdio_command(), env={"CLI_SERVER_TOKEN": ""})
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert "  server stderr: fatal: CLI_SERVER_TOKEN is not set" in lines
    assert lines[-1].startswith("littleghost: error: cannot connect to ")
    assert "Traceback" not in done.stderr


def test_a_server_that_dies_mid_run_is_a_crash_with_its_stderr_tail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    code, _, err = run(
        capsys,
        "check",
        "--env",
        "CLI_SERVER_TOKEN=x",
        "--include",
        "die",
        "--include",
        "echo",
        "--json",
        str(report),
        *FAST,
        *stdio_command(),
    )
    assert code == 1
    assert "    RuntimeError: disk on fire" in err.splitlines()
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert [group["kind"] for group in tools["die"]["findings"]] == ["crash"]
    # The next tool reconnected to a fresh server process.
    assert tools["echo"]["answers"]["success"] > 0


def test_a_config_file_names_the_server_and_its_env(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    calls = tmp_path / "calls.jsonl"
    config = tmp_path / "mcp.json"
    entry = {
        "command": sys.executable,
        "args": [str(STDIO_SERVER)],
        "env": {"CLI_SERVER_TOKEN": "hunter22", "CLI_CALLS_FILE": str(calls)},
    }
    config.write_text(json.dumps({"mcpServers": {"notes": entry}}))
    argv = ["--config", str(config), "--server", "notes"]
    code, out, err = run(capsys, "check", *argv, "--include", "echo", *FAST)
    assert code == 0, err
    assert {call["tool"] for call in calls_of(calls)} == {"echo"}
    assert "hunter22" not in out + err
    code, out, err = run(capsys, "call", "whoami", "{}", *argv)
    assert code == 0, err
    assert json.loads(out)["result"]["content"][0]["text"] == "token of 8 characters"

    code, _, err = run(capsys, "check", "--config", str(config), "--server", "other")
    assert code == 2
    assert err.splitlines() == [
        f"littleghost: error: {config} has no server 'other' (servers: notes)"
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--env", "X=1", "http://127.0.0.1:1/mcp"], "--env and --cwd are for a stdio"),
        (["check", "--header", "A: b", "--", "cmd"], "--header is for HTTP servers"),
        (["check", "--header", "Bearer hunter22", "http://h/mcp"], "got a value without ':'"),
        (["check", "--", "${CLI_SURELY_UNSET}"], "environment variable CLI_SURELY_UNSET is not"),
        (["check", "--config", "x.json"], "--config FILE and --server NAME go together"),
        (["call", "x:y", "tool"], "call takes TARGET TOOL INPUT, got 2 words"),
        (["call", "x:y", "tool", "[1]"], "INPUT must be a JSON object"),
        (["call", "x:y", "tool", "{"], "INPUT is not JSON"),
        (["call", "tool", "{}", "http://h/mcp"], "call takes TARGET TOOL INPUT, in that order"),
    ],
)
def test_connection_options_misused_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and message in err
    assert "hunter22" not in err
