"""Toolsets over FakeMCPServers for the contract tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, ClassVar

import anyio
import mcp
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.message import SessionMessage
from pydantic import Field

import littleghost as lg
from littleghost.mcp import Toolset, client
from littleghost_testing.fake_server import FakeMCPServer
from littleghost_testing.fake_server._memory import MemoryTransport

help_desk = FakeMCPServer("help-desk")


@help_desk.tool(description="Look up a help center entry.")
def lookup(topic: str) -> str:
    return f"Refunds about {topic} are available within 30 days."


@help_desk.tool(
    description="Count the words of a text.",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": 40}},
        "required": ["text"],
        "additionalProperties": False,
    },
)
def count(text: str) -> dict[str, int]:
    return {"words": len(text.split())}


class HelpDeskTools(Toolset):
    def client(self, binding: lg.Binding) -> mcp.Client:
        return help_desk.client()


class RefusingHelpDeskTools(HelpDeskTools):
    """Its map_result refuses structured values with a ToolError: shown as is, as allowed."""

    def map_result(self, value: Any, **context: Any) -> Any:
        if isinstance(value, dict):
            raise lg.ToolError("structured answers are not supported")
        return value


class UnreachableTools(Toolset):
    def client(self, binding: lg.Binding) -> mcp.Client:
        return mcp.Client("http://127.0.0.1:1/mcp")


# -- toolsets broken in exactly one way, for the mutation suite ---------------------

leaky_desk = FakeMCPServer("leaky-desk")
TRACE = 'Traceback (most recent call last):\n  File "/srv/desk/app.py", line 88, in lookup\n'


@leaky_desk.tool(description="Look up a help center entry; answers failures with its traceback.")
def leaky_lookup(topic: str) -> str:
    if topic:
        return f"Refunds about {topic} are available within 30 days."
    raise ToolError(f"{TRACE}KeyError: 'topic'")


class LeakyDeskTools(Toolset):
    """The server shows its stack trace in an isError answer."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        return leaky_desk.client()


slow_desk = FakeMCPServer("slow-desk")
SLOW_SECONDS = 0.15
"""How long the slow desk takes to answer the simplest input (the one the stop probes use)."""


@slow_desk.tool(description="Look up a help center entry, slowly for an empty topic.")
async def slow_lookup(topic: str) -> str:
    if not topic:
        await anyio.sleep(SLOW_SECONDS)
    return f"Refunds about {topic} are available within 30 days."


class _HangUpOnCancel:
    """Client transport whose connection dies once a request is cancelled: a server hanging up."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aenter__(self) -> Any:
        read_stream, write_stream = await self._inner.__aenter__()
        return read_stream, _Tripwire(write_stream)

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._inner.__aexit__(*exc_info)


class _Tripwire:
    """A write stream that is closed for whatever follows a ``notifications/cancelled``."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._tripped = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def __aenter__(self) -> _Tripwire:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._stream.__aexit__(*exc_info)

    async def send(self, item: SessionMessage) -> None:
        if self._tripped:
            await self._stream.aclose()  # the server is gone: this send fails, the session ends
        await self._stream.send(item)
        if getattr(item.message, "method", None) == "notifications/cancelled":
            self._tripped = True


class HangUpOnCancelTools(Toolset):
    """Cancelling a call mid-flight kills the connection every tool shares."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        lowlevel = slow_desk._sdk._lowlevel_server  # pyright: ignore[reportPrivateUsage]
        return mcp.Client(_HangUpOnCancel(MemoryTransport(lowlevel)))


class SlowDeskTools(Toolset):
    """The same slow server, well connected: passes every check."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        return slow_desk.client()


class CancelBlindTools(HelpDeskTools):
    """Breaks discovery cancellation: a cancelled run discovers no tools instead of raising."""

    @classmethod
    async def tools(cls, binding: lg.Binding | None = None) -> list[type[lg.Tool]]:
        try:
            return await super().tools(binding)
        except lg.CancelledError:
            return []


class DeadlineBlindTools(HelpDeskTools):
    """Breaks the discovery deadline: an expired run discovers no tools instead of raising."""

    @classmethod
    async def tools(cls, binding: lg.Binding | None = None) -> list[type[lg.Tool]]:
        try:
            return await super().tools(binding)
        except lg.DeadlineExceededError:
            return []


class OrphaningTools(SlowDeskTools):
    """Breaks cleanup: connecting starts a helper process that nothing ever stops."""

    orphans: ClassVar[list[subprocess.Popen[bytes]]] = []

    def client(self, binding: lg.Binding) -> mcp.Client:
        sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
        self.orphans.append(subprocess.Popen(sleeper))
        return super().client(binding)


crashing_desk = MCPServer("crashing-desk")


@crashing_desk.tool(description="Pages per part.")
def pages(total: int, parts: int) -> float:
    return total / parts  # ZeroDivisionError for parts 0, which the schema allows


class CrashingDeskTools(Toolset):
    """An SDK server whose tool crashes on a valid input: MCPServer's crash shape."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        return mcp.Client(crashing_desk)


PLANTED_SERVER = Path(__file__).with_name("planted_stdio_server.py")


class PlantedStdioTools(Toolset):
    """planted_stdio_server.py over stdio: a planted bug per tool, two correct tools last."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        return client([sys.executable, str(PLANTED_SERVER)], stderr=lambda line: None)


class OnceStdioTools(PlantedStdioTools):
    """The planted server, which cannot be started again once it died."""

    started: ClassVar[list[int]] = []

    def client(self, binding: lg.Binding) -> mcp.Client:
        self.started.append(1)
        if len(self.started) == 1:
            return super().client(binding)
        return client([sys.executable, "-c", "raise SystemExit(3)"], stderr=lambda line: None)


boundary_desk = MCPServer("boundary-desk", log_level="CRITICAL")


@boundary_desk.tool(description="List the books matching a query.")
def list_books(query: str, limit: Annotated[int, Field(ge=1, le=50)] = 10) -> str:
    books = [f"Book {number}" for number in range(1, 50)]  # bug: 49 books, limit allows 50
    return f"{books[limit - 1]} and more"


class BoundaryDeskTools(Toolset):
    """In process: a crash at the schema's maximum only, the bug random draws rarely hit."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        return mcp.Client(boundary_desk)
