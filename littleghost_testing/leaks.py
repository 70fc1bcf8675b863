"""Leak checks: what a test started and did not release.

Take a ``ResourceSnapshot`` before the code under test runs, and await
``assert_released()`` after: it polls (cleanup often finishes on another
thread, in another process or a few loop turns later) and fails naming every
child process, socket, task and thread that is still there.

Processes and sockets are read from ``/proc``, so snapshots need Linux:
elsewhere ``take()`` raises rather than report nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import sys
import threading
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

__all__ = ["ResourceSnapshot"]

_PROC = Path("/proc")
_POLL_SECONDS = 0.02
# Event loops keep these threads in pools by design (asyncio's default executor,
# anyio.to_thread, trio's thread cache, which also waits for I/O in trio guest mode).
_POOLED_THREADS = ("asyncio_", "AnyIO worker thread", "Trio thread ")


@dataclass(frozen=True)
class ResourceSnapshot:
    """The child processes, sockets, event-loop tasks and threads alive at one moment."""

    processes: frozenset[int]
    sockets: frozenset[str]
    tasks: frozenset[Any] | None  # None when taken outside an event loop
    threads: frozenset[threading.Thread]
    thread_prefix: str = ""

    @classmethod
    def take(cls, *, thread_prefix: str = "") -> ResourceSnapshot:
        """Snapshot now; only threads whose name starts with ``thread_prefix`` are watched.

        The event loops' own worker threads (asyncio's default executor,
        ``anyio.to_thread``, trio's thread cache) are never watched: their pools
        keep idle threads alive by design.
        """
        if not (_PROC / "self" / "fd").is_dir():
            raise RuntimeError(
                "ResourceSnapshot reads child processes and sockets from /proc, "
                f"which this platform ({sys.platform}) does not have"
            )
        return cls(
            _child_processes(),
            _sockets(),
            _tasks(),
            _threads(thread_prefix),
            thread_prefix,
        )

    def leftovers(self) -> dict[str, list[str]]:
        """What exists now and did not then, by kind ("processes", "sockets", "tasks", "threads").

        Only kinds with something left appear: an empty dict means all released.
        Tasks are compared only when both moments are on an event loop.
        """
        left = {
            "processes": [
                _describe_process(p) for p in sorted(_child_processes() - self.processes)
            ],
            "sockets": _describe_sockets(_sockets() - self.sockets),
            "tasks": [],
            "threads": sorted(t.name for t in _threads(self.thread_prefix) - self.threads),
        }
        tasks = _tasks()
        if tasks is not None and self.tasks is not None:
            left["tasks"] = sorted(_task_name(task) for task in tasks - self.tasks)
        return {kind: items for kind, items in left.items() if items}

    async def assert_released(
        self, *, within: float = 5.0, kinds: Collection[str] | None = None
    ) -> None:
        """Wait until everything started since the snapshot is gone, or raise AssertionError.

        ``kinds`` narrows the wait to some kinds ("processes", "sockets",
        "tasks", "threads"); by default every kind counts.
        """
        deadline = anyio.current_time() + within
        while left := {
            kind: items
            for kind, items in self.leftovers().items()
            if kinds is None or kind in kinds
        }:
            if anyio.current_time() >= deadline:
                held = "; ".join(
                    f"{kind} ({len(items)}): {', '.join(items)}" for kind, items in left.items()
                )
                raise AssertionError(f"still held after {within} s: {held}")
            await anyio.sleep(_POLL_SECONDS)


def _child_processes() -> frozenset[int]:
    """Live children of every thread of this process (zombies are already dead)."""
    pids: set[int] = set()
    for task in (_PROC / "self" / "task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except FileNotFoundError:  # the thread exited meanwhile
            continue
        for pid in children:
            try:
                state = (_PROC / pid / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                continue
            if state != "Z":
                pids.add(int(pid))
    return frozenset(pids)


def _describe_process(pid: int) -> str:
    try:
        command = (_PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").strip()
    except FileNotFoundError:
        return f"{pid} (exited)"
    return f"{pid} ({command.decode(errors='replace')})"


def _sockets() -> frozenset[str]:
    """Open socket file descriptors, as ``socket:[inode]``."""
    found: set[str] = set()
    for fd in (_PROC / "self" / "fd").iterdir():
        try:
            link = os.readlink(fd)
        except OSError:  # closed meanwhile (or the directory's own descriptor)
            continue
        if link.startswith("socket:"):
            found.add(link)
    return frozenset(found)


def _describe_sockets(sockets: frozenset[str]) -> list[str]:
    """Each socket with its addresses, so a leak names the peer and not just an inode."""
    if not sockets:
        return []
    addresses = _socket_addresses()
    return sorted(f"{link} ({addresses[link]})" if link in addresses else link for link in sockets)


def _socket_addresses() -> dict[str, str]:
    """``socket:[inode]`` → "tcp 127.0.0.1:5000 -> 127.0.0.1:41234", from /proc/net tables."""
    found: dict[str, str] = {}
    for kind in ("tcp", "tcp6", "udp", "udp6"):
        try:
            rows = (_PROC / "self" / "net" / kind).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            local, remote, inode = _address(fields[1]), _address(fields[2]), fields[9]
            found[f"socket:[{inode}]"] = f"{kind} {local} -> {remote}"
    try:
        rows = (_PROC / "self" / "net" / "unix").read_text().splitlines()[1:]
    except OSError:
        rows = []
    for row in rows:
        fields = row.split()
        path = fields[7] if len(fields) > 7 else "unnamed"
        found[f"socket:[{fields[6]}]"] = f"unix {path}"
    return found


def _address(hex_address: str) -> str:
    """``0100007F:1F90`` → ``127.0.0.1:8080`` (IPv4 and IPv6, as /proc/net writes them)."""
    host, port = hex_address.split(":")
    raw = bytes.fromhex(host)
    # /proc/net writes each 32-bit word in host byte order.
    step = -1 if sys.byteorder == "little" else 1
    words = b"".join(raw[i : i + 4][::step] for i in range(0, len(raw), 4))
    if len(words) == 4:
        return f"{ipaddress.IPv4Address(words)}:{int(port, 16)}"
    return f"[{ipaddress.IPv6Address(words)}]:{int(port, 16)}"


def _tasks() -> frozenset[Any] | None:
    """Tasks alive on the running asyncio or trio loop; None outside both."""
    try:
        return frozenset(asyncio.all_tasks())
    except RuntimeError:
        pass
    trio: Any = sys.modules.get("trio")  # never imported here: trio is optional
    if trio is None:
        return None
    try:
        root = trio.lowlevel.current_root_task()
    except RuntimeError:
        return None
    found: set[Any] = set()
    pending = [root]
    while pending:
        task = pending.pop()
        found.add(task)
        pending.extend(child for n in task.child_nurseries for child in n.child_tasks)
    return frozenset(found)


def _task_name(task: Any) -> str:
    if isinstance(task, asyncio.Task):
        coroutine = task.get_coro()
        return f"{task.get_name()} ({getattr(coroutine, '__qualname__', coroutine)})"
    return task.name


def _threads(prefix: str) -> frozenset[threading.Thread]:
    return frozenset(
        t
        for t in threading.enumerate()
        if t.name.startswith(prefix) and not t.name.startswith(_POOLED_THREADS)
    )
