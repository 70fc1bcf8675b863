"""``littleghost check``, run for real: in-process, over stdio and over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from littleghost_testing.cli import main
from littleghost_testing.cli.findings import Finding, ServerReport, ToolReport
from littleghost_testing.cli.output import write_junit
from littleghost_testing.fake_server import FakeMCPServer

DEMO = "littleghost_testing.demo_server"
HERE = Path(__file__).parent
SUBPROCESS_TIMEOUT = 60


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "littleghost_testing.cli", *argv],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        cwd=HERE,
    )


def test_the_demo_server_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", f"{DEMO}:server", "--examples", "10")
    assert code == 0
    assert out.splitlines()[:4] == [
        "tool                examples  violations",
        "help_center_lookup        20           0",
        "order_status              20           0",
        "refund_quote              20           0",
    ]
    assert out.splitlines()[-1] == "3 tools, 60 examples, 0 violations: no violations"
    assert err.splitlines() == [
        f"checking {DEMO}:server: 3 tools",
        "  help_center_lookup: 20 examples, 0 violations",
        "  order_status: 20 examples, 0 violations",
        "  refund_quote: 20 examples, 0 violations",
    ]


def test_the_faulty_demo_fails_with_json_and_junit_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    code, out, _ = run(
        capsys,
        "check",
        f"{DEMO}:faulty",
        "--examples",
        "10",
        "--json",
        str(report),
        "--junit-xml",
        str(junit),
    )
    assert code == 1
    assert "create_ticket: accepted_invalid" in out
    assert out.splitlines()[-1].endswith("violations: FAILED")

    data = json.loads(report.read_text())
    assert data["passed"] is False and data["examples_per_tool"] == 10
    tools = {tool["name"]: tool for tool in data["tools"]}
    assert tools["lookup"]["violations"] == []
    kinds = {v["kind"] for v in tools["create_ticket"]["violations"]}
    assert kinds == {"accepted_invalid"}
    assert "output_schema" in {v["kind"] for v in tools["order_status"]["violations"]}
    assert data["violation_count"] == sum(t["violation_count"] for t in data["tools"])

    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and root.get("failures") == "2"
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"lookup", "create_ticket", "order_status"}
    assert cases["lookup"].find("failure") is None
    failure = cases["create_ticket"].find("failure")
    assert failure is not None and failure.get("type") == "ContractViolation"
    assert "accepted_invalid" in (failure.text or "")


def test_junit_xml_stays_well_formed_whatever_the_fuzzed_input_holds(tmp_path: Path) -> None:
    tool = ToolReport("echo", examples=1)
    odd = "nul\x00 noncharacter\ufffe surrogate\ud800 fine\u00e9"
    tool.violations.append(Finding("accepted_invalid", {"text": odd}, "a refusal", odd))
    report = ServerReport("odd\x01server", 1, None, 1.0, [tool])
    junit = tmp_path / "junit.xml"
    write_junit(report, junit)
    root = ET.parse(junit).getroot()
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None
    assert "nul\\u0000 noncharacter\\ufffe surrogate\\ud800 fine\u00e9" in failure.text
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "littleghost check odd\\u0001server"


def test_the_same_seed_gives_the_same_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    reports = []
    for name in ("a.json", "b.json"):
        path = tmp_path / name
        run(
            capsys, "check", f"{DEMO}:faulty", "--examples", "5", "--seed", "3", "--json", str(path)
        )
        reports.append(json.loads(path.read_text()))
    assert reports[0] == reports[1]


def test_server_faults_are_violations(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    argv = ["cli_targets:faults", "--examples", "3", "--timeout", "0.2", "--json", str(report)]
    code, _, _ = run(capsys, "check", *argv)
    assert code == 1
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert {v["kind"] for v in tools["broken"]["violations"]} == {"jsonrpc_error"}
    assert {v["kind"] for v in tools["stuck"]["violations"]} == {"timeout"}
    assert tools["stuck"]["violation_count"] == tools["stuck"]["examples"] == 6


def test_a_crash_stops_that_tool_and_the_next_one_reconnects(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, _, err = run(
        capsys, "check", "cli_targets:crashing", "--examples", "3", "--json", str(report)
    )
    assert code == 1
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}
    assert [v["kind"] for v in tools["crashy"]["violations"]] == ["crash"]
    assert tools["crashy"]["examples"] == 1
    assert tools["crashy"]["notes"] == ["stopped after the server crashed"]
    assert tools["order"]["violations"] == [] and tools["order"]["examples"] == 6
    assert "  order: 6 examples, 0 violations" in err.splitlines()


def test_tool_names_that_collide_once_made_model_safe_are_a_catalog_violation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, _, err = run(capsys, "check", "cli_targets:colliding", "--json", str(report))
    assert code == 1
    assert "Traceback" not in err
    (tool,) = json.loads(report.read_text())["tools"]
    assert tool["name"] == "(tools/list)"
    (violation,) = tool["violations"]
    assert violation["kind"] == "malformed_catalog"
    assert "Tool name collision: a_b" in violation["observed"]


def test_a_stdio_server(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "check", "--examples", "3", "--", sys.executable, "-m", DEMO, "faulty"
    )
    assert code == 1
    assert "create_ticket: accepted_invalid" in out


@pytest.fixture
def http_server() -> Iterator[FakeMCPServer]:
    server = FakeMCPServer("http-demo")

    @server.tool(description="Look up a help center entry.")
    def lookup(topic: str) -> str:
        return f"About {topic}: refunds within 30 days."

    yield server
    server.close()


def test_a_streamable_http_server(
    capsys: pytest.CaptureFixture[str], http_server: FakeMCPServer
) -> None:
    code, out, _ = run(capsys, "check", http_server.url, "--examples", "5")
    assert code == 0
    assert out.splitlines()[1].split() == ["lookup", "10", "0"]
    assert len(http_server.calls) == 10


def test_the_console_script_runs_as_a_module() -> None:
    done = run_process("check", f"{DEMO}:server", "--examples", "2")
    assert done.returncode == 0, done.stderr
    assert "3 tools, 12 examples, 0 violations: no violations" in done.stdout


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
