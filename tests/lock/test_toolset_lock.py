"""``Toolset.lock``: a tool that drifted from the lock never reaches an agent."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import lock_servers
import mcp
import pytest

import littleghost as lg
from littleghost.mcp import CatalogLock, Toolset
from littleghost_testing import assert_matches_lock
from littleghost_testing._threads import in_fresh_thread
from littleghost_testing.cli import main
from littleghost_testing.fake_server import FakeMCPServer

pytestmark = pytest.mark.anyio


def _lock_of(server: FakeMCPServer, path: Path) -> Path:
    """``littleghost lock`` of ``server`` (in a thread: it runs an event loop of its own)."""
    argv = ["lock", f"lock_servers:{_attribute(server)}", "-o", str(path)]
    assert in_fresh_thread(lambda: main(argv)) == 0
    return path


def _attribute(server: FakeMCPServer) -> str:
    return next(name for name, value in vars(lock_servers).items() if value is server)


def _toolset(server: FakeMCPServer, lock: Path) -> type[Toolset]:
    class Pinned(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return server.client()

    Pinned.lock = lock
    return Pinned


async def test_a_rug_pulled_description_is_left_out_with_an_event(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lock = _lock_of(lock_servers.before, tmp_path / "littleghost.lock")
    events: list[lg.instrumentation.Event] = []
    with lg.instrumentation.subscribe(events.append), caplog.at_level(logging.WARNING):
        async with lg.Run() as run:
            classes = await _toolset(lock_servers.after, lock).tools(lg.Binding(run=run))
    # lookup: rug pulled; search: breaking; added: not in the lock; stable: unchanged.
    assert [tool.tool_name for tool in classes] == ["stable"]
    drift = {
        event.payload["tool"]: event.payload["changes"]
        for event in events
        if event.name == "mcp_lock_drift"
    }
    assert set(drift) == {"lookup", "search", "added"}
    assert drift["lookup"].startswith("suspicious: description changed")
    assert drift["added"] == "suspicious: not in the lock"
    assert "MCP tool 'lookup' left out: it drifted from the lock" in caplog.text


async def test_a_catalog_that_matches_its_lock_keeps_every_tool(tmp_path: Path) -> None:
    lock = _lock_of(lock_servers.before, tmp_path / "littleghost.lock")
    async with lg.Run() as run:
        classes = await _toolset(lock_servers.before, lock).tools(lg.Binding(run=run))
    assert sorted(tool.tool_name for tool in classes) == ["lookup", "retired", "search", "stable"]


async def test_a_compatible_change_is_kept(tmp_path: Path) -> None:
    lock = _lock_of(lock_servers.compatible_before, tmp_path / "littleghost.lock")
    async with lg.Run() as run:
        classes = await _toolset(lock_servers.compatible_after, lock).tools(lg.Binding(run=run))
    assert [tool.tool_name for tool in classes] == ["search"]


async def test_a_missing_lock_fails_discovery(tmp_path: Path) -> None:
    async with lg.Run() as run:
        with pytest.raises(lg.ConfigurationError, match="cannot read lock"):
            await _toolset(lock_servers.before, tmp_path / "none.lock").tools(lg.Binding(run=run))


def test_assert_matches_lock_passes_and_fails_with_the_changes(tmp_path: Path) -> None:
    lock = _lock_of(lock_servers.before, tmp_path / "littleghost.lock")
    assert_matches_lock(lock_servers.before, lock)
    with pytest.raises(AssertionError) as failure:
        assert_matches_lock(lock_servers.after, lock)
    text = str(failure.value)
    assert text.startswith("FakeMCPServer 'catalog' drifted from the lock")
    assert "  retired: breaking: tool removed" in text
    assert "  lookup: suspicious: the new description holds a hidden tag" in text
    compatible = _lock_of(lock_servers.compatible_before, tmp_path / "compatible.lock")
    assert_matches_lock(lock_servers.compatible_after, compatible)  # compatible passes


def test_assert_matches_lock_takes_a_stdio_command(tmp_path: Path) -> None:
    lock = tmp_path / "demo.lock"
    assert main(["lock", "littleghost_testing.demo_server:server", "-o", str(lock)]) == 0
    assert_matches_lock([sys.executable, "-m", "littleghost_testing.demo_server"], lock)
    assert CatalogLock.load(lock).server["name"] == "demo-help-desk"
