"""Answers the MCP SDK could not parse, which it reports only to a message handler.

A line on a stdio server's stdout that is not a JSON-RPC message never
reaches the request waiting for it: the request would simply time out.
``TransportFaults`` listens for those reports so the engine can say
"unparseable answer" instead of "timeout".
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp

from littleghost.mcp import _client_entered as client_entered

__all__ = ["TransportFaults"]

MAX_FAULT_CHARS = 200
"""How much of the parser's complaint a finding quotes."""


class TransportFaults:
    """Attach to a client before it connects; the engine then waits on ``next()``."""

    def __init__(self) -> None:
        self.count = 0
        self.last: str | None = None
        self._waiters: list[anyio.Event] = []

    def attach(self, client: mcp.Client) -> mcp.Client:
        """Record ``client``'s transport faults (keeping any handler it already has)."""
        if client_entered(client):
            raise ValueError("attach TransportFaults before the client connects")
        previous = client.message_handler

        async def handler(message: Any) -> None:
            if isinstance(message, Exception):
                self._record(message)
            if previous is not None:
                await previous(message)

        client.message_handler = handler
        return client

    async def next(self) -> str:
        """Wait for the next fault and return its description."""
        event = anyio.Event()
        self._waiters.append(event)
        try:
            await event.wait()
        finally:
            self._waiters.remove(event)
        return self.last or "an unparseable message"

    def _record(self, error: Exception) -> None:
        lines = str(error).strip().splitlines()
        self.count += 1
        self.last = f"{type(error).__name__}: {lines[0] if lines else ''}"[:MAX_FAULT_CHARS]
        for event in self._waiters:
            event.set()
