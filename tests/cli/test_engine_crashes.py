"""Crashes on valid input are findings: each server SDK's own crash shape, from real servers."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import mcp
import pytest
from mcp.client.stdio import StdioServerParameters
from servers.cli_harness import run
from servers.engine_harness import connected
from servers.sdk_crashes import python_sdk

from littleghost_testing._engine import FuzzOptions, ToolReport
from littleghost_testing._engine._crashes import reads_as_error

FAST = FuzzOptions(examples=10, timeout=10.0, shrink_budget=5.0)
SERVERS = Path(__file__).parent / "servers" / "sdk_crashes"


def kinds(report: ToolReport) -> dict[str, str]:
    return {group.example.kind: group.example.observed for group in report.groups}


def test_mcpserver_crashes_are_violations_and_deliberate_errors_are_not(
    anyio_backend: str,
) -> None:
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        divide = engine.fuzz("divide", FAST)
        initial = engine.fuzz("initial", FAST)
        lookup = engine.fuzz("lookup", FAST)
        echo = engine.fuzz("echo", FAST)
    (crash,) = [g.example for g in divide.groups if g.example.kind == "unhandled_exception"]
    assert crash.valid and crash.input == {"total": 0, "parts": 0}  # shrunk
    assert crash.observed == (
        "the MCP Python SDK's MCPServer (an unhandled exception): 'Error executing tool divide'"
    )
    assert crash.severity == "violation"
    assert "unhandled_exception" in kinds(initial)
    assert min(g.example.input["name"] for g in initial.groups) == ""
    # A ToolError is the tool's own answer: refused every time, never a crash.
    assert set(kinds(lookup)) == {"unexercised"}
    assert lookup.answers.is_error == lookup.valid_calls > 0
    assert echo.groups == [] and echo.answers.success == echo.valid_calls


def test_a_deliberate_refusal_the_schema_does_not_state_is_a_warning_naming_the_rule(
    anyio_backend: str,
) -> None:
    """Issue 29.2: not a crash, but a schema looser than its tool."""
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        top = engine.fuzz("top", FAST)
    (looser,) = [g.example for g in top.groups if g.example.kind == "schema_looser_than_tool"]
    assert (looser.severity, looser.valid) == ("warning", True)
    assert looser.observed == (
        "the schema lacks maximum: 10 at $.n: the tool refused "
        "'Error executing tool top: n must be at most 10'"
    )
    assert looser.input == {"n": 11}  # shrunk


def test_answers_alike_whatever_the_input_are_no_successes(anyio_backend: str) -> None:
    """Issue 29.1: hollow tools are unexercised; a constant answer that is no error is not."""
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        reports = {
            name: engine.fuzz(name, FAST)
            for name in ("open_document", "slide_count", "query", "health", "echo")
        }
    for name in ("open_document", "slide_count", "query"):
        report = reports[name]
        assert report.answers.success == report.valid_calls > 0
        assert report.answers.worked == 0 and report.unexercised, name
        (group,) = [g for g in report.groups if g.example.kind == "unexercised"]
        assert "; give inputs that work with --inputs FILE" in group.example.observed
    assert reports["open_document"].answers.hollow == reports["open_document"].valid_calls
    assert kinds(reports["open_document"])["unexercised"].endswith(
        'the first answered "Document .docx does not exist"; '
        "give inputs that work with --inputs FILE"
    )
    assert set(kinds(reports["slide_count"])) == {"error_as_success", "unexercised"}
    assert set(kinds(reports["query"])) == {"error_as_success", "unexercised"}
    for name in ("health", "echo"):
        assert reports[name].groups == [], name
        assert reports[name].answers.worked == reports[name].valid_calls > 0


def test_a_list_answer_whose_every_entry_is_a_refusal_is_hollow(anyio_backend: str) -> None:
    """Issue 29.1: per-item failures in one success (filesystem's read_multiple_files);
    entries that vary with the input, one line of each opening with "error", are not."""
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        hollow = engine.fuzz("read_files", FAST)
        control = engine.fuzz("checksums", FAST)
    assert set(kinds(hollow)) == {"unexercised"}
    assert hollow.answers.hollow == hollow.answers.success == hollow.valid_calls > 0
    assert control.groups == []
    assert control.answers.worked == control.valid_calls > 0


def test_an_error_text_the_input_chose_from_the_enum_is_the_tools_output(
    anyio_backend: str,
) -> None:
    """server-everything's get-annotated-message: `messageType: "error"` answers
    `Error: Operation failed` by design; a refusal whatever the choice is still one."""
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        chosen = engine.fuzz("annotated_message", FAST)
        refused = engine.fuzz("notify", FAST)
    assert chosen.groups == []
    assert chosen.answers.reads_as_error == 0 and chosen.answers.worked > 0
    (finding,) = [g.example for g in refused.groups if g.example.kind == "error_as_success"]
    assert finding.input["level"] == "info"


def test_a_refusal_in_the_text_content_beside_structured_content_is_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 29.1: the text a model reads is judged too, not only the structured content."""
    report_path = tmp_path / "report.json"
    argv = ["servers.sdk_crashes.python_sdk:split", "--json", str(report_path)]
    code, _, _ = run(capsys, "check", *argv, "--examples", "3", "--shrink-budget", "1")
    assert code == 0
    (tool,) = json.loads(report_path.read_text())["tools"]
    kinds_found = {finding["kind"]: finding for finding in tool["findings"]}
    assert set(kinds_found) == {"error_as_success", "unexercised"}
    assert kinds_found["error_as_success"]["observed"].startswith(
        'its text opens with "Error:": "Error: table '
    )
    assert tool["answers"]["worked"] == 0


def test_unexercised_quotes_the_first_refusal_and_suggests_inputs(anyio_backend: str) -> None:
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        lookup = engine.fuzz("lookup", FuzzOptions(examples=3, shrink_budget=0.0))
    (group,) = lookup.groups
    assert group.example.observed == (
        f"no valid call of {lookup.valid_calls} succeeded ({lookup.valid_calls} isError, "
        "0 JSON-RPC errors, 0 without an answer); the first answered "
        "\"Error executing tool lookup: order '' not found\"; "
        "give inputs that work with --inputs FILE"
    )


def test_a_success_that_reads_as_an_error_is_a_warning_quoting_it(anyio_backend: str) -> None:
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        report = engine.fuzz("columns", FAST)
    found = {group.example.kind: group for group in report.groups}
    assert set(found) == {"error_as_success", "unexercised"}
    finding = found["error_as_success"].example
    assert finding.severity == "warning"
    assert finding.observed.startswith('"success" is false: {"success":false,"message":"no table')
    assert found["error_as_success"].count == report.valid_calls
    # Answered every time, yet nothing was done: the tool was never exercised.
    assert report.answers.success == report.answers.reads_as_error == report.valid_calls
    assert report.unexercised
    assert found["unexercised"].example.observed.startswith(
        f"no valid call of {report.valid_calls} succeeded (0 isError, 0 JSON-RPC errors, "
        f"{report.valid_calls} successes that read as errors, 0 without an answer); "
        'the first answered "{\\"success\\":false,\\"message\\":\\"no table'
    )
    observed = found["unexercised"].example.observed
    assert observed.endswith("give inputs that work with --inputs FILE")


def test_an_invalid_input_refused_in_a_successs_words_was_not_accepted(
    anyio_backend: str,
) -> None:
    # The server checks types and keys itself and answers {"success": false} without isError.
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.by_hand)) as engine:
        report = engine.fuzz("count", FAST)
    assert report.invalid_calls > 0 and report.answers.success == report.valid_calls
    assert report.groups == []


def test_accepted_invalid_is_shown_on_an_input_whose_success_reads_as_one(
    anyio_backend: str,
) -> None:
    # Every other document answers {"success": false}: "0" for 0 is shown accepted on "report".
    works = {"comments": [{"document": "report", "paragraph": 0}]}
    options = FuzzOptions(examples=10, shrink_budget=5.0, inputs=works)
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.app)) as engine:
        report = engine.fuzz("comments", options)
    accepted = [g.example for g in report.groups if g.example.kind == "accepted_invalid"]
    assert accepted and all(finding.input["document"] == "report" for finding in accepted)
    assert {"type"} <= {finding.keyword for finding in accepted}
    assert all(finding.observed.startswith('a success: {"success":true') for finding in accepted)


def test_a_low_level_server_crash_is_a_jsonrpc_error(anyio_backend: str) -> None:
    with connected(anyio_backend, lambda: mcp.Client(python_sdk.low)) as engine:
        report = engine.fuzz("crashing", FuzzOptions(examples=3, shrink_budget=0.0))
    found = kinds(report)
    assert found["jsonrpc_error"] == "JSON-RPC error -32603: Internal server error"
    assert found["unexercised"].endswith(
        'the first answered "JSON-RPC error -32603: Internal server error"; '
        "give inputs that work with --inputs FILE"
    )


# -- servers written with other SDKs, each run from its own installation ---------------------


def _stdio(command: str, *args: str) -> Callable[[], mcp.Client]:
    parameters = StdioServerParameters(command=command, args=list(args))
    return lambda: mcp.Client(parameters, mode="legacy")


@pytest.fixture(scope="session")
def typescript_sdk(request: pytest.FixtureRequest, typescript_modules: Path) -> Path:
    """A folder with the crash server and the suite's one TypeScript SDK install."""
    home = request.config.cache.mkdir("typescript-sdk")
    modules = home / "node_modules"
    if modules.resolve() != typescript_modules.resolve():
        if modules.is_symlink():  # a link to another clone's install
            modules.unlink()
        else:  # an install of its own, from before the suite shared one
            shutil.rmtree(modules, ignore_errors=True)
        modules.symlink_to(typescript_modules, target_is_directory=True)
    shutil.copy(SERVERS / "ts_server.mjs", home / "server.mjs")
    return home


def test_fastmcp2_crashes_are_violations(fastmcp_python: str) -> None:
    client = _stdio(fastmcp_python, str(SERVERS / "fastmcp_server.py"))
    with connected("asyncio", client) as engine:
        divide = engine.fuzz("divide", FAST)
        lookup = engine.fuzz("lookup", FAST)
        echo = engine.fuzz("echo", FAST)
    crash = kinds(divide)["unhandled_exception"]
    assert crash == (
        "FastMCP (an unhandled exception): \"Error calling tool 'divide': division by zero\""
    )
    assert set(kinds(lookup)) == {"unexercised"}
    assert echo.groups == []


def test_typescript_sdk_crashes_are_violations(typescript_sdk: Path) -> None:
    node = shutil.which("node")
    assert node is not None
    client = _stdio(node, str(typescript_sdk / "server.mjs"))
    with connected("asyncio", client) as engine:
        shout = engine.fuzz("shout", FAST)
        lookup = engine.fuzz("lookup", FAST)
        echo = engine.fuzz("echo", FAST)
    (crash,) = [g.example for g in shout.groups if g.example.kind == "unhandled_exception"]
    assert crash.input == {"text": ""}
    assert crash.observed.startswith(
        'a JavaScript runtime error: "Cannot read properties of undefined'
    )
    assert set(kinds(lookup)) == {"unexercised"}
    assert echo.groups == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Error: note 'x' could not be read", 'its text opens with "Error:"'),
        ("  error : no such table", 'its text opens with "Error:"'),
        ('{"success": false}', '"success" is false'),
        ({"result": "Error: no such note"}, 'its text opens with "Error:"'),  # MCPServer's wrap
        ("Errors found: 0", None),  # a report about errors is not an error
        ("No error: all fine", None),
    ],
)
def test_which_success_texts_read_as_errors(text: object, why: str | None) -> None:
    assert reads_as_error(text, "tool") == why
