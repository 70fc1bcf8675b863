"""``from_target(...).parametrize()``: a server's tools as pytest items, fuzzed as the CLI does."""

from __future__ import annotations

import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

import littleghost as lg
import littleghost_testing._server_fuzzing  # noqa: F401 - loaded here, not inside pytester runs
from littleghost.mcp import Toolset
from littleghost_testing import FuzzWarning, from_target
from littleghost_testing._targets import TargetError
from littleghost_testing.fake_server import FakeMCPServer

SERVER = """
import os

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

server = MCPServer("help-desk")
BROKEN = os.environ.get("HELP_DESK_BROKEN") == "1"


READ_ONLY = ToolAnnotations(read_only_hint=True)


@server.tool(description="Look up a help center entry.", annotations=READ_ONLY)
def lookup(topic: str) -> str:
    if BROKEN:
        raise ToolError('lookup failed\\n  File "/srv/desk/app.py", line 12, in lookup')
    return f"Refunds about {topic} are available within 30 days."


@server.tool(description="Count the words of a text.", annotations=READ_ONLY)
def count(text: str) -> int:
    return len(text.split())


@server.tool(description="Delete an article.")
def delete(article: int) -> str:
    return "deleted"


if __name__ == "__main__":
    server.run()
"""

USER_TESTS = """
import os
import sys
from pathlib import Path

import littleghost_testing

server = littleghost_testing.from_target(
    [sys.executable, str(Path(__file__).with_name("help_desk.py"))],
    env={"HELP_DESK_BROKEN": os.environ.get("HELP_DESK_BROKEN", "0")},
    examples=5,
)


@server.parametrize()
def test_tool(case):
    assert case.tool_name in ("lookup", "count")
    assert case.annotations == {"readOnlyHint": True}
    report = case.check()
    assert report.calls > 0
"""


def user_project(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(help_desk=SERVER, test_help_desk=USER_TESTS)


def test_a_sound_server_passes_one_item_per_tool_under_xdist(pytester: pytest.Pytester) -> None:
    user_project(pytester)
    result = pytester.runpytest_subprocess("-n", "2", "-v", "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, skipped=1)
    output = result.stdout.str()
    for tool in ("lookup", "count", "delete"):  # ids are the tool names
        assert f"test_help_desk.py::test_tool[{tool}]" in output
    result.stdout.fnmatch_lines(
        [
            "*SKIPPED*delete: not annotated readOnlyHint: true, so it may change state; "
            "allow_side_effects=True includes it",
        ]
    )


def test_a_broken_server_fails_with_the_finding(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_project(pytester)
    monkeypatch.setenv("HELP_DESK_BROKEN", "1")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "lookup")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "lookup on " in output and "help_desk.py: " in output
    result.stdout.fnmatch_lines(
        [
            "*lookup: leaked_error_detail (violation): * of * calls",
            "*  input:     {*",
            "*  expected:  *",
            "*  observed:  *a Python stack frame*",
            "*  reproduce: littleghost call lookup *",
        ]
    )
    assert "Traceback" not in output  # the finding, not a stack of pytest frames


fake = FakeMCPServer("in-process")


@fake.tool(description="Echo.", annotations={"readOnlyHint": True})
def echo(text: str) -> str:
    return text


@fake.tool(description="Erase.", annotations={"destructiveHint": True})
def erase(text: str) -> str:
    return ""


read_only = FakeMCPServer("read-only")
read_only.tool(description="Echo.", annotations={"readOnlyHint": True})(echo)
in_process = from_target(read_only, examples=3)


@in_process.parametrize()
def test_an_in_process_fake_server(case: object) -> None:
    report = case.check()  # type: ignore[attr-defined]
    assert report.violation_count == 0 and report.calls > 0


def test_side_effects_are_opt_in() -> None:
    server = from_target(fake, allow_side_effects=True, examples=2, include=["e*"])
    mark = server.parametrize()
    [params] = [m.args[1] for m in [mark.mark]]  # type: ignore[attr-defined]
    assert [param.id for param in params] == ["echo", "erase"]
    assert all(not param.marks for param in params)
    server.close()


def test_bad_targets_are_refused() -> None:
    with pytest.raises(TargetError, match="from_target takes a URL"):
        from_target(42)  # type: ignore[arg-type]
    with pytest.raises(TargetError, match="is not a URL"):
        from_target("not a target")
    down = from_target("http://127.0.0.1:1/mcp", timeout=2)
    mark = down.parametrize()  # a server that is down is no error at collection...
    [param] = mark.mark.args[1]
    assert param.id == "unreachable"  # ...but one item that fails with the reason
    [case] = param.values
    assert case.reason.startswith("cannot discover the tools of http://127.0.0.1:1/mcp: ")


DOWN_SERVER_TESTS = """
import sys

import littleghost_testing

down = littleghost_testing.from_target([sys.executable, "-c", "raise SystemExit(3)"], timeout=20)


@down.parametrize()
def test_tool(case):
    assert case.tool_name  # never reached: the item fails before its body runs


def test_unrelated():
    pass
"""


def test_a_server_that_is_down_fails_its_own_item_and_nothing_else(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_down=DOWN_SERVER_TESTS, test_other="def test_other():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_tool[[]unreachable[]] _*",
            "cannot discover the tools of * -c 'raise SystemExit(3)': ConnectionClosed: *",
        ]
    )


class DeskTools(Toolset):
    """A Toolset subclass as the target: its own client, its own mapping."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        return read_only.client()


sdk_server = MCPServer("sdk-desk")


@sdk_server.tool(description="Shout.", annotations=ToolAnnotations(read_only_hint=True))
def shout(text: str) -> str:
    return text.upper()


@pytest.mark.parametrize("target", [DeskTools, sdk_server], ids=["toolset", "mcpserver"])
def test_toolsets_and_sdk_servers_are_targets(target: object) -> None:
    server = from_target(target, examples=3)  # type: ignore[arg-type]
    [param] = server.parametrize().mark.args[1]
    report = param.values[0].check()
    assert (report.called, report.violation_count) == (True, 0)
    assert report.answers.success > 0
    server.close()


planted = MCPServer("planted")


@planted.tool(description="Columns.", annotations=ToolAnnotations(read_only_hint=True))
def columns(table: str) -> dict[str, object]:
    return {"success": False, "message": "no such table"}


@planted.tool(description="Divide.", annotations=ToolAnnotations(read_only_hint=True))
def divide(total: int, parts: int) -> float:
    return total / parts


def _case(server: object, name: str) -> object:
    [parametrized] = server.parametrize().mark.args[1:]  # type: ignore[attr-defined]
    return {param.id: param.values[0] for param in parametrized}[name]


def test_warnings_are_pytest_warnings_or_failures_on_request() -> None:
    shown = from_target(planted, examples=3)
    with pytest.warns(FuzzWarning) as caught:
        report = _case(shown, "columns").check()  # type: ignore[attr-defined]
    shown.close()
    assert report.warning_count > 0 and report.violation_count == 0
    (warning,) = caught
    text = str(warning.message)
    # Every answer reads as an error: the tool was never exercised either.
    assert text.startswith("columns on MCPServer 'planted': 2 warnings in ")
    assert "columns: error_as_success (warning): " in text
    assert "columns: unexercised (warning): no valid call of " in text
    assert '  observed:  "success" is false: {"success":false,' in text

    strict = from_target(planted, examples=3, fail_on_warnings=True)
    with pytest.raises(pytest.fail.Exception, match="columns: error_as_success"):
        _case(strict, "columns").check()  # type: ignore[attr-defined]
    strict.close()


def test_a_crash_on_a_valid_input_fails_the_item() -> None:
    server = from_target(planted, examples=5)
    with pytest.raises(pytest.fail.Exception) as failed:
        _case(server, "divide").check()  # type: ignore[attr-defined]
    server.close()
    text = str(failed.value)
    # pydantic's lax mode also takes "1" or true for an integer: the coverage phase sends them,
    # for total and for parts (two places, so two distinct bugs).
    assert text.startswith("divide on MCPServer 'planted': 3 violations in ")
    assert "divide: unhandled_exception (violation): " in text
    assert "divide: accepted_invalid (violation), breaks 'type' at " in text
    assert "'Error executing tool divide'" in text
