"""Clients for the hostile servers: in memory, over stdio, over HTTP (real subprocesses)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import mcp
import mcp_types as types
from mcp.client.stdio import StdioServerParameters
from mcp.shared.message import SessionMessage

from tests.hostile.servers.behaviors import Exit, Silent, answer

REPO = Path(__file__).resolve().parents[3]
TRANSPORTS = ["memory", "stdio", "http"]


def stdio_client(behavior: str, size: int = 0) -> mcp.Client:
    module = "tests.hostile.servers.raw_stdio"
    command = [sys.executable, "-m", module, behavior, str(size)]
    parameters = StdioServerParameters(
        command=command[0], args=command[1:], env={"PYTHONPATH": str(REPO)}, cwd=REPO
    )
    return mcp.Client(parameters)


@contextmanager
def http_server(behavior: str, size: int = 0) -> Iterator[str]:
    """Start the raw HTTP server in a subprocess; yield its URL; stop it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.hostile.servers.raw_http", behavior, str(size)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


class RawMemoryTransport:
    """In-process: the same raw answers, parsed the way a transport parses a line.

    A line that does not parse reaches the client as an ``Exception`` item --
    what the SDK's transports hand over for data they cannot read.
    """

    def __init__(self, behavior: str, size: int = 0) -> None:
        self._behavior = behavior
        self._size = size
        self._group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> tuple[Any, Any]:
        to_client, self._client_reads = anyio.create_memory_object_stream[Any](100)
        self._client_writes, from_client = anyio.create_memory_object_stream[Any](100)
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(self._serve, from_client, to_client)
        return self._client_reads, self._client_writes

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._group is not None
        self._group.cancel_scope.cancel()
        await self._group.__aexit__(None, None, None)
        await self._client_reads.aclose()
        await self._client_writes.aclose()

    async def _serve(self, from_client: Any, to_client: Any) -> None:
        async with from_client, to_client:
            async for message in from_client:
                request = message.message.model_dump(by_alias=True, exclude_none=True)
                try:
                    raw = b"".join(answer(request, self._behavior, self._size))
                except Silent:
                    continue
                except Exit:
                    return
                for line in raw.splitlines():
                    try:
                        item: Any = SessionMessage(
                            types.jsonrpc_message_adapter.validate_json(line)
                        )
                    except ValueError as error:
                        item = error
                    await to_client.send(item)


@contextmanager
def client_factory(transport: str, behavior: str, size: int = 0) -> Iterator[Any]:
    """A callable making fresh clients for one hostile server on ``transport``."""
    if transport == "memory":
        yield lambda: mcp.Client(RawMemoryTransport(behavior, size))
    elif transport == "stdio":
        yield lambda: stdio_client(behavior, size)
    else:
        with http_server(behavior, size) as url:
            yield lambda: mcp.Client(url)
