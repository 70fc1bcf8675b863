"""``littleghost`` against hostile servers and hostile input: terminals, repro lines, stopping."""

from __future__ import annotations

import errno
import json
import os
import pty
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers.cli_harness import (
    FAST,
    HERE,
    SUBPROCESS_TIMEOUT,
    cli_process,
    environment,
    reproduce_lines,
    run,
)
from servers.cli_hostile_names import CLEAR, SPLIT, TITLE

from littleghost_testing import from_target
from littleghost_testing._targets import TargetError, resolve
from littleghost_testing.cli._text import shell_word
from littleghost_testing.demo_server import server as demo_server

HOSTILE = [
    "--",
    sys.executable,
    "-m",
    "littleghost_testing.fake_server",
    "servers.cli_hostile_names:hostile",
]
VENV_BIN = str(Path(sys.executable).parent)
# What the live display itself writes: cursor moves, line erases, cursor hiding.
LIVE_DISPLAY_CODES = re.compile(r"\x1b\[\??[0-9;]*[AKhl]|\r")


def run_under_pty(*argv: str) -> tuple[int, str]:
    """Run ``littleghost`` with a pseudo-terminal as stdin, stdout and stderr: all it wrote."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-W", "ignore", "-m", "littleghost_testing.cli", *argv],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=HERE,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"},
        close_fds=True,
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + SUBPROCESS_TIMEOUT
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(controller, 65536)
            except OSError as error:  # EIO: the child closed its end
                if error.errno != errno.EIO:
                    raise
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = process.wait(timeout=SUBPROCESS_TIMEOUT)
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
            process.wait()
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


# -- 3. terminal escapes -------------------------------------------------------------


def test_server_chosen_names_and_stderr_never_reach_the_terminal_raw() -> None:
    code, output = run_under_pty("check", "--verbose", *FAST, *HOSTILE)

    assert code == 1, output
    # Neither the title escape nor the screen clear, from a name or from stderr, gets out.
    assert "\x1b]" not in output and "\x1b[2J" not in output
    assert "\x07" not in output
    output = LIVE_DISPLAY_CODES.sub("", output)
    assert "\x1b" not in output
    # The rows, finding headers, progress lines and stderr tail show the names escaped.
    assert "\\u001b]0;pwned\\u0007title" in output
    assert "clear\\u001b[2Jscreen" in output
    assert re.search(r"  split\\nrow: \d+ calls?, \d+ violations?", output)  # a progress line
    assert "\nsplit\\nrow: jsonrpc_error (violation)" in output
    assert "dying \\u001b]0;pwned-by-stderr\\u0007 \\u001b[2J now" in output
    assert not any(line.startswith("row") for line in output.splitlines())

    # Each reproduce line is one shell line (continued with backslashes) that reproduces.
    lines = [line for line in output.splitlines() if "reproduce: " in line]
    assert "reproduce: littleghost call $'split\\x0arow' '{" in "\n".join(lines)
    [line] = [line for line in reproduce_lines(output) if "split" in line]
    pasted = subprocess.run(
        ["bash", "-c", line],
        capture_output=True,
        text=True,
        cwd=HERE,
        env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"},
        timeout=SUBPROCESS_TIMEOUT,
    )
    # The tool was found by its exact name: its JSON-RPC error is the answer (exit 1).
    assert pasted.returncode == 1, pasted.stderr
    assert '"message": "boom"' in pasted.stdout


@pytest.mark.parametrize("name", [TITLE, CLEAR, SPLIT, "it's \\ \u202eevil", "plain-name"])
def test_shell_words_are_printable_and_read_back_exactly(name: str) -> None:
    word = shell_word(name)

    assert word.isprintable() and "\n" not in word
    echoed = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, timeout=SUBPROCESS_TIMEOUT
    )
    assert echoed.stdout == name.encode()


# -- 10. repro lines safe to paste ---------------------------------------------------


def test_env_values_are_shown_unless_they_may_be_secrets() -> None:
    target = resolve(
        None,
        command=["server"],
        env={
            "HOME": "/path/of/the/run",
            "LANG": "C.UTF-8",
            "GITHUB_TOKEN": "short",
            "DB_PASSWORD": "x",
            "DATABASE_URL": "postgres://app:hunter2@db/orders",
            "OPAQUE": "a8Fk29dLq0xZ7mNp3vR1sT6w",
            "FROM_REF": "${MY_TOKEN}",
        },
    )

    words = target.connect_words("tool", "{}")
    shown = dict(
        words[index + 1].split("=", 1) for index in range(len(words)) if words[index] == "--env"
    )
    assert shown == {
        "HOME": "/path/of/the/run",
        "LANG": "C.UTF-8",
        "GITHUB_TOKEN": "${GITHUB_TOKEN}",
        "DB_PASSWORD": "${DB_PASSWORD}",
        "DATABASE_URL": "${DATABASE_URL}",
        "OPAQUE": "${OPAQUE}",
        "FROM_REF": "${MY_TOKEN}",
    }


def test_an_env_command_masks_only_its_secret_assignments() -> None:
    target = resolve(None, command=["env", "HOME=/srv/run", "API_KEY=k", "server"])

    assert target.label == "env HOME=/srv/run 'API_KEY=${API_KEY}' server"


# -- 6. the CLI's own inputs ---------------------------------------------------------

DEMO = "littleghost_testing.demo_server:server"
DEEP = "[" * 100_000 + "]" * 100_000


def one_line_error(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, ""), err
    [line] = err.splitlines()
    assert line.startswith("littleghost: error: ") and "Traceback" not in err
    return line


@pytest.mark.parametrize("where", ["--config", "--inputs", "call"])
def test_deeply_nested_json_is_a_one_line_usage_error(
    where: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"mcpServers": ' + DEEP + "}" if where == "--config" else DEEP)
    argv = {
        "--config": ["check", "--config", str(path), "--server", "x"],
        "--inputs": ["check", DEMO, "--inputs", str(path)],
        "call": ["call", DEMO, "order_status", '{"a": ' + DEEP + "}"],
    }[where]

    line = one_line_error(*run(capsys, *argv))

    assert line.endswith("is nested too deeply to parse")


@pytest.mark.parametrize("command", ["check", "call"])
def test_a_header_value_with_a_line_break_is_refused_without_quoting_it(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command, "http://127.0.0.1:9/mcp", *(["t", "{}"] if command == "call" else [])]
    with environment(CLI_PASTED_TOKEN="sk-pasted-secret-value\n"):
        line = one_line_error(
            *run(capsys, *argv, "--header", "Authorization: Bearer ${CLI_PASTED_TOKEN}")
        )

    assert "--header Authorization: its value (after ${VAR} expansion) holds a line break" in line
    assert "sk-pasted" not in line and "secret-value" not in line


def test_a_shrink_budget_of_zero_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "check", DEMO, "--examples", "1", "--shrink-budget", "0", "--quiet"
    )

    assert code == 0, err
    assert "passed" in out.splitlines()[-1]


def test_unknown_tool_names_in_inputs_and_tool_timeouts_exit_2_with_close_matches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({"order_stats": [{"order_id": "ORD-1"}], "nothing_like": []}))

    line = one_line_error(
        *run(
            capsys,
            "check",
            DEMO,
            "--inputs",
            str(inputs),
            "--tool-timeout",
            "refund_qoute=5",
            "--tool-timeout",
            "order_status=5",
        )
    )

    assert line == (
        "littleghost: error: --inputs names tools the server does not list: "
        "'order_stats' (did you mean 'order_status'?), 'nothing_like'; "
        "--tool-timeout names tools the server does not list: "
        "'refund_qoute' (did you mean 'refund_quote'?)"
    )


def test_from_target_refuses_inputs_for_unknown_tools() -> None:
    fuzzed = from_target(demo_server, inputs={"order_stats": [{"order_id": "ORD-1"}]})
    with pytest.raises(TargetError) as raised:
        fuzzed.parametrize()

    assert "from_target(inputs=...) names tools the server does not list" in str(raised.value)
    assert "'order_stats' (did you mean 'order_status'?)" in str(raised.value)


def test_a_config_entry_with_both_command_and_url_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "mcp.json"
    entry = {"command": "server", "url": "http://127.0.0.1:9/mcp"}
    config.write_text(json.dumps({"mcpServers": {"notes": entry}}))

    line = one_line_error(*run(capsys, "check", "--config", str(config), "--server", "notes"))

    assert line.endswith("has both 'command' and 'url': keep the one to connect to")


def test_url_userinfo_and_an_authorization_header_together_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = one_line_error(
        *run(
            capsys,
            "check",
            "http://user:hunter2@127.0.0.1:9/mcp",
            "--header",
            "Authorization: Bearer sk-explicit",
        )
    )

    assert "user:password and an Authorization header both authenticate" in line
    assert "hunter2" not in line and "sk-explicit" not in line


@pytest.mark.parametrize("option", ["--config", "--inputs"])
def test_a_fifo_is_refused_instead_of_blocking(
    option: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    argv = (
        ["--config", str(fifo), "--server", "x"]
        if option == "--config"
        else [DEMO, option, str(fifo)]
    )

    line = one_line_error(*run(capsys, "check", *argv))

    assert line.endswith(f"{fifo} is not a regular file")


# -- 7. stopping ---------------------------------------------------------------------

STOPPING_SERVER = ["--", sys.executable, str(HERE / "servers" / "cli_stopping_server.py")]


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    """The ``littleghost`` processes a test starts, killed if a failed test left them running."""
    processes: list[subprocess.Popen[str]] = []
    yield processes
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.communicate()


def events_of(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + SUBPROCESS_TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_ctrl_c_cancels_the_calls_in_flight_and_reports_at_once(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    events, report = tmp_path / "events.txt", tmp_path / "r.json"
    process = cli_process(
        "check",
        "--timeout",
        "120",
        "--include",
        "hang",
        "--env",
        f"CLI_EVENTS_FILE={events}",
        "--json",
        str(report),
        *STOPPING_SERVER,
    )
    started.append(process)
    wait_for(lambda: "hang called" in events_of(events), "the first call")

    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    out, err = process.communicate(timeout=SUBPROCESS_TIMEOUT)
    took = time.monotonic() - interrupted

    assert process.returncode == 130, err
    assert took < 20, f"{took:.1f} s after Ctrl-C"  # not the 120 s --timeout (slow CI margin)
    assert "Traceback" not in err
    assert "interrupted: cancelling the calls in flight" in err
    assert "(interrupted: partial results)" in out
    data = json.loads(report.read_text())
    assert data["interrupted"] is True
    [hang] = [tool for tool in data["tools"] if tool["name"] == "hang"]
    kinds = {group["kind"] for group in hang["findings"]}
    assert kinds <= {"unexercised"}, kinds  # a cancelled call is no timeout, no crash
    # The server heard of it: notifications/cancelled interrupted the handler.
    wait_for(lambda: "hang cancelled" in events_of(events), "the server's cancellation")


def test_a_second_ctrl_c_exits_at_once(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    events = tmp_path / "events.txt"
    process = cli_process(
        "check",
        "--timeout",
        "120",
        "--include",
        "a_stuck",
        "--env",
        f"CLI_EVENTS_FILE={events}",
        "--env",
        "CLI_STUCK_SECONDS=120",
        *STOPPING_SERVER,
    )
    started.append(process)
    wait_for(lambda: "a_stuck called" in events_of(events), "the first call")

    process.send_signal(signal.SIGINT)
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    _, err = process.communicate(timeout=SUBPROCESS_TIMEOUT)

    assert process.returncode == 130, err
    assert time.monotonic() - interrupted < 20  # not the 120 s --timeout
    assert "Traceback" not in err


def test_after_a_timeout_the_next_tool_gets_a_fresh_connection(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events, report = tmp_path / "events.txt", tmp_path / "r.json"
    code, out, err = run(
        capsys,
        "check",
        "--timeout",
        "30",  # connecting: a loaded machine starts Python slowly
        "--tool-timeout",
        "a_stuck=1",
        "--tool-timeout",
        "echo=5",
        "--include",
        "a_stuck",
        "--include",
        "echo",
        "--env",
        f"CLI_EVENTS_FILE={events}",
        "--env",
        "CLI_STUCK_SECONDS=120",
        "--json",
        str(report),
        *FAST,
        *STOPPING_SERVER,
    )

    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert "timeout" in [group["kind"] for group in tools["a_stuck"]["findings"]]
    # The stuck server no longer answers anything; a new one answers echo.
    assert tools["echo"]["answers"]["success"] > 0, out + err
    assert tools["echo"]["findings"] == []
    assert code == 1


def test_a_reader_that_leaves_early_ends_call_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "littleghost_testing.cli", "call", DEMO, "order_status", "{}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=HERE,
    )
    assert process.stdout is not None
    process.stdout.close()  # like `| head` that has read its lines
    _, err = process.communicate(timeout=SUBPROCESS_TIMEOUT)

    assert process.returncode in (0, 1), err
    assert err == b""


def test_ctrl_c_cancels_a_call_and_exits_130(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    events = tmp_path / "events.txt"
    process = cli_process(
        "call",
        "hang",
        '{"word": "x"}',
        "--timeout",
        "120",
        "--env",
        f"CLI_EVENTS_FILE={events}",
        *STOPPING_SERVER,
    )
    started.append(process)
    wait_for(lambda: "hang called" in events_of(events), "the call")

    process.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    out, err = process.communicate(timeout=SUBPROCESS_TIMEOUT)

    assert process.returncode == 130, err
    assert time.monotonic() - interrupted < 20  # not the 120 s --timeout
    assert (out, err) == ("", "littleghost: interrupted\n")
    wait_for(lambda: "hang cancelled" in events_of(events), "the server's cancellation")
