"""A transport whose shutdown never ends is abandoned after a bound, and named: no hung close.

``Connection.aclose`` waits shielded (a close must finish), so neither the
caller's deadline nor ``Run.close_timeout`` reaches it: only its own bound does.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import anyio
import mcp
import pytest
from mcp.client._memory import InMemoryTransport
from mcp.server.mcpserver import MCPServer

import littleghost as lg
from littleghost.mcp import Toolset, _connection

pytestmark = pytest.mark.anyio

PROMPT = 5.0
"""Seconds within which the run's close must give up on the transport."""


class StuckOnClose:
    """An in-memory transport whose shutdown then blocks, shielded, until ``released``:
    a third-party transport gone wrong, the one part of this test we do not own."""

    def __init__(self, server: MCPServer) -> None:
        self._inner = InMemoryTransport(server)
        self.released = anyio.Event()
        self.closed = anyio.Event()

    async def __aenter__(self) -> Any:
        return await self._inner.__aenter__()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            await self._inner.__aexit__(kind, error, traceback)
        finally:
            with anyio.CancelScope(shield=True):
                await self.released.wait()
            self.closed.set()


def pinging_server() -> MCPServer:
    server = MCPServer("stuck")

    @server.tool(description="Answers pong.")
    def ping() -> str:
        return "pong"

    return server


async def test_a_transport_stuck_closing_is_abandoned_and_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_connection, "GRACEFUL_CLOSE_SECONDS", 0.1)
    monkeypatch.setattr(_connection, "CANCELLED_CLOSE_SECONDS", 0.2)
    transport = StuckOnClose(pinging_server())

    class Stuck(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(transport)

    started = anyio.current_time()
    try:
        with pytest.raises(lg.CleanupError) as raised:
            async with lg.Run(close_timeout=60) as run:
                binding = lg.Binding(run=run)
                [ping] = await Stuck.tools(binding)
                assert (await ping(binding).execute({})).is_success
        assert anyio.current_time() - started < PROMPT
        assert not transport.closed.is_set()  # abandoned, not finished
    finally:
        transport.released.set()  # the abandoned host now finishes: nothing is left running
    assert "TimeoutError: the MCP transport was still shutting down 0.2 s after it was" in str(
        raised.value
    )
    with anyio.fail_after(PROMPT):
        await transport.closed.wait()
