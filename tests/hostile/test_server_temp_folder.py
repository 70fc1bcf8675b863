"""A stdio server's temp folder is its own, and gone after the run: however the run ends.

The server (``servers/temp_writer.py``) is a real subprocess that writes a
scratch file and a read-only folder into ``tempfile.gettempdir()``, as
published servers do; tests/conftest.py points our own ``TMPDIR`` at a folder
of pytest's, which the server must not see unless asked to.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

import littleghost as lg
import littleghost.mcp
from littleghost.mcp import Toolset
from littleghost_testing.cli import main
from tests.hostile.servers.clients import REPO

SERVER = [sys.executable, "-m", "tests.hostile.servers.temp_writer"]
PREFIX = "littleghost-server-tmp-"


def toolset(**options: Any) -> type[Toolset]:
    class Writer(Toolset):
        def client(self, binding: lg.Binding) -> Any:
            return littleghost.mcp.client(SERVER, cwd=REPO, **options)

    return Writer


def said(result: lg.ExecutionResult) -> dict[str, Any]:
    """The JSON text the server's tool returned (MCPServer wraps a str as ``{"result": ...}``)."""
    return json.loads(json.loads(result.content)["result"])


async def call(tool_name: str, **options: Any) -> tuple[dict[str, Any], bool]:
    """What the server said, and whether its folder existed while it was connected."""
    async with lg.Run() as run:
        binding = lg.Binding(run=run)
        tools = {tool.tool_name: tool for tool in await toolset(**options).tools(binding)}
        where = said(await tools[tool_name](binding).execute({}))
        return where, await anyio.Path(where["file"]).is_file()


@pytest.mark.anyio
async def test_a_stdio_server_writes_into_a_private_folder_removed_after_the_run() -> None:
    where, existed = await call("where")
    folder = Path(where["TMPDIR"])
    assert existed
    assert where["TEMP"] == where["TMP"] == where["gettempdir"] == str(folder)
    assert folder.parent == Path(tempfile.gettempdir())  # not our own folder: one inside it
    assert folder.name.startswith(PREFIX)
    assert not await anyio.Path(folder).exists()


@pytest.mark.anyio
async def test_the_private_folder_is_readable_by_us_alone(tmp_path: Path) -> None:
    async with lg.Run() as run:
        binding = lg.Binding(run=run)
        [_, _, where_tool] = sorted(await toolset().tools(binding), key=lambda tool: tool.tool_name)
        where = said(await where_tool(binding).execute({}))
        assert stat.S_IMODE((await anyio.Path(where["TMPDIR"]).stat()).st_mode) == 0o700
    assert not await anyio.Path(where["TMPDIR"]).exists()


@pytest.mark.anyio
async def test_the_folder_is_removed_when_the_server_crashes(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    async with lg.Run() as run:
        binding = lg.Binding(run=run)
        tools = await toolset(env={"WRITER_REPORT": str(report)}).tools(binding)
        crash = next(tool for tool in tools if tool.tool_name == "crash")
        result = await crash(binding).execute({})
        assert result.status == "error"
    folder = anyio.Path(json.loads(await anyio.Path(report).read_text())["TMPDIR"])
    assert folder.name.startswith(PREFIX)
    assert not await folder.exists()


@pytest.mark.anyio
async def test_the_folder_is_removed_when_the_run_is_cancelled(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with anyio.move_on_after(20) as outer:
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            tools = await toolset(env={"WRITER_REPORT": str(report)}).tools(binding)
            hang = next(tool for tool in tools if tool.tool_name == "hang")
            with anyio.move_on_after(30) as scope:
                async with anyio.create_task_group() as group:
                    group.start_soon(hang(binding).execute, {})
                    while not await anyio.Path(report).exists():  # noqa: ASYNC110 - polls a file
                        await anyio.sleep(0.05)
                    scope.cancel()
    assert not outer.cancelled_caught
    folder = anyio.Path(json.loads(await anyio.Path(report).read_text())["TMPDIR"])
    assert folder.name.startswith(PREFIX)
    assert not await folder.exists()


@pytest.mark.anyio
async def test_inherit_tmpdir_keeps_ours() -> None:
    where, existed = await call("where", inherit_tmpdir=True)
    assert existed
    assert where["TMPDIR"] == where["gettempdir"] == os.environ["TMPDIR"]
    await anyio.to_thread.run_sync(clean, Path(where["TMPDIR"]))


def clean(folder: Path) -> None:
    """What the server wrote into a folder that stays: ours to remove."""
    (folder / "scratch.txt").unlink()
    locked = folder / "locked"
    locked.chmod(0o700)
    (locked / "inside.txt").unlink()
    locked.rmdir()


@pytest.mark.anyio
async def test_a_tmpdir_given_in_env_is_the_servers(tmp_path: Path) -> None:
    where, _ = await call("where", env={"TMPDIR": str(tmp_path)})
    assert where["TMPDIR"] == where["gettempdir"] == str(tmp_path)
    await anyio.to_thread.run_sync(clean, tmp_path)  # the caller's folder: the caller's to clean


def test_the_cli_gives_a_private_folder_and_keeps_ours_when_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = ["--cwd", str(REPO), "--", *SERVER]
    assert main(["call", "where", "{}", *command]) == 0
    answer = json.loads(capsys.readouterr().out)
    private = json.loads(answer["result"]["content"][0]["text"])
    assert Path(private["TMPDIR"]).name.startswith(PREFIX)
    assert not Path(private["TMPDIR"]).exists()

    assert main(["call", "where", "{}", "--inherit-tmpdir", *command]) == 0
    answer = json.loads(capsys.readouterr().out)
    shared = json.loads(answer["result"]["content"][0]["text"])
    assert shared["TMPDIR"] == os.environ["TMPDIR"]
    clean(Path(shared["TMPDIR"]))
