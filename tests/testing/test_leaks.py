"""ResourceSnapshot: each kind of leak is named while it lasts and forgotten once released."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from littleghost_testing import leaks
from littleghost_testing.leaks import ResourceSnapshot


@pytest.mark.anyio
async def test_a_child_process_is_named_until_it_dies() -> None:
    snapshot = ResourceSnapshot.take()
    # A plain Popen, reaped by hand: between kill() and wait() the child is a zombie.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # noqa: ASYNC220
    try:
        with pytest.raises(AssertionError) as failure:
            await snapshot.assert_released(within=0.1)
        command = f"{sys.executable} -c import time; time.sleep(60)"
        assert f"processes (1): {child.pid} ({command})" in str(failure.value)
        child.kill()
        await snapshot.assert_released()  # a zombie, not yet reaped, is dead already
    finally:
        child.kill()
        child.wait()


@pytest.mark.anyio
async def test_a_socket_is_named_until_it_is_closed(
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    with socket.socket() as sock:
        inode = os.fstat(sock.fileno()).st_ino
        with pytest.raises(AssertionError, match=r"after 0\.1 s: sockets \(1\): socket:\[\d+\]$"):
            await snapshot.assert_released(within=0.1)
        assert snapshot.leftovers() == {"sockets": [f"socket:[{inode}]"]}
    await snapshot.assert_released()


@pytest.mark.anyio
async def test_a_connected_socket_names_both_addresses(
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        snapshot = lg_leaks()
        with socket.create_connection(("127.0.0.1", port)) as client:
            local = client.getsockname()[1]
            accepted, _ = listener.accept()
            with accepted:
                left = "\n".join(snapshot.leftovers()["sockets"])
                assert f"tcp 127.0.0.1:{local} -> 127.0.0.1:{port}" in left
                assert f"tcp 127.0.0.1:{port} -> 127.0.0.1:{local}" in left
        await snapshot.assert_released()


@pytest.mark.anyio
async def test_threads_are_named_and_filtered_by_prefix() -> None:
    snapshot = ResourceSnapshot.take(thread_prefix="lg-test-")
    release = threading.Event()
    threads = [threading.Thread(target=release.wait, name=n) for n in ("lg-test-leaky", "other")]
    for thread in threads:
        thread.start()
    try:
        with pytest.raises(AssertionError, match=r"threads \(1\): lg-test-leaky$"):
            await snapshot.assert_released(within=0.1)
    finally:
        release.set()
        for thread in threads:
            thread.join()
    await snapshot.assert_released()


@pytest.mark.anyio
async def test_the_event_loops_pooled_threads_are_not_leaks() -> None:
    snapshot = ResourceSnapshot.take()
    await anyio.to_thread.run_sync(lambda: None)  # its worker idles on in the pool
    await snapshot.assert_released(within=0)


@pytest.mark.anyio
async def test_a_task_is_named_until_it_ends() -> None:
    snapshot = ResourceSnapshot.take()
    async with anyio.create_task_group() as task_group:
        task_group.start_soon(anyio.sleep_forever, name="leaky")
        await anyio.lowlevel.checkpoint()
        [task] = snapshot.leftovers()["tasks"]
        assert task.startswith("leaky")
        with pytest.raises(AssertionError, match=r"tasks \(1\): leaky"):
            await snapshot.assert_released(within=0.1)
        task_group.cancel_scope.cancel()
    await snapshot.assert_released()


def test_tasks_are_not_compared_outside_an_event_loop() -> None:
    snapshot = ResourceSnapshot.take()
    assert snapshot.tasks is None
    assert snapshot.leftovers() == {}


def test_without_proc_taking_a_snapshot_fails_clearly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(leaks, "_PROC", tmp_path / "missing")
    with pytest.raises(RuntimeError, match="from /proc, which this platform"):
        ResourceSnapshot.take()
