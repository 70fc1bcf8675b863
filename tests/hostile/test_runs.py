"""Runs and registries under hostile resources and tools (issue 7, items 12 and 13).

A ``close()`` that never returns is abandoned after ``close_timeout`` and named
in the ``CleanupError``; the caller's cancel scope still interrupts. Cancelled
blocking sync tools keep their worker-thread slot until they finish, so the
thread count stays bounded on every event loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar

import anyio
import anyio.to_thread
import pytest

import littleghost as lg
from littleghost_testing import ResourceSnapshot

from .released import released

pytestmark = pytest.mark.anyio
__all__ = ["released"]  # autouse: no test leaves a process, socket or thread


class NeverCloses:
    """A resource whose async close waits forever (until cancelled)."""

    def __init__(self) -> None:
        self.closing = False

    async def close(self) -> None:
        self.closing = True
        await anyio.sleep_forever()

    def __repr__(self) -> str:
        return "<NeverCloses>"


class Closes:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Stuck(lg.Tool):
    description = "A tool whose close never returns."

    async def call(self, input: Any) -> Any:
        return "ok"

    async def close(self) -> None:
        await anyio.sleep_forever()


async def test_a_run_abandons_a_close_past_close_timeout_and_names_it(
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    stuck, fine = NeverCloses(), Closes()
    started = time.monotonic()
    with pytest.raises(lg.CleanupError) as caught:
        async with lg.Run(close_timeout=0.2) as run:
            run.register(fine)
            run.register(stuck)
    assert stuck.closing and fine.closed  # the later close still ran
    assert time.monotonic() - started < 5
    assert "<NeverCloses> did not close within 0.2 s and was abandoned" in str(caught.value)
    assert [type(error) for error in caught.value.errors] == [TimeoutError]
    await snapshot.assert_released()


async def test_a_registry_abandons_a_tool_close_past_close_timeout(
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    with pytest.raises(lg.CleanupError, match=r"did not close within 0\.1 s"):
        async with lg.ToolRegistry([Stuck], close_timeout=0.1) as registry:
            assert (await registry.call("stuck", {})).content == "ok"
    await snapshot.assert_released()


async def test_close_timeout_is_a_class_attribute_too() -> None:
    class PatientRun(lg.Run):
        close_timeout = 0.05

    class PatientRegistry(lg.ToolRegistry):
        close_timeout = 0.05

    assert PatientRun().close_timeout == 0.05
    assert lg.Run().close_timeout == 10.0
    assert PatientRegistry().close_timeout == 0.05
    assert lg.ToolRegistry(close_timeout=3).close_timeout == 3.0
    for bad in (0, -1, float("inf"), "soon", True):
        with pytest.raises(lg.ConfigurationError, match="close_timeout"):
            lg.Run(close_timeout=bad)
        with pytest.raises(lg.ConfigurationError, match="close_timeout"):
            lg.ToolRegistry(close_timeout=bad)


async def test_an_outer_cancel_scope_still_interrupts_a_hanging_close(
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    stuck = NeverCloses()
    started = time.monotonic()
    with anyio.move_on_after(0.05) as outer:
        async with lg.Run(close_timeout=0.3) as run:
            run.register(stuck)
            await anyio.sleep_forever()
    assert outer.cancelled_caught and stuck.closing
    assert time.monotonic() - started < 5
    await snapshot.assert_released()


async def test_a_cancel_during_a_close_is_raised_after_it_with_the_failure_noted() -> None:
    with anyio.move_on_after(0.05) as outer:
        run = lg.Run(close_timeout=0.3)
        run.register(NeverCloses())
        await run.aclose()
        raise AssertionError("the outer cancellation must interrupt")
    assert outer.cancelled_caught and run.closed


class Blocking(lg.Tool):
    description = "Blocks its worker thread until released."
    release = threading.Event()
    running: ClassVar[set[int]] = set()  # the threads inside ``call`` now

    def call(self, input: Any) -> Any:
        self.running.add(threading.get_ident())
        try:
            self.release.wait(10)
        finally:
            self.running.discard(threading.get_ident())
        return "done"


async def test_cancelled_sync_tools_keep_the_thread_count_bounded(
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    limiter = anyio.to_thread.current_default_thread_limiter()
    Blocking.release.clear()
    try:
        for _ in range(int(limiter.total_tokens) + 160):
            with anyio.move_on_after(0.002):
                await Blocking().execute({})
        # Unbounded, each cancelled call would have left a thread blocked in the tool:
        # 200. Counted inside the tool, as the process's thread count also moves with
        # other tests' threads under xdist.
        assert 0 < len(Blocking.running) <= limiter.total_tokens
        assert limiter.borrowed_tokens == limiter.total_tokens  # abandoned threads still count
        with anyio.move_on_after(0.2) as waiting:
            await Blocking().execute({})  # no capacity: it waits
        assert waiting.cancelled_caught
    finally:
        Blocking.release.set()
    with anyio.fail_after(10):
        assert (await Blocking().execute({})).content == "done"  # capacity came back
    await snapshot.assert_released()
