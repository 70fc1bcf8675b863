"""Running ``littleghost check``: the plan, exit statuses, stopping early, reproducing findings."""

from __future__ import annotations

import json
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from servers.cli_harness import (
    FAST,
    SUBPROCESS_TIMEOUT,
    calls_of,
    cli_process,
    reproduce_lines,
    run,
    stdio_command,
)

DEMO = "littleghost_testing.demo_server"


def test_dry_run_connects_prints_the_plan_and_calls_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    calls = tmp_path / "calls.jsonl"
    env = ["--env", "CLI_SERVER_TOKEN=x", "--env", f"CLI_CALLS_FILE={calls}"]
    code, out, _ = run(capsys, "check", "--dry-run", *env, *stdio_command())
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith(": 4 of 5 tools would be called")
    assert (
        "delete_everything  skip  annotated destructiveHint: true; --allow-side-effects includes it"
    ) in lines
    assert 'annotations: {"readOnlyHint":true}' in [line.strip() for line in lines]
    assert calls_of(calls) == []


def test_nothing_to_check_exits_5_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "check", "cli_targets:empty")
    assert code == 5
    assert err.splitlines()[-1] == "littleghost: nothing checked: the server lists no tools"

    report = tmp_path / "r.json"
    argv = [f"{DEMO}:faulty", "--include", "create_ticket", "--json", str(report)]
    code, out, err = run(capsys, "check", *argv)
    assert code == 5
    assert "create_ticket  skipped: annotated readOnlyHint: false; --allow-side-effects" in out
    assert out.splitlines()[-1] == (
        "3 tools (0 checked, 3 skipped): 0 violations, 0 warnings in 0 calls: "
        "nothing checked: 0 of 3 tools called"
    )
    assert err.splitlines()[-1] == (
        "littleghost: nothing checked: all 3 tools were skipped (see the reasons above)"
    )
    (tool, *_) = [t for t in json.loads(report.read_text())["tools"] if t["name"] == "lookup"]
    assert (tool["called"], tool["reason"]) == (False, "not selected by --include 'create_ticket'")

    code, _, _ = run(capsys, "check", "--dry-run", f"{DEMO}:faulty", "--exclude", "*")
    assert code == 5


def test_pyproject_holds_defaults_and_the_command_line_wins(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.littleghost.check]\n"
        'exclude = ["order_*"]\n'
        "examples = 2\n"
        "shrink-budget = 1\n"
        "allow-side-effects = true\n"
        "tool-timeout = {lookup = 3}\n"
    )
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "r.json"
    code, _, _ = run(capsys, "check", f"{DEMO}:faulty", "--json", str(report))
    data = json.loads(report.read_text())
    assert code == 1
    assert data["options"]["examples"] == 2 and data["options"]["allow_side_effects"] is True
    assert data["options"]["tool_timeouts"] == {"lookup": 3.0}
    tools = {tool["name"]: tool for tool in data["tools"]}
    assert tools["order_status"]["reason"] == "excluded by --exclude 'order_*'"
    assert tools["create_ticket"]["called"] is True

    run(capsys, "check", f"{DEMO}:faulty", "--exclude", "create_*", "--json", str(report))
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert tools["order_status"]["called"] is True
    assert tools["create_ticket"]["reason"] == "excluded by --exclude 'create_*'"

    # Runs that found and shrank bugs left no .hypothesis/ folder behind.
    assert not (tmp_path / ".hypothesis").exists()

    (tmp_path / "pyproject.toml").write_text("[tool.littleghost.check]\nexampels = 2\n")
    code, out, err = run(capsys, "check", f"{DEMO}:faulty")
    assert (code, out) == (2, "")
    assert "unknown option 'exampels' in [tool.littleghost.check]" in err


def test_littleghost_call_reproduces_a_finding(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--allow-side-effects", "--include", "create_ticket", *FAST]
    code, out, _ = run(capsys, "check", *argv, "--", sys.executable, "-m", DEMO, "faulty")
    assert code == 1
    commands = reproduce_lines(out)
    assert commands, out
    words = shlex.split(commands[0])
    assert words[:4] == ["littleghost", "call", "create_ticket", words[3]]
    assert words[-5:] == ["--", sys.executable, "-m", DEMO, "faulty"]
    sent = json.loads(words[3])
    code, out, _ = run(capsys, *words[1:])
    # The server accepts the invalid input again: a success answer, exit 0.
    assert code == 0
    result = json.loads(out)["result"]
    assert result["isError"] is False
    assert result["content"][0]["text"].startswith("Opened ticket SUP-481")
    assert isinstance(sent, dict)


def test_littleghost_call_exits_1_on_an_error_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "call", f"{DEMO}:server", "help_center_lookup", '{"article_id": "HC-999"}'
    )
    assert code == 1 and json.loads(out)["result"]["isError"] is True
    code, out, _ = run(capsys, "call", "cli_targets:faults", "broken", '{"topic": "x"}')
    assert code == 1 and json.loads(out) == {"error": {"code": -32603, "message": "boom"}}
    code, out, err = run(
        capsys, "call", "cli_targets:faults", "stuck", '{"topic": "x"}', "--timeout", "0.2"
    )
    assert (code, out) == (2, "")
    assert err == "littleghost: error: stuck gave no answer within 0.2 s (--timeout)\n"


def test_max_failures_stops_the_run_and_reports_what_ran(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    argv = ["cli_targets:faults", "--allow-side-effects", *FAST, "--max-failures", "1"]
    code, out, _ = run(capsys, "check", *argv, "--timeout", "0.2", "--json", str(report))
    assert code == 1
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert tools["broken"]["violation_count"] >= 1
    assert tools["stuck"]["reason"] == "not reached: --max-failures 1 reached"
    assert "stopped early: --max-failures 1 reached" in out


def test_max_failures_stops_a_tool_at_the_call_that_reaches_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    argv = ["cli_targets:faults", "--allow-side-effects", "--examples", "20"]
    code, _, _ = run(capsys, "check", *argv, "--max-failures", "1", "--json", str(report))
    assert code == 1
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    # Every call of broken is a violation: the first one ends the run, mid-tool.
    assert (tools["broken"]["calls"], tools["broken"]["violation_count"]) == (1, 1)
    assert tools["broken"]["notes"] == ["stopped early: asked to stop"]


def test_max_time_stops_cleanly_and_the_status_reflects_what_ran(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    code, _, _ = run(
        capsys,
        "check",
        "--env",
        "CLI_SERVER_TOKEN=x",
        "--env",
        "CLI_SLOW_SECONDS=0.1",
        "--include",
        "slow",
        "--include",
        "echo",
        "--examples",
        "200",
        "--max-time",
        "1",
        "--json",
        str(report),
        *stdio_command(),
    )
    assert code == 0
    data = json.loads(report.read_text())
    assert data["options"]["stopped"] == "--max-time 1 s ran out"
    tools = {tool["name"]: tool for tool in data["tools"]}
    # echo was cut short (how far it got depends on the machine's load), slow never began.
    assert tools["echo"]["called"] is True and tools["echo"]["calls"] < 400
    assert tools["echo"]["notes"][-1].startswith("stopped early")
    assert tools["slow"]["reason"] == "not reached: --max-time 1 s ran out"


def test_workers_check_tools_side_by_side(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    argv = [f"{DEMO}:server", *FAST, "--workers", "3", "--json", str(report)]
    code, _, err = run(capsys, "check", *argv)
    assert code == 0, err
    tools = json.loads(report.read_text())["tools"]
    assert [tool["name"] for tool in tools] == [
        "help_center_lookup",
        "order_status",
        "refund_quote",
    ]
    assert all(tool["calls"] > 0 for tool in tools)


def test_ctrl_c_prints_and_writes_partial_results_and_exits_130(tmp_path: Path) -> None:
    calls, report = tmp_path / "calls.jsonl", tmp_path / "r.json"
    process = cli_process(
        "check",
        "--env",
        "CLI_SERVER_TOKEN=x",
        "--env",
        f"CLI_CALLS_FILE={calls}",
        "--env",
        "CLI_SLOW_SECONDS=0.05",
        "--include",
        "slow",
        "--examples",
        "1000",
        "--json",
        str(report),
        *stdio_command(),
    )
    deadline = time.monotonic() + SUBPROCESS_TIMEOUT
    while len(calls_of(calls)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=SUBPROCESS_TIMEOUT)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted: cancelling the calls in flight" in err
    assert "(interrupted: partial results)" in out
    data = json.loads(report.read_text())
    assert data["interrupted"] is True
    (slow,) = [tool for tool in data["tools"] if tool["name"] == "slow"]
    # The server saw 3 calls; the one in flight at Ctrl-C was cancelled, not answered.
    assert slow["called"] is True and 2 <= slow["calls"] < 2000


def test_a_failure_of_littleghost_on_one_tool_names_it_and_the_others_are_checked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bug of the kit's own (no server makes the engine raise): planted where the run calls it.
    from littleghost_testing.cli import _run

    engine = _run.fuzz_tool

    def failing_on_order_status(portal: Any, planned: Any, *args: Any, **options: Any) -> Any:
        if planned.name == "order_status":
            raise KeyError("planted")
        return engine(portal, planned, *args, **options)

    monkeypatch.setattr(_run, "fuzz_tool", failing_on_order_status)
    code, out, err = run(capsys, "check", f"{DEMO}:server", *FAST)
    assert code == 0, err
    (line,) = [line for line in out.splitlines() if line.lstrip().startswith("order_status ")]
    assert "skipped: not checked: littleghost failed on it: KeyError(\"'planted'\") at " in line
    assert line.endswith("; please report it")
    assert "Traceback" not in err
    assert "(2 checked, 1 skipped)" in out.splitlines()[-1]


def test_a_lone_skipped_tool_and_nothing_to_read_read_plainly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "check", "cli_targets:unannotated")
    assert code == 5
    assert err.splitlines()[-1] == (
        "littleghost: nothing checked: the only tool was skipped (see the reasons above)"
    )
    code, out, _ = run(capsys, "check", "--dry-run", "cli_targets:unannotated")
    assert code == 5
    assert out.splitlines()[-1] == "would read 0 resources, 0 resource templates and get 0 prompts"
