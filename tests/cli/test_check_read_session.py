"""``check`` reads on the tools' connection, lists its reads in ``--dry-run``, and locks them.

Resources and prompts are read over the connection the tools were called on
(a stdio server is not started twice); when a tool left it broken, the reads
reconnect as the tools do. The lock file records resources, resource
templates and prompts, so a change there is caught like a tool change.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from servers.cli_harness import FAST, run
from servers.read_servers import shelf, shelf_server
from servers.read_sessions import desk, desk_server, tool_session

from littleghost.mcp import CatalogLock
from littleghost_testing import assert_matches_lock, from_target, write_lock
from littleghost_testing._engine import FuzzOptions, ServerReport, check_reads
from littleghost_testing.fake_server import Crash, FakeMCPServer, JsonRpcError

DESK = "servers.read_sessions:desk_server"
SHELF = "servers.read_servers:shelf_server"


def _rows(report_path: Path) -> dict[str, Any]:
    report = json.loads(report_path.read_text())
    return {
        item["name"]: item for item in [*report["tools"], *report["resources"], *report["prompts"]]
    }


# -- one connection --------------------------------------------------------------------------


def test_check_reads_on_the_connection_the_tools_were_called_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    desk_server.reset()
    code, out, _ = run(capsys, "check", DESK, *FAST, "--json", str(tmp_path / "r.json"))
    assert code == 0
    assert out.splitlines()[-1].startswith("1 tool (1 checked, 0 skipped), 1 resource (1 read)")
    assert desk_server.sessions_opened == 1
    rows = _rows(tmp_path / "r.json")
    assert rows["file:///readme.txt"]["answers"]["success"] == 1


def test_reads_reconnect_after_a_tool_crashed_the_server(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    desk_server.reset()
    desk_server.fault("lookup", Crash())
    code, _, _ = run(capsys, "check", DESK, *FAST, "--json", str(tmp_path / "r.json"))
    assert code == 1
    rows = _rows(tmp_path / "r.json")
    assert [group["kind"] for group in rows["lookup"]["findings"]] == ["crash"]
    # Not a crash of the resource: the reads got a fresh connection.
    assert rows["file:///readme.txt"]["findings"] == []
    assert rows["ask"]["answers"]["success"] == 1
    assert desk_server.sessions_opened == 2
    desk_server.reset()


@pytest.mark.anyio
async def test_a_broken_tool_connection_is_reopened_before_the_first_read() -> None:
    fake = shelf()
    report = ServerReport("test")
    async with tool_session(fake.client, 5, usable=False) as session:
        await check_reads(session, FuzzOptions(timeout=5), report)
    assert fake.sessions_opened == 2
    assert report.violation_count == 0 and report.warning_count == 0


@pytest.mark.anyio
async def test_a_working_tool_connection_is_read_on_as_it_is() -> None:
    fake = shelf()
    report = ServerReport("test")
    async with tool_session(fake.client, 5) as session:
        await check_reads(session, FuzzOptions(timeout=5), report)
    assert fake.sessions_opened == 1
    assert len(report.resources) == 3 and len(report.prompts) == 2


def test_the_pytest_route_reads_on_the_tools_connection() -> None:
    fake = desk()
    fuzzed = from_target(fake, examples=3)
    try:
        [parametrized] = fuzzed.parametrize().mark.args[1:]
        cases = {param.id: param.values[0] for param in parametrized}
        assert list(cases) == ["lookup", "resource:file:///readme.txt", "prompt:ask"]
        for case in cases.values():
            case.check()
    finally:
        fuzzed.close()
    assert fake.sessions_opened == 1


def test_the_pytest_route_gives_the_tools_a_fresh_connection_after_a_read_crashed() -> None:
    fake = desk()
    fake.fault_resource("file:///readme.txt", Crash())
    fuzzed = from_target(fake, examples=3)
    try:
        [parametrized] = fuzzed.parametrize().mark.args[1:]
        cases = {param.id: param.values[0] for param in parametrized}
        with pytest.raises(pytest.fail.Exception, match="crash"):
            cases["resource:file:///readme.txt"].check()
        assert cases["prompt:ask"].check().answers.success == 1
        report = cases["lookup"].check()
        assert not report.crashed and report.answers.success > 0
    finally:
        fuzzed.close()


# -- --dry-run -------------------------------------------------------------------------------


def test_dry_run_lists_each_read_and_reads_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    shelf_server.reset()
    code, out, _ = run(capsys, "check", "--dry-run", SHELF)
    assert code == 0  # no tools, but reads would be sent
    lines = out.splitlines()
    assert lines[
        lines.index("would read 2 resources, 1 resource template and get 2 prompts:") :
    ] == [
        "would read 2 resources, 1 resource template and get 2 prompts:",
        "resource file:///readme.txt: read file:///readme.txt",
        "resource file:///broken.txt: read file:///broken.txt",
        "resource template file:///logs/{day}: read file:///logs/2026-01-01, "
        "file:///logs/2026-01-02, file:///logs/example",
        "prompt ask: get 3 times with 1 argument, 3 times with 2 arguments",
        "prompt odd: get 1 time with 0 arguments",
    ]
    sent = {request.method for request in shelf_server.requests}
    assert not sent & {"resources/read", "prompts/get"}


def test_dry_run_names_a_broken_listing(capsys: pytest.CaptureFixture[str]) -> None:
    desk_server.reset()
    desk_server.fault_request("prompts/list", Crash())
    try:
        code, out, _ = run(capsys, "check", "--dry-run", DESK)
    finally:
        desk_server.reset()
    assert code == 0
    lines = out.splitlines()
    assert "resource file:///readme.txt: read file:///readme.txt" in lines
    assert any(line.startswith("(prompts/list): listing failed: ") for line in lines)


def test_dry_run_without_reads_lists_tools_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--dry-run", DESK, "--no-resources", "--no-prompts")
    assert code == 0
    assert "would read" not in out


# -- the lock --------------------------------------------------------------------------------


def test_lock_records_resources_templates_and_prompts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "lock.json"
    code, out, _ = run(capsys, "lock", SHELF, "-o", str(path))
    assert code == 0, out
    assert out == f"{path}: 0 tools, 2 resources, 1 resource template, 2 prompts of shelf\n"
    data = json.loads(path.read_text())
    assert list(data["resources"]) == ["file:///broken.txt", "file:///readme.txt"]
    assert data["resources"]["file:///readme.txt"]["mimeType"] == "text/plain"
    assert list(data["resourceTemplates"]) == ["file:///logs/{day}"]
    assert [arg["name"] for arg in data["prompts"]["ask"]["arguments"]] == ["question", "tone"]
    assert set(data["prompts"]["ask"]["digest"]) == set(data["prompts"]["ask"]) - {"digest"}
    code, out, _ = run(capsys, "diff", SHELF, "--lock", str(path))
    assert code == 0 and out.splitlines()[-1].endswith("matches the lock")


def test_a_resource_gone_from_the_listing_fails_diff_and_check_lock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _edited_lock(capsys, tmp_path, lambda data: data["resources"].update(gone={}))
    code, out, _ = run(capsys, "diff", SHELF, "--lock", str(path))
    assert code == 1
    assert "resource gone: breaking: resource removed" in out.splitlines()
    code, out, _ = run(capsys, "check", SHELF, *FAST, "--lock", str(path))
    assert code == 1
    assert "resource gone: breaking: resource removed" in out.splitlines()


def test_a_lock_without_resources_or_prompts_compares_tools_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def older(data: dict[str, Any]) -> None:
        for section in ("resources", "resourceTemplates", "prompts"):
            del data[section]

    path = _edited_lock(capsys, tmp_path, older)
    assert CatalogLock.load(path).reads == {}
    code, out, _ = run(capsys, "diff", SHELF, "--lock", str(path))
    assert code == 0
    assert out.splitlines() == [
        "0 changes (0 breaking, 0 suspicious, 0 compatible): matches the lock"
    ]


def test_a_broken_listing_writes_no_lock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    desk_server.reset()
    desk_server.fault_request("prompts/list", JsonRpcError(-32603, "Internal error"))
    try:
        code, _, err = run(capsys, "lock", DESK, "-o", str(tmp_path / "lock.json"))
    finally:
        desk_server.reset()
    assert code == 2
    assert "Internal error" in err and not (tmp_path / "lock.json").exists()


def _edited_lock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, edit: Callable[[dict[str, Any]], object]
) -> Path:
    """The shelf's lock, written by ``littleghost lock`` and then changed by ``edit``."""
    path = tmp_path / "lock.json"
    code, _, _ = run(capsys, "lock", SHELF, "-o", str(path))
    assert code == 0
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


def test_assert_matches_lock_catches_a_changed_prompt(tmp_path: Path) -> None:
    path = tmp_path / "lock.json"
    write_lock(desk(), path)
    assert_matches_lock(desk(), path)
    changed = FakeMCPServer("desk")

    @changed.tool(annotations={"readOnlyHint": True})
    def lookup(key: str) -> str:
        return key

    @changed.resource("file:///readme.txt", mime_type="text/plain")
    def readme() -> str:
        return "hello"

    @changed.prompt()
    def ask(question: str, urgency: str) -> str:
        return question

    with pytest.raises(AssertionError) as failure:
        assert_matches_lock(changed, path)
    assert "prompt ask: breaking: new required argument urgency" in str(failure.value)


def test_a_listing_past_max_locked_reads_writes_no_lock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from littleghost_testing._engine import _reads

    monkeypatch.setattr(_reads, "MAX_LOCKED_READS", 1)  # the shelf lists two resources
    code, _, err = run(capsys, "lock", SHELF, "-o", str(tmp_path / "lock.json"))
    assert code == 2
    assert "resources/list: more than MAX_LOCKED_READS (1) items" in err
    assert not (tmp_path / "lock.json").exists()
