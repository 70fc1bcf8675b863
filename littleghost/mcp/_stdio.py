"""A stdio transport that reads a server's stdout within ``max_result_bytes`` per line.

The SDK's stdio reader re-joins its whole buffer on every chunk (a 40 MB line
costs seconds of loop stalls), keeps any line however long, and stops reading
for good -- without telling anyone -- on a line that is not valid UTF-8. This
one finds line ends in each new chunk only, refuses a line past the bound
before buffering it, and breaks the connection (``Wire.fail``) on anything it
cannot read. Process start and shutdown are the SDK's own (same spec sequence:
close stdin, wait, terminate the process group).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
import mcp_types as types
from mcp.client.stdio import (  # the SDK's own process lifecycle, helpers included
    StdioServerParameters,
    _create_platform_compatible_process,
    _get_executable_command,
    _stop_server_process,
    get_default_environment,
)
from mcp.shared.message import SessionMessage

import littleghost as lg

from ._bounds import exceeded
from ._failures import unparseable

if TYPE_CHECKING:
    from ._wire import Wire

__all__ = ["LineReader", "bounded_stdio_client"]

_WRITER_FLUSH_SECONDS = 0.5
"""How long shutdown lets the writer flush accepted messages before stdin closes (as the SDK)."""


class LineReader:
    """Splits a byte stream into lines of at most ``limit`` bytes, in linear time."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._partial = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        """The complete lines ``chunk`` ends; raises ``ProtocolError`` once a line is too long."""
        lines: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._check(end - start)
            if self._partial:
                self._partial += chunk[start:end]
                lines.append(bytes(self._partial))
                self._partial.clear()
            else:
                lines.append(chunk[start:end])
            start = end + 1
        self._check(len(chunk) - start)
        self._partial += chunk[start:]
        return lines

    def _check(self, more: int) -> None:
        size = len(self._partial) + more
        if size > self._limit:
            raise exceeded("max_result_bytes", self._limit, "a message longer than that")


def parse_line(line: bytes, encoding: str, errors: str) -> SessionMessage | None:
    """One JSON-RPC message, ``None`` for a blank line; ``ProtocolError`` if unreadable."""
    try:
        text = line.decode(encoding, errors)
    except UnicodeDecodeError as error:
        raise lg.ProtocolError(
            f"MCP server sent a line that is not valid {encoding} "
            f"(byte {error.start}); connection closed"
        ) from None
    if not text.strip():
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError as error:
        raise unparseable(error) from None
    return SessionMessage(message)


@asynccontextmanager
async def bounded_stdio_client(server: StdioServerParameters, wire: Wire) -> AsyncIterator[Any]:
    """``mcp.client.stdio.stdio_client`` with a bounded reader that reports to ``wire``."""
    command = await _get_executable_command(server.command)
    process = await _create_platform_compatible_process(
        command=command,
        args=server.args,
        env=get_default_environment() | (server.env or {}),
        errlog=sys.stderr,
        cwd=server.cwd,
    )
    # No awaits until the task group is entered, or a cancellation would leak the process.
    reader_writer, read_stream = anyio.create_memory_object_stream[SessionMessage](0)
    write_stream, writer_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    stdout, stdin = process.stdout, process.stdin
    assert stdout is not None and stdin is not None, "the server is spawned with pipes"

    async def read_stdout() -> None:
        lines = LineReader(wire.bounds.max_result_bytes)
        try:
            async with reader_writer:  # closing it ends the session's reading: fail first
                try:
                    async for chunk in stdout:
                        for line in lines.feed(chunk):
                            message = parse_line(
                                line, server.encoding, server.encoding_error_handler
                            )
                            if message is not None:
                                await reader_writer.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass  # the session, or our own shutdown, closed the streams
                except lg.ProviderError as error:
                    wire.fail(error)
                except Exception as error:  # the reader died: nothing will ever answer again
                    failure = f"reading the MCP server's stdout failed: {error!r}"
                    wire.fail(lg.ProviderError(failure[:300]))
        finally:
            await _drain(stdout)

    async def write_stdin() -> None:
        try:
            async with writer_reader:
                async for session_message in writer_reader:
                    json = session_message.message.model_dump_json(
                        by_alias=True, exclude_unset=True
                    )
                    await stdin.send(
                        (json + "\n").encode(server.encoding, server.encoding_error_handler)
                    )
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await reader_writer.aclose()  # the session sees the end instead of hanging
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(_WRITER_FLUSH_SECONDS):
            await writer_done.wait()
        await _stop_server_process(process)
        for stream in (read_stream, write_stream, reader_writer, writer_reader):
            await stream.aclose()
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await shutdown()
            group.cancel_scope.cancel()


async def _drain(stdout: Any) -> None:
    """Discard the rest of stdout, so a server blocked on a full pipe can still exit."""
    with (
        anyio.CancelScope(shield=True),
        suppress(
            anyio.EndOfStream,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            ConnectionError,
            OSError,
        ),
    ):
        while True:
            await stdout.receive()
