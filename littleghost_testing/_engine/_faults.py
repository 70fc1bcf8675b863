"""Answers the MCP SDK could not parse, which it reports only to a message handler.

A line on a stdio server's stdout that is not a JSON-RPC message never
reaches the request waiting for it: the request would simply time out.
``TransportFaults`` listens for those reports so the engine can say
"unparseable answer" instead of "timeout".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import mcp

from littleghost.mcp import _client_entered as client_entered

__all__ = ["FaultWatch", "TransportFaults"]

MAX_FAULT_CHARS = 200
"""How much of the parser's complaint a finding quotes."""


class FaultWatch:
    """One call's watch: ``scope`` to end ``grace`` seconds after a fault, and the first fault."""

    def __init__(self, scope: anyio.CancelScope, grace: float) -> None:
        self.scope = scope
        self.grace = grace
        self.fault: str | None = None


class TransportFaults:
    """Attach to a client before it connects; the engine then runs each call in ``watching()``."""

    def __init__(self) -> None:
        self.count = 0
        self.last: str | None = None
        self._watches: list[FaultWatch] = []

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

    @contextmanager
    def watching(self, watch: FaultWatch) -> Iterator[None]:
        """While inside, a fault ends ``watch.scope`` ``watch.grace`` seconds later (if still open).

        Shortening the scope's deadline, rather than a task per call waiting for
        a fault, keeps a call to one task: the engine makes hundreds.
        """
        self._watches.append(watch)
        try:
            yield
        finally:
            self._watches.remove(watch)

    def _record(self, error: Exception) -> None:
        lines = str(error).strip().splitlines()
        self.count += 1
        self.last = f"{type(error).__name__}: {lines[0] if lines else ''}"[:MAX_FAULT_CHARS]
        for watch in self._watches:
            if watch.fault is None:
                watch.fault = self.last
                ends = anyio.current_time() + watch.grace
                watch.scope.deadline = min(watch.scope.deadline, ends)
