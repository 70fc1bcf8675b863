"""``Toolset.lock`` parses its file once per version of it, not at every discovery (issue 22)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import lock_servers
import mcp
import pytest

import littleghost as lg
from littleghost.mcp import CatalogLock, Toolset, _lock
from littleghost.mcp._lock import MAX_CACHED_LOCKS, SETTLED_SECONDS, load_cached
from littleghost_testing import write_lock
from littleghost_testing._threads import in_fresh_thread
from littleghost_testing.fake_server import FakeMCPServer

AN_HOUR_AGO = time.time() - 3600


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Where every lock parsed came from (the cache starts empty)."""
    seen: list[str] = []
    original = CatalogLock.loads.__func__  # pyright: ignore[reportFunctionMemberAccess]

    def counting(cls: type[CatalogLock], text: str | bytes, *, where: str = "lock") -> CatalogLock:
        seen.append(where)
        return original(cls, text, where=where)

    monkeypatch.setattr(CatalogLock, "loads", classmethod(counting))
    monkeypatch.setattr(_lock, "_cached", {})
    yield seen


def locked(server: FakeMCPServer, path: Path) -> Path:
    """``server``'s lock, written an hour ago (in a thread: it runs an event loop of its own)."""
    in_fresh_thread(lambda: write_lock(server, path))
    return settled(path)


def settled(path: Path, mtime: float = AN_HOUR_AGO) -> Path:
    os.utime(path, (mtime, mtime))
    return path


def pinned(lock: Path) -> type[Toolset]:
    class Pinned(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return lock_servers.after.client()

    Pinned.lock = lock
    return Pinned


async def discover(toolset: type[Toolset]) -> list[str]:
    async with lg.Run() as run:
        return sorted(tool.tool_name for tool in await toolset.tools(lg.Binding(run=run)))


@pytest.mark.anyio
async def test_discovery_parses_a_lock_once_and_again_when_it_changes(
    tmp_path: Path, parses: list[str]
) -> None:
    path = locked(lock_servers.before, tmp_path / "littleghost.lock")
    toolset = pinned(path)
    assert await discover(toolset) == ["stable"]  # the "after" catalog drifted
    assert await discover(toolset) == ["stable"]
    assert len(parses) == 1
    # The lock is updated to the catalog now: the next discovery sees it.
    in_fresh_thread(lambda: write_lock(lock_servers.after, path))
    settled(path, AN_HOUR_AGO + 1)
    assert await discover(toolset) == ["added", "lookup", "search", "stable"]
    assert await discover(toolset) == ["added", "lookup", "search", "stable"]
    assert len(parses) == 2


def test_a_lock_rewritten_with_the_same_time_but_another_size_is_read_again(
    tmp_path: Path, parses: list[str]
) -> None:
    path = locked(lock_servers.before, tmp_path / "littleghost.lock")
    first = load_cached(path)
    assert load_cached(path) is first
    path.write_text(path.read_text().replace('"stable"', '"stabler"'), encoding="utf-8")
    settled(path)  # same mtime, one byte more
    assert sorted(load_cached(path).tools) == ["lookup", "retired", "search", "stabler"]


def test_a_lock_replaced_by_another_file_is_read_again(tmp_path: Path, parses: list[str]) -> None:
    path = locked(lock_servers.before, tmp_path / "littleghost.lock")
    assert "retired" in load_cached(path).tools
    other = locked(lock_servers.before, tmp_path / "new.lock")
    other.write_text(other.read_text().replace('"retired"', '"retiree"'), encoding="utf-8")
    other.replace(path)  # a new inode, the same size, set to the same time
    settled(path)
    assert "retiree" in load_cached(path).tools


def test_a_lock_changed_just_now_is_parsed_at_every_discovery(
    tmp_path: Path, parses: list[str]
) -> None:
    # A rewrite in the same clock tick could keep its modification time: not cached yet.
    path = locked(lock_servers.before, tmp_path / "littleghost.lock")
    settled(path, time.time())
    load_cached(path)
    load_cached(path)
    assert len(parses) == 2
    settled(path, time.time() - SETTLED_SECONDS - 1)
    load_cached(path)
    load_cached(path)
    assert len(parses) == 3


def test_a_lock_that_went_away_is_an_error_again(tmp_path: Path, parses: list[str]) -> None:
    path = locked(lock_servers.before, tmp_path / "littleghost.lock")
    load_cached(path)
    path.unlink()
    with pytest.raises(lg.ConfigurationError, match="cannot read lock"):
        load_cached(path)
    path.mkdir()
    with pytest.raises(lg.ConfigurationError, match="is not a regular file"):
        load_cached(path)


def test_the_cache_keeps_at_most_max_cached_locks(tmp_path: Path, parses: list[str]) -> None:
    text = locked(lock_servers.before, tmp_path / "one.lock").read_text()
    paths = []
    for number in range(MAX_CACHED_LOCKS + 1):
        path = tmp_path / f"{number}.lock"
        path.write_text(text, encoding="utf-8")
        paths.append(settled(path))
        load_cached(path)
    assert len(_lock._cached) == MAX_CACHED_LOCKS  # pyright: ignore[reportPrivateUsage]
    load_cached(paths[-1])  # still cached
    assert len(parses) == MAX_CACHED_LOCKS + 1
    load_cached(paths[0])  # the least recently used went first
    assert len(parses) == MAX_CACHED_LOCKS + 2
