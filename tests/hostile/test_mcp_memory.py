"""A server answering 256 MiB, in a child process under a memory limit (issue 7, item 6).

Without the transport bound the SDK needs about three times the answer (over
3 GB for 1 GB; ``bench/hostile.py`` measures that case); the child has 320
MiB of address space. It must end with the named ``ProtocolError``,
promptly, and exit normally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import pytest

from littleghost_testing.leaks import ResourceSnapshot

from .sandbox import run_limited

pytestmark = pytest.mark.anyio

HUGE_ANSWER = """
import time

import anyio

import littleghost as lg
from littleghost.mcp import Toolset
from tests.hostile.servers.clients import client_factory


async def main():
    with client_factory({transport!r}, "huge", 256 << 20) as make_client:

        class Huge(Toolset):
            def client(self, binding):
                return make_client()

        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await Huge.tools(binding)
            started = time.monotonic()
            result = await probe(binding).execute({{}})
            print(f"{{time.monotonic() - started:.2f}}", result.error)


anyio.run(main, backend={backend!r})
"""

MEMORY_MB = 320  # the interpreter, its imports and thread stacks take about 200 of these


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_huge_answer_stays_within_memory(
    anyio_backend: str, transport: str, lg_leaks: Callable[..., ResourceSnapshot]
) -> None:
    snapshot = lg_leaks()
    code = HUGE_ANSWER.format(transport=transport, backend=anyio_backend)
    completed: Any = await anyio.to_thread.run_sync(
        lambda: run_limited(code, memory_mb=MEMORY_MB, seconds=60)
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    seconds, message = completed.stdout.strip().split(" ", 1)
    assert message == (
        "MCP server exceeded max_result_bytes (16777216): "
        + ("a message" if transport == "stdio" else "a response body")
        + " longer than that"
    )
    assert float(seconds) < 5
    await snapshot.assert_released()
