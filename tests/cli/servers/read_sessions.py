"""A ``ReadSession`` as ``check`` gives the reads one: the tools' ``Toolset`` connection.

Reopening discovers again on a fresh connection and closes the old one, as
``check`` does after a tool broke its connection; ``opened`` counts connections.
``desk()`` is a server with a tool, a resource and a prompt.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import mcp

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing._engine import ReadSession
from littleghost_testing.fake_server import FakeMCPServer


class ToolConnection:
    """One ``Toolset`` connection at a time to ``make_client``'s server."""

    def __init__(self, make_client: Callable[[], mcp.Client]) -> None:
        self.opened = 0
        self._run: lg.Run | None = None
        self._client: mcp.Client | None = None
        connection = self

        class Tools(Toolset):
            def client(self, binding: lg.Binding) -> mcp.Client:
                connection.opened += 1
                connection._client = make_client()
                return connection._client

        self._toolset = Tools

    async def reopen(self) -> mcp.Client:
        await self.aclose()
        self._run = lg.Run()
        await self._toolset.tools(lg.Binding(run=self._run))
        assert self._client is not None
        return self._client

    async def aclose(self) -> None:
        run, self._run = self._run, None
        if run is not None:
            with anyio.CancelScope(shield=True):
                await run.aclose()


@asynccontextmanager
async def tool_session(
    make_client: Callable[[], mcp.Client], seconds: float, *, usable: bool = True
) -> AsyncIterator[ReadSession]:
    """The reads' session over a tools' connection (``usable=False``: the tools broke it)."""
    connection = ToolConnection(make_client)
    try:
        current = await connection.reopen()
        yield ReadSession(connection.reopen, seconds, current if usable else None)
    finally:
        await connection.aclose()


def desk() -> FakeMCPServer:
    """A read-only tool, a resource and a prompt: ``check`` calls and reads them all."""
    fake = FakeMCPServer("desk")

    @fake.tool(annotations={"readOnlyHint": True})
    def lookup(key: str) -> str:
        return f"value of {key}"

    @fake.resource("file:///readme.txt", mime_type="text/plain")
    def readme() -> str:
        return "hello"

    @fake.prompt()
    def ask(question: str) -> str:
        return question

    return fake


desk_server = desk()
"""A module-level ``desk()``, for ``module:attribute`` targets (``reset()`` it per test)."""
