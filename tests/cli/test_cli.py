"""``littleghost check``, run for real: in-process, over stdio and over HTTP."""

from __future__ import annotations

import gc
import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from servers.cli_harness import FAST, run, run_process

from littleghost_testing._engine import (
    Finding,
    FindingGroup,
    ServerReport,
    ToolReport,
)
from littleghost_testing.cli._output import reproduce, write_junit
from littleghost_testing.cli._progress import Progress
from littleghost_testing.fake_server import FakeMCPServer

DEMO = "littleghost_testing.demo_server"


def test_the_demo_server_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", f"{DEMO}:server", *FAST)
    assert code == 0
    rows = [line.split()[:4] for line in out.splitlines()[:4]]
    assert rows[0] == ["tool", "calls", "ok/isError/rpc", "violations"]
    assert [row[0] for row in rows[1:]] == ["help_center_lookup", "order_status", "refund_quote"]
    assert out.splitlines()[-1].startswith("3 tools (3 checked, 0 skipped), ")
    assert re.fullmatch(
        r"3 tools \(3 checked, 0 skipped\), 2 resources \(2 read\), 1 prompt \(1 got\): "
        r"0 violations, 0 warnings in \d+ calls, 2 reads, 2 gets: passed",
        out.splitlines()[-1],
    )
    assert err.splitlines()[0] == f"checking {DEMO}:server: 3 of 3 tools"
    assert [line.split(":")[0] for line in err.splitlines()[1:]] == [
        "  help_center_lookup",
        "  order_status",
        "  refund_quote",
        "  resource help",
        "  resource template help",
        "  prompt answer_customer",
    ]
    assert gc.get_freeze_count() == 0  # frozen only while the run lasts


def test_the_faulty_demo_fails_with_json_and_junit_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    code, out, _ = run(
        capsys,
        "check",
        f"{DEMO}:faulty",
        "--allow-side-effects",
        *FAST,
        "--json",
        str(report),
        "--junit-xml",
        str(junit),
    )
    assert code == 1
    assert "create_ticket: accepted_invalid (violation), breaks " in out
    data = json.loads(report.read_text())
    # Distinct findings, then the calls: one bug seen in many calls is one violation.
    calls = sum(tool["calls"] for tool in data["tools"])
    assert data["distinct_violations"] < data["violation_count"]
    assert out.splitlines()[-1] == (
        f"3 tools (3 checked, 0 skipped): {data['distinct_violations']} violations, "
        f"{data['distinct_warnings']} warnings in {calls} calls: FAILED"
    )

    assert data["passed"] is False and data["options"]["examples"] == 3
    tools = {tool["name"]: tool for tool in data["tools"]}
    assert tools["lookup"]["violation_count"] == 0
    assert {group["kind"] for group in tools["create_ticket"]["findings"]} >= {"accepted_invalid"}
    assert "output_schema" in {group["kind"] for group in tools["order_status"]["findings"]}
    assert data["violation_count"] == sum(tool["violation_count"] for tool in data["tools"])
    for tool in data["tools"]:
        assert tool["called"] is True and tool["reason"]
        assert set(tool["answers"]) == {
            "success",
            "is_error",
            "jsonrpc_error",
            "reads_as_error",
            "hollow",
            "worked",
        }
        answers = tool["answers"]
        refused = answers["reads_as_error"] + answers["hollow"]
        assert answers["worked"] == answers["success"] - refused
        for finding in tool["findings"]:
            assert {"kind", "valid", "keyword", "path", "input", "duration"} <= set(finding)

    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and root.get("failures") == "2"
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"lookup", "create_ticket", "order_status"}
    assert cases["lookup"].find("failure") is None
    failure = cases["create_ticket"].find("failure")
    assert failure is not None and failure.get("type") == "ContractViolation"
    assert "accepted_invalid" in (failure.text or "")
    assert "reproduce: littleghost call" in (failure.text or "")


def test_junit_xml_stays_well_formed_whatever_the_fuzzed_input_holds(tmp_path: Path) -> None:
    odd = "nul\x00 noncharacter\ufffe surrogate\ud800 fine\u00e9"
    finding = Finding(
        "accepted_invalid", False, "type", "$.text", {"text": odd}, "a refusal", odd, 0.1
    )
    tool = ToolReport("echo", reason="annotated readOnlyHint: true", valid_calls=1)
    tool.groups.append(FindingGroup(finding, 1))
    skipped = ToolReport("wipe", called=False, reason="annotated destructiveHint: true")
    report = ServerReport("odd\x01server", tools=[tool, skipped])
    junit = tmp_path / "junit.xml"
    write_junit(report, junit, reproduce(lambda *middle: ["x:y", *middle]))
    root = ET.parse(junit).getroot()
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None
    assert "nul\\u0000 noncharacter\\ufffe surrogate\\ud800 fine\u00e9" in failure.text
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "littleghost check odd\\u0001server"
    assert suite.get("skipped") == "1"
    skip = root.find("testsuite/testcase[@name='wipe']/skipped")
    assert skip is not None and skip.get("message") == "annotated destructiveHint: true"


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _without_timings(item)
            for key, item in value.items()
            if key not in ("elapsed", "duration")
        }
    if isinstance(value, list):
        return [_without_timings(item) for item in value]
    return value


def test_the_same_seed_gives_the_same_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    reports = []
    for name in ("a.json", "b.json"):
        path = tmp_path / name
        # A budget no run reaches: shrinking cut short by a slow machine would send fewer calls.
        argv = [f"{DEMO}:faulty", "--allow-side-effects", "--examples", "3"]
        argv += ["--shrink-budget", "60", "--seed", "3", "--json", str(path)]
        run(capsys, "check", *argv)
        reports.append(_without_timings(json.loads(path.read_text())))
    assert reports[0] == reports[1]


def test_server_faults_are_violations(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    argv = ["cli_targets:faults", "--allow-side-effects", *FAST, "--timeout", "0.2"]
    code, _, _ = run(capsys, "check", *argv, "--json", str(report))
    assert code == 1
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert "jsonrpc_error" in {group["kind"] for group in tools["broken"]["findings"]}
    assert tools["broken"]["answers"]["jsonrpc_error"] == tools["broken"]["valid_calls"]
    stuck = tools["stuck"]
    assert "timeout" in {group["kind"] for group in stuck["findings"]}
    # A timed-out tool is not called again: one call, one finding, a note on more time.
    assert stuck["violation_count"] == stuck["calls"] == 1
    assert stuck["notes"] == [
        "stopped early: a call took over 0.2 s "
        "(more time: --tool-timeout NAME=SECONDS, or tool_timeouts)"
    ]


def test_a_crash_stops_that_tool_and_the_next_one_reconnects(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    argv = ["cli_targets:crashing", "--allow-side-effects", *FAST, "--json", str(report)]
    code, _, err = run(capsys, "check", *argv)
    assert code == 1
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert [group["kind"] for group in tools["crashy"]["findings"]] == ["crash"]
    assert tools["crashy"]["calls"] == 1
    assert tools["order"]["violation_count"] == 0 and tools["order"]["calls"] == 15
    assert "  order: 15 calls, 0 violations, 0 warnings" in err


def test_tool_names_that_collide_once_made_model_safe_are_a_catalog_violation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, err = run(capsys, "check", "cli_targets:colliding", "--json", str(report))
    assert code == 1
    assert "Traceback" not in err
    # Issue 29.4: the catalog's own finding is no tool the server listed.
    assert out.splitlines()[-1] == (
        "0 tools (0 checked, 0 skipped): 1 violation, 0 warnings in 0 calls: FAILED"
    )
    (tool,) = json.loads(report.read_text())["tools"]
    assert tool["name"] == "(tools/list)"
    (finding,) = tool["findings"]
    assert finding["kind"] == "malformed_catalog"
    assert "Tool name collision: a_b" in finding["observed"]


def test_a_tool_whose_schema_cannot_be_used_is_a_violation_and_the_others_are_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, err = run(capsys, "check", "cli_targets:partly_broken", *FAST, "--json", str(report))
    assert code == 1
    assert "Traceback" not in err
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert set(tools) == {"(tools/list)", "lookup"}
    (finding,) = tools["(tools/list)"]["findings"]
    assert finding["kind"] == "malformed_catalog"
    assert finding["observed"].startswith("InvalidSchema(\"MCP tool 'fetches' has an invalid")
    assert "https://example.com/s.json" in finding["observed"]
    assert tools["lookup"]["calls"] > 0 and tools["lookup"]["violation_count"] == 0
    assert "(tools/list): malformed_catalog (violation): InvalidSchema(" in out
    assert out.splitlines()[-1].startswith("1 tool (1 checked, 0 skipped): 1 violation, ")


def test_a_stdio_server(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--allow-side-effects", *FAST, "--", sys.executable, "-m", DEMO, "faulty"]
    code, out, _ = run(capsys, "check", *argv)
    assert code == 1
    assert "create_ticket: accepted_invalid" in out


@pytest.fixture
def http_server() -> Iterator[FakeMCPServer]:
    server = FakeMCPServer("http-demo")

    @server.tool(description="Look up a help center entry.", annotations={"readOnlyHint": True})
    def lookup(topic: str) -> str:
        return f"About {topic}: refunds within 30 days."

    yield server
    server.close()


def test_a_streamable_http_server(
    capsys: pytest.CaptureFixture[str], http_server: FakeMCPServer
) -> None:
    code, out, _ = run(capsys, "check", http_server.url, *FAST)
    assert code == 0
    assert out.splitlines()[1].split()[:2] == ["lookup", "15"]
    assert len(http_server.calls) == 15


def test_the_console_script_runs_as_a_module() -> None:
    done = run_process("check", f"{DEMO}:server", *FAST)
    assert done.returncode == 0, done.stderr
    assert "3 tools (3 checked, 0 skipped), 2 resources (2 read), " in done.stdout


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run(capsys, "--version")
    assert exited.value.code == 0
    assert capsys.readouterr().out == "littleghost 0.1.0\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "http://"], "'http://' is not a valid URL"),
        (["check", "http://127.0.0.1:1/mcp"], "cannot connect to http://127.0.0.1:1/mcp: "),
        (["check", "no_such_module_xyz:server"], "cannot import 'no_such_module_xyz'"),
        (["check", "cli_targets:not_a_server"], "is a dict, not an MCP server"),
        (["check", "cli_targets:missing"], "has no attribute 'missing'"),
        (["check", "--", "/nonexistent/mcp-server"], "could not start the server process"),
        (["check", "ftp.example"], "is not a URL (http://, https://) or module:attribute"),
        (["check"], "give a TARGET"),
        (["check", "x:y", "--examples", "0"], "expected a positive integer, got '0'"),
        (["check", "x:y", "--", "cmd"], "give either TARGET or -- COMMAND ARGS, not both"),
        (["check", "x:y", "--tool-timeout", "slow"], "expected NAME=SECONDS, got 'slow'"),
        (["check", "x:y", "--inputs", "/nonexistent.json"], "cannot read --inputs"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_usage_and_connection_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("littleghost: error: ") and message in err


@pytest.mark.parametrize(
    "argv",
    [["check", "no_such_module_xyz:server"], ["check", "--", "/nonexistent/mcp-server"]],
)
def test_errors_in_a_real_process_print_one_line_and_no_traceback(argv: list[str]) -> None:
    done = run_process(*argv)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_discovery_timeout_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "cli_targets:silent", "--timeout", "0.3")
    assert (code, out) == (2, "")
    assert err == (
        "littleghost: error: cannot connect to cli_targets:silent: "
        "no answer within 0.3 s (--timeout)\n"
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_is_a_live_display() -> None:
    terminal = _Terminal()
    report = ToolReport("lookup", reason="annotated readOnlyHint: true", valid_calls=1)
    with Progress(1, quiet=False, stream=terminal) as progress:
        progress.started("lookup")
        progress.called("lookup")
        progress.finished(report)
    shown = terminal.getvalue()
    assert "checking: 0/1 tools done, 0 findings" in shown
    assert "  lookup: 1 call, 0 violations, 0 warnings (0.0 s)" in shown
    plain = io.StringIO()
    with Progress(1, quiet=False, stream=plain) as progress:
        progress.finished(report)
    assert plain.getvalue() == "  lookup: 1 call, 0 violations, 0 warnings (0.0 s)\n"
