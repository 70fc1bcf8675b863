"""``littleghost check`` reads resources, resource templates and prompts (issue 21, point 4).

Each finding kind has a server broken in exactly that way; correct resources
and prompts, on a ``FakeMCPServer`` and on a plain SDK ``MCPServer``, give none.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp
import pytest
from mcp.server.lowlevel import Server
from mcp_types import (
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    ReadResourceRequestParams,
    ReadResourceResult,
    ResourceTemplate,
    TextResourceContents,
)
from servers.cli_harness import FAST, run
from servers.read_servers import sdk_broken, sdk_good, shelf, unannotated
from servers.read_sessions import tool_session

import littleghost.mcp
from littleghost.mcp import Toolset
from littleghost_testing._engine import (
    FuzzOptions,
    ServerReport,
    ToolReport,
    _reads,
    check_reads,
    list_reads,
)
from littleghost_testing._engine._uri_templates import expand, variables
from littleghost_testing._server_fuzzing import from_target
from littleghost_testing.fake_server import (
    Crash,
    Hang,
    JsonRpcError,
    Malformed,
    Oversized,
)

pytestmark = pytest.mark.anyio

OPTIONS = FuzzOptions(timeout=5)
# What the 2026-07-28 protocol requires of a read's result besides its contents.
CACHE = {"ttlMs": 0, "cacheScope": "private", "resultType": "complete"}
PY_TRACE = 'Traceback (most recent call last):\n  File "/srv/shelf.py", line 7, in read'


async def _checked(
    connect: Callable[[], mcp.Client], options: FuzzOptions = OPTIONS
) -> ServerReport:
    report = ServerReport("test")
    async with tool_session(connect, options.timeout) as session:
        await check_reads(session, options, report)
    return report


def _by_name(report: ServerReport) -> dict[str, ToolReport]:
    return {item.name: item for item in [*report.resources, *report.prompts]}


def _kinds(item: ToolReport) -> list[str]:
    return [group.example.kind for group in item.groups]


# -- the engine, on a FakeMCPServer ----------------------------------------------------------


async def test_correct_resources_templates_and_prompts_give_no_finding() -> None:
    fake = shelf()
    report = await _checked(fake.client)
    items = _by_name(report)
    assert list(items) == [
        "file:///readme.txt",
        "file:///broken.txt",
        "file:///logs/{day}",
        "ask",
        "odd",
    ]
    assert [item.subject for item in items.values()] == [
        "resource",
        "resource",
        "resource template",
        "prompt",
        "prompt",
    ]
    assert report.violation_count == 0 and report.warning_count == 0
    assert all(item.called and item.answers.success for item in items.values())
    # The prompt is got with its required argument only, then with every argument.
    gets = [request.params for request in fake.requests if request.method == "prompts/get"]
    assert [get["arguments"] for get in gets if get["name"] == "ask"] == [
        {"question": "example"},
        {"question": "example", "tone": "example"},
    ]
    # The template is read at the URI its first completion value makes.
    reads = [
        request.params["uri"] for request in fake.requests if request.method == "resources/read"
    ]
    assert "file:///logs/2026-01-01" in reads


async def test_a_resource_answering_a_json_rpc_error_is_a_violation() -> None:
    fake = shelf()
    fake.fault_resource("file:///broken.txt", JsonRpcError(-32603, "Internal error"))
    items = _by_name(await _checked(fake.client))
    broken = items["file:///broken.txt"]
    assert _kinds(broken) == ["jsonrpc_error", "unexercised"]
    assert broken.groups[0].example.input == "file:///broken.txt"
    assert broken.groups[0].example.observed == "JSON-RPC error -32603: Internal error"
    assert _kinds(items["file:///readme.txt"]) == []


async def test_an_error_text_with_a_stack_trace_is_a_leak() -> None:
    fake = shelf()
    fake.fault_resource("file:///broken.txt", JsonRpcError(-32603, PY_TRACE))
    broken = _by_name(await _checked(fake.client))["file:///broken.txt"]
    assert _kinds(broken) == ["leaked_error_detail", "jsonrpc_error", "unexercised"]
    assert broken.groups[0].example.observed.startswith("a Python stack trace")
    assert "withheld: it leaks" in broken.groups[1].example.observed


async def test_resource_contents_that_break_the_mcp_types_are_malformed() -> None:
    fake = shelf()
    fake.fault_resource(
        "file:///broken.txt", Malformed({**CACHE, "contents": [{"uri": "file:///broken.txt"}]})
    )
    broken = _by_name(await _checked(fake.client))["file:///broken.txt"]
    assert _kinds(broken) == ["malformed_contents", "unexercised"]
    assert "contents.0" in broken.groups[0].example.observed


async def test_a_blob_that_is_not_base64_is_malformed() -> None:
    fake = shelf()
    blob = {"uri": "file:///broken.txt", "blob": "not base64!"}
    fake.fault_resource("file:///broken.txt", Malformed({**CACHE, "contents": [blob]}))
    broken = _by_name(await _checked(fake.client))["file:///broken.txt"]
    assert broken.groups[0].example.kind == "malformed_contents"
    assert broken.groups[0].example.observed == "contents[0].blob is not valid base64"


async def test_a_prompt_message_that_does_not_parse_is_malformed() -> None:
    fake = shelf()
    message = {"role": "robot", "content": {"type": "text", "text": "beep"}}
    fake.fault_prompt("odd", Malformed({"messages": [message]}))
    items = _by_name(await _checked(fake.client))
    odd = items["odd"]
    assert _kinds(odd) == ["malformed_contents", "unexercised"]
    assert odd.groups[0].example.input == {}
    assert "messages.0.role" in odd.groups[0].example.observed
    assert _kinds(items["ask"]) == []


async def test_a_prompt_image_that_is_not_base64_is_malformed() -> None:
    fake = shelf()
    image = {"type": "image", "data": "%%%", "mimeType": "image/png"}
    message = {"role": "user", "content": image}
    fake.fault_prompt("odd", Malformed({"resultType": "complete", "messages": [message]}))
    odd = _by_name(await _checked(fake.client))["odd"]
    assert odd.groups[0].example.observed == "messages[0].content.data is not valid base64"


async def test_a_read_without_an_answer_times_out_and_the_next_one_reconnects() -> None:
    fake = shelf()
    fake.fault_resource("file:///readme.txt", Hang())
    report = await _checked(fake.client, FuzzOptions(timeout=0.3))
    items = _by_name(report)
    assert _kinds(items["file:///readme.txt"]) == ["timeout", "unexercised"]
    assert items["file:///broken.txt"].answers.success == 1
    assert fake.sessions_opened == 2


async def test_a_crash_during_a_read_is_a_crash_and_reading_goes_on() -> None:
    fake = shelf()
    fake.fault_resource("file:///broken.txt", Crash())
    items = _by_name(await _checked(fake.client))
    broken = items["file:///broken.txt"]
    assert _kinds(broken) == ["crash"] and broken.crashed
    assert items["ask"].answers.success == 2


async def test_refused_generated_values_are_only_unexercised() -> None:
    fake = shelf()
    fake.fault_resource("file:///logs/{day}", JsonRpcError(-32602, "no such day"))
    logs = _by_name(await _checked(fake.client))["file:///logs/{day}"]
    assert logs.calls == 3  # two completion values, then one generated value
    assert _kinds(logs) == ["unexercised"]
    assert logs.groups[0].example.severity == "warning"
    assert logs.groups[0].example.observed.startswith("no read of 3 succeeded (3 JSON-RPC errors")


async def test_any_refusal_of_made_up_values_is_only_unexercised() -> None:
    # mcp 1.x's FastMCP words a prompt's refusal of a made-up project name this way, code 0.
    refusal = "Error rendering prompt ask: Project 'example' not found"
    fake = shelf()
    fake.fault_prompt("ask", JsonRpcError(0, refusal))
    ask = _by_name(await _checked(fake.client))["ask"]
    assert ask.calls == 6  # three values for the required argument, three for both
    assert _kinds(ask) == ["unexercised"]
    [group] = ask.groups
    assert group.example.severity == "warning"
    assert f'the first answered "{refusal}"' in group.example.observed
    assert 'give values that work with --inputs ("prompt:ask")' in group.example.observed


async def test_the_same_error_for_values_the_user_gave_is_a_violation() -> None:
    fake = shelf()
    fake.fault_prompt("ask", JsonRpcError(0, "Error rendering prompt ask: no such project"))
    given = FuzzOptions(timeout=5, inputs={"prompt:ask": [{"question": "mine"}]})
    ask = _by_name(await _checked(fake.client, given))["ask"]
    assert _kinds(ask) == ["jsonrpc_error", "unexercised"]
    assert ask.groups[0].example.input == {"question": "mine"}
    gets = [r.params.get("arguments") for r in fake.requests if r.method == "prompts/get"]
    assert gets[0] == {"question": "mine"}  # the user's values first


async def test_values_the_user_gave_are_read_first_and_count_as_an_answer() -> None:
    fake = shelf()
    given = FuzzOptions(
        timeout=5,
        inputs={
            "resource:file:///logs/{day}": [{"day": "2025-12-31"}],
            "prompt:ask": [{"question": "why?", "tone": "dry"}],
        },
    )
    report = await _checked(fake.client, given)
    assert report.violation_count == 0 and report.warning_count == 0 and report.notes == []
    reads = [r.params["uri"] for r in fake.requests if r.method == "resources/read"]
    assert reads.index("file:///logs/2025-12-31") < reads.index("file:///logs/2026-01-01")
    gets = [r.params.get("arguments") for r in fake.requests if r.method == "prompts/get"]
    assert gets[0] == {"question": "why?", "tone": "dry"}


async def test_inputs_for_a_prompt_or_template_not_listed_are_noted() -> None:
    given = FuzzOptions(timeout=5, inputs={"prompt:asc": [{}], "resource:file:///log/{d}": []})
    report = await _checked(shelf().client, given)
    assert report.notes == [
        "inputs for 'prompt:asc' not used: prompts/list does not list it",
        "inputs for 'resource:file:///log/{d}' not used: resources/templates/list does not list it",
    ]


def test_inputs_for_prompts_and_templates_must_be_strings() -> None:
    with pytest.raises(TypeError, match=r"inputs\['prompt:ask'\]\[0\]\['n'\] must be a string"):
        FuzzOptions(inputs={"prompt:ask": [{"n": 1}]})
    assert FuzzOptions(inputs={"prompt:ask": [{}]}).unknown_tools(set(), {}) is None


async def test_values_in_listed_uris_are_tried_before_made_up_ones() -> None:
    fake = shelf()

    @fake.resource("file:///logs/2024-05-05")
    def old_log() -> str:
        return "an old log"

    @fake.prompt()
    def recap(day: str) -> str:
        return f"recap of {day}"

    async with tool_session(fake.client, OPTIONS.timeout) as session:
        listed = await list_reads(session, OPTIONS)
    planned = {item.name: item.inputs for item in listed.reads}
    # The listing offers 2024-05-05 for {day}; then come the completions.
    assert planned["file:///logs/{day}"] == (
        "file:///logs/2024-05-05",
        "file:///logs/2026-01-01",
        "file:///logs/2026-01-02",
    )
    assert planned["recap"][0] == {"day": "2024-05-05"}


async def test_a_broken_listing_is_a_finding_and_prompts_are_still_read() -> None:
    fake = shelf()
    fake.fault_request("resources/list", Malformed({"resources": [{"name": "no uri"}]}))
    report = await _checked(fake.client)
    assert [item.name for item in report.resources] == [
        "(resources/list)",
        "file:///logs/{day}",
    ]
    assert _kinds(report.resources[0]) == ["malformed_catalog"]
    assert [item.name for item in report.prompts] == ["ask", "odd"]


async def test_an_endless_listing_is_a_broken_listing() -> None:
    fake = shelf()
    fake.fault_request("prompts/list", Malformed({**CACHE, "prompts": [], "nextCursor": "again"}))
    report = await _checked(fake.client)
    [listing] = report.prompts
    assert listing.name == "(prompts/list)" and _kinds(listing) == ["malformed_catalog"]
    assert "repeated pagination cursor" in listing.groups[0].example.observed


async def test_a_run_told_to_stop_reads_nothing_and_says_why() -> None:
    fake = shelf()
    report = ServerReport("test")
    async with tool_session(fake.client, OPTIONS.timeout) as session:
        await check_reads(session, OPTIONS, report, should_stop=lambda: True)
    items = [*report.resources, *report.prompts]
    assert len(items) == 5 and not any(item.called for item in items)
    assert {item.reason for item in items} == {"not reached: the run stopped early"}
    assert [request.method for request in fake.requests].count("resources/read") == 0


async def test_reads_over_streamable_http() -> None:
    async with shelf() as fake:
        fake.fault_resource("file:///broken.txt", JsonRpcError(-32603, "Internal error"))
        report = await _checked(lambda: fake.client("http"))
    items = _by_name(report)
    assert _kinds(items["file:///broken.txt"]) == ["jsonrpc_error", "unexercised"]
    assert [
        item.answers.success for name, item in items.items() if name != "file:///broken.txt"
    ] == [
        1,
        1,
        2,
        1,
    ]


async def test_a_result_over_max_result_bytes_is_malformed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Toolset, "max_result_bytes", 4096)
    fake = shelf()
    fake.fault_resource("file:///broken.txt", Oversized(8192, kind="text"))
    broken = _by_name(await _checked(fake.client))["file:///broken.txt"]
    assert broken.groups[0].example.kind == "malformed_result"
    assert "over max_result_bytes (4096)" in broken.groups[0].example.observed


async def test_reads_are_bounded_by_max_read_subjects(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_reads, "MAX_READ_SUBJECTS", 1)
    report = await _checked(shelf().client)
    assert [item.name for item in report.resources] == ["file:///readme.txt", "file:///logs/{day}"]
    assert [item.name for item in report.prompts] == ["ask"]
    assert report.notes == [
        "only the first 1 resources were read (MAX_READ_SUBJECTS)",
        "only the first 1 prompts were read (MAX_READ_SUBJECTS)",
    ]


async def test_resources_and_prompts_can_be_left_out() -> None:
    fake = shelf()
    report = await _checked(fake.client, FuzzOptions(timeout=5, resources=False))
    assert report.resources == [] and len(report.prompts) == 2
    report = await _checked(fake.client, FuzzOptions(timeout=5, prompts=False))
    assert len(report.resources) == 3 and report.prompts == []


# -- the engine, on a real SDK MCPServer -----------------------------------------------------


async def test_a_correct_sdk_server_gives_no_finding() -> None:
    report = await _checked(lambda: littleghost.mcp.client(sdk_good))
    items = _by_name(report)
    assert list(items) == [
        "docs://readme",
        "docs://logo",
        "docs://books/{book_id}",
        "summarize",
        "hello",
    ]
    assert report.violation_count == 0 and report.warning_count == 0
    assert items["docs://books/{book_id}"].answers.success == 1


async def test_a_broken_sdk_resource_and_prompt_are_violations() -> None:
    report = await _checked(lambda: littleghost.mcp.client(sdk_broken))
    items = _by_name(report)
    # A listed resource's read: MCPServer's "Error reading resource URI" is its crash report.
    assert _kinds(items["docs://index"]) == ["unhandled_exception", "unexercised"]
    # Made-up arguments: MCPServer words a typed argument's refusal as it words a crash,
    # so a made-up value that never worked tells only that the prompt went unexercised.
    assert _kinds(items["review"]) == ["unexercised"]
    assert _kinds(items["docs://readme"]) == [] and _kinds(items["greet"]) == []


def _pages_server() -> Server:
    """A low-level ``Server`` whose template crashes on a page that is not digits."""
    template = ResourceTemplate(uri_template="pages://{number}", name="page")

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[])  # the tools' connection discovers tools first

    async def list_resources(ctx: Any, params: Any) -> ListResourcesResult:
        return ListResourcesResult(resources=[])

    async def list_templates(ctx: Any, params: Any) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=[template])

    async def read(ctx: Any, params: ReadResourceRequestParams) -> ReadResourceResult:
        number = int(str(params.uri).removeprefix("pages://"))  # ValueError on "example"
        text = TextResourceContents(uri=str(params.uri), text=f"page {number}")
        return ReadResourceResult(contents=[text])

    return Server(
        "pages",
        on_list_tools=list_tools,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read,
    )


async def test_a_crash_on_one_made_up_value_is_found_though_another_value_works() -> None:
    pages = _by_name(await _checked(lambda: littleghost.mcp.client(_pages_server())))
    page = pages["pages://{number}"]
    assert page.answers.success == 1 and page.valid_calls == 2  # "example" crashed, "1" read
    assert _kinds(page) == ["unhandled_exception"]
    assert page.groups[0].example.input == "pages://example"
    assert page.groups[0].example.observed == (
        "JSON-RPC error -32603, the MCP Python SDK 2.x (an unhandled exception, its text "
        "withheld): Internal server error"
    )


async def test_a_crash_report_is_found_whatever_the_round_and_a_refusal_is_not() -> None:
    crash_text = "invalid literal for int() with base 10: 'example'"
    fake = shelf()
    fake.fault_resource("file:///logs/{day}", JsonRpcError(0, crash_text))  # FastMCP's code
    logs = _by_name(await _checked(fake.client))["file:///logs/{day}"]
    assert _kinds(logs) == ["unhandled_exception", "unexercised"]
    assert logs.groups[0].count == 3  # every value, not once for the round
    # The same text under "invalid params" is the server refusing the value on purpose.
    fake.fault_resource("file:///logs/{day}", JsonRpcError(-32602, crash_text))
    logs = _by_name(await _checked(fake.client))["file:///logs/{day}"]
    assert _kinds(logs) == ["unexercised"]


async def test_listing_names_what_would_be_read_and_sends_no_read() -> None:
    fake = shelf()
    async with tool_session(fake.client, OPTIONS.timeout) as session:
        listed = await list_reads(session, OPTIONS)
    assert [(item.subject, item.name, item.inputs) for item in listed.reads] == [
        ("resource", "file:///readme.txt", ("file:///readme.txt",)),
        ("resource", "file:///broken.txt", ("file:///broken.txt",)),
        (
            "resource template",
            "file:///logs/{day}",
            ("file:///logs/2026-01-01", "file:///logs/2026-01-02", "file:///logs/example"),
        ),
        (
            "prompt",
            "ask",
            (
                {"question": "example"},
                {"question": "1"},
                {"question": "test"},
                {"question": "example", "tone": "example"},
                {"question": "1", "tone": "1"},
                {"question": "test", "tone": "test"},
            ),
        ),
        ("prompt", "odd", ({},)),
    ]
    assert listed.listings == [] and listed.notes == []
    sent = {request.method for request in fake.requests}
    assert not sent & {"resources/read", "prompts/get"}


async def test_a_broken_listing_is_named_in_the_plan() -> None:
    fake = shelf()
    fake.fault_request("prompts/list", JsonRpcError(-32603, "Internal error"))
    async with tool_session(fake.client, OPTIONS.timeout) as session:
        listed = await list_reads(session, OPTIONS)
    [listing] = listed.listings
    assert listing.name == "(prompts/list)" and _kinds(listing) == ["malformed_catalog"]
    assert [item.subject for item in listed.reads] == ["resource"] * 2 + ["resource template"]


# -- URI templates ---------------------------------------------------------------------------


def test_uri_templates_expand_every_operator() -> None:
    values = {"a": "x y", "b": "1/2", "c": "v"}
    assert variables("s://{a}/{+b}{?c,a}{#a}") == ["a", "b", "c"]
    assert expand("s://{a}/{+b}", values) == "s://x%20y/1/2"
    assert expand("s://r{?c,a}", values) == "s://r?c=v&a=x%20y"
    assert expand("s://r{/c,b}{.c}{;c}{&c}{#b}", values) == "s://r/v/1%2F2.v;c=v&c=v#1/2"
    assert expand("s://{a:1}{missing}", values) == "s://x"


# -- the command line ------------------------------------------------------------------------


SHELF = "servers.read_servers:shelf_server"


def test_check_reports_resources_and_prompts_in_the_table_json_and_junit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report_path, junit_path = tmp_path / "r.json", tmp_path / "r.xml"
    argv = ["servers.read_servers:sdk_broken", *FAST, "--json", str(report_path)]
    code, out, _ = run(capsys, "check", *argv, "--junit-xml", str(junit_path))
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == (
        "0 tools (0 checked, 0 skipped), 2 resources (1 read), 2 prompts (1 got): "
        "1 violation, 2 warnings in 0 calls, 2 reads, 4 gets: FAILED"
    )
    assert "docs://index: unhandled_exception (violation): 1 of 1 read" in lines
    assert "  uri:       docs://index" in lines
    # Each finding's own repro: `littleghost read`, for a resource.
    assert [line for line in lines if "reproduce:" in line] == [
        "  reproduce: littleghost read servers.read_servers:sdk_broken docs://index"
    ]
    report = json.loads(report_path.read_text())
    assert [item["name"] for item in report["resources"]] == ["docs://readme", "docs://index"]
    assert [item["subject"] for item in report["prompts"]] == ["prompt", "prompt"]
    assert report["distinct_violations"] == 1 and not report["passed"]
    cases = ET.parse(junit_path).getroot().iter("testcase")
    failed = {case.get("name"): case.find("failure") is not None for case in cases}
    assert failed == {"docs://readme": False, "docs://index": True, "review": False, "greet": False}


def test_check_of_a_server_with_tools_resources_and_prompts_passes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "check", SHELF, *FAST)
    assert code == 0
    assert out.splitlines()[-1] == (
        "0 tools (0 checked, 0 skipped), 3 resources (3 read), 2 prompts (2 got): "
        "0 violations, 0 warnings in 0 calls, 3 reads, 3 gets: passed"
    )


def test_reads_do_not_pass_a_server_whose_every_tool_was_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 29.4: a resource read or a prompt got is no check of tools never called."""
    assert unannotated.name == "shelf-unannotated"
    code, out, err = run(capsys, "check", "servers.read_servers:unannotated", *FAST)
    assert code == 5
    assert out.splitlines()[-1] == (
        "2 tools (0 checked, 2 skipped), 1 resource (1 read), 1 prompt (1 got): "
        "0 violations, 0 warnings in 0 calls, 1 read, 1 get: nothing checked: 0 of 2 tools called"
    )
    assert err.splitlines()[-1] == (
        "littleghost: nothing checked: all 2 tools were skipped (see the reasons above)"
    )
    code, _, _ = run(capsys, "check", "--dry-run", "servers.read_servers:unannotated")
    assert code == 5
    code, out, _ = run(capsys, "check", "servers.read_servers:unannotated", "--allow-side-effects")
    assert code == 0 and out.splitlines()[-1].endswith(": passed")


def test_no_resources_and_no_prompts_leave_them_out(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", SHELF, "--no-resources", "--no-prompts")
    assert code == 5
    assert out.splitlines()[-1].endswith("in 0 calls: nothing checked")
    assert "nothing checked" in err
    code, out, _ = run(capsys, "check", SHELF, "--no-prompts")
    assert code == 0 and "3 resources (3 read)" in out and "prompt" not in out.splitlines()[-1]


# -- the pytest route ------------------------------------------------------------------------


def _cases(fuzzed: Any) -> dict[str, Any]:
    [parametrized] = fuzzed.parametrize().mark.args[1:]
    return {param.id: param.values[0] for param in parametrized}


def test_from_target_makes_an_item_per_resource_template_and_prompt() -> None:
    fake = shelf()
    fake.fault_prompt("odd", Malformed({"messages": [{"role": "robot", "content": {}}]}))
    fuzzed = from_target(fake, examples=3)
    try:
        cases = _cases(fuzzed)
        assert list(cases) == [
            "resource:file:///readme.txt",
            "resource:file:///broken.txt",
            "resource:file:///logs/{day}",
            "prompt:ask",
            "prompt:odd",
        ]
        assert cases["resource:file:///logs/{day}"].check().answers.success == 1
        with pytest.raises(pytest.fail.Exception) as failure:
            cases["prompt:odd"].check()
        assert str(failure.value).startswith("prompt odd on FakeMCPServer 'shelf': 1 violation")
        assert "odd: malformed_contents (violation): 1 of 1 get" in str(failure.value)
    finally:
        fuzzed.close()


def test_from_target_can_leave_resources_and_prompts_out() -> None:
    fuzzed = from_target(shelf(), resources=False, prompts=False)
    try:
        assert _cases(fuzzed) == {}
    finally:
        fuzzed.close()


def test_from_target_takes_inputs_for_prompts_and_templates() -> None:
    fake = shelf()
    fuzzed = from_target(fake, inputs={"prompt:ask": [{"question": "mine?"}]})
    try:
        assert _cases(fuzzed)["prompt:ask"].check().answers.success == 3
        gets = [r.params.get("arguments") for r in fake.requests if r.method == "prompts/get"]
        assert gets[0] == {"question": "mine?"}
    finally:
        fuzzed.close()
