"""A stdio transport that reads a server's stdout within ``max_result_bytes`` per line.

The SDK's stdio reader re-joins its whole buffer on every chunk (a 40 MB line
costs seconds of loop stalls), keeps any line however long, and stops reading
for good -- without telling anyone -- on a line that is not valid UTF-8. This
one finds line ends in each new chunk only, refuses a line past the bound
before buffering it, and breaks the connection (``Wire.fail``) on anything it
cannot read, including an answer JSON-RPC forbids (``_answers.py``: both
``result`` and ``error``, or a string id the client never sent). Process
start and shutdown are the SDK's own (same spec sequence: close stdin, wait,
terminate the process group).

The server's stderr goes to a file, or line by line to a callback
(``MAX_STDERR_LINE_CHARS`` per line: a server may write without newlines),
redacted (``Wire.redactor``).

The server gets a temp folder of its own (``TMPDIR``, ``TEMP`` and ``TMP``),
created at start and removed once it has exited, however the connection ends:
a server that cleans "its" temp folder must not empty the user's, and its
scratch files must not outlive the run. ``inherit_tmpdir=True`` passes
ours on instead (the SDK's default environment leaves it out: such a server
would use the system's, ``/tmp``); a ``TMPDIR`` the caller put in ``env`` wins.
"""

from __future__ import annotations

import codecs
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import IO, TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
import mcp_types as types
import pydantic_core
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.shared.message import SessionMessage

import littleghost as lg

from . import _compat as compat
from ._answers import breach
from ._bounds import exceeded
from ._exceptions import MalformedMessage, TransportError
from ._failures import unparseable

if TYPE_CHECKING:
    from ._wire import Wire

__all__ = [
    "MAX_STDERR_LINE_CHARS",
    "TMPDIR_PREFIX",
    "TMPDIR_VARIABLES",
    "LineReader",
    "bounded_stdio_client",
]

MAX_STDERR_LINE_CHARS = 64 * 1024
"""A stderr callback gets lines of at most this many characters; a longer line arrives in pieces."""

TMPDIR_VARIABLES = ("TMPDIR", "TEMP", "TMP")
"""Where programs look for their temp folder (POSIX, then Windows)."""

TMPDIR_PREFIX = "littleghost-server-tmp-"
"""A server's private temp folder is made in ours, named with this prefix."""

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


def parse_line(
    line: bytes, encoding: str, errors: str, *, string_ids_sent: bool = False
) -> SessionMessage | None:
    """One JSON-RPC message, ``None`` for a blank line; ``ProtocolError`` if unreadable."""
    try:
        text = line.decode(encoding, errors)
    except UnicodeDecodeError as error:
        raise MalformedMessage(
            f"MCP server sent a line that is not valid {encoding} "
            f"(byte {error.start}); connection closed",
            connection_closed=True,
        ) from error
    if not text.strip():
        return None
    try:
        # Parsed, then validated: faster than validate_json for large results,
        # and the keys can be checked before the SDK's models drop one.
        raw = pydantic_core.from_json(text)
        if (breached := breach(raw, string_ids_sent=string_ids_sent)) is not None:
            raise breached
        message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValueError as error:
        raise unparseable(error) from error
    return SessionMessage(message)


@asynccontextmanager
async def bounded_stdio_client(
    server: StdioServerParameters,
    wire: Wire,
    stderr: IO[str] | Callable[[str], object] | None = None,
    *,
    inherit_tmpdir: bool = False,
) -> AsyncIterator[Any]:
    """``mcp.client.stdio.stdio_client`` with a bounded reader that reports to ``wire``.

    The server gets a private temp folder, removed once it exited (see above).
    """
    if inherit_tmpdir or "TMPDIR" in (server.env or {}):
        ours = {name: os.environ[name] for name in TMPDIR_VARIABLES if name in os.environ}
        if inherit_tmpdir:
            server = server.model_copy(update={"env": ours | (server.env or {})})
        async with _stdio_client(server, wire, stderr) as streams:
            yield streams
        return
    private = tempfile.mkdtemp(prefix=TMPDIR_PREFIX)
    try:
        env = (server.env or {}) | dict.fromkeys(TMPDIR_VARIABLES, private)
        async with _stdio_client(server.model_copy(update={"env": env}), wire, stderr) as streams:
            yield streams
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(_remove, private)


@asynccontextmanager
async def _stdio_client(
    server: StdioServerParameters,
    wire: Wire,
    stderr: IO[str] | Callable[[str], object] | None,
) -> AsyncIterator[Any]:
    command = await compat.executable_command(server.command)
    process = await compat.start_process(
        command,
        server.args,
        get_default_environment() | (server.env or {}),
        subprocess.PIPE if callable(stderr) else (stderr or sys.stderr),
        server.cwd,
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
                                line,
                                server.encoding,
                                server.encoding_error_handler,
                                string_ids_sent=wire.sent_string_ids,
                            )
                            if message is not None:
                                await reader_writer.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass  # the session, or our own shutdown, closed the streams
                except lg.ProviderError as error:
                    wire.fail(error)
                except Exception as error:  # the reader died: nothing will ever answer again
                    failure = TransportError(
                        f"reading the MCP server's stdout failed: {error!r}"[:300]
                    )
                    failure.__cause__ = error
                    wire.fail(failure)
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
        await compat.stop_process(process)
        for stream in (read_stream, write_stream, reader_writer, writer_reader):
            await stream.aclose()
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(write_stdin)
        if callable(stderr):
            callback = stderr
            group.start_soon(
                _forward_stderr, process.stderr, lambda line: callback(wire.redactor.text(line))
            )
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await shutdown()
            group.cancel_scope.cancel()


def _remove(path: str) -> None:
    """Remove a server's temp folder, whatever it left in it (read-only folders too)."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):  # a folder the server made read-only: make it ours again
        for folder, _, _ in os.walk(path):
            with suppress(OSError):
                os.chmod(folder, 0o700)
        shutil.rmtree(path, ignore_errors=True)


async def _forward_stderr(stream: Any, callback: Callable[[str], object]) -> None:
    """Hand the server's stderr to ``callback`` line by line, cut at ``MAX_STDERR_LINE_CHARS``."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        async for chunk in stream:
            pending += decoder.decode(chunk)
            *lines, pending = pending.split("\n")
            while len(pending) > MAX_STDERR_LINE_CHARS:
                lines.append(pending[:MAX_STDERR_LINE_CHARS])
                pending = pending[MAX_STDERR_LINE_CHARS:]
            for line in lines:
                for start in range(0, max(len(line), 1), MAX_STDERR_LINE_CHARS):
                    callback(line[start : start + MAX_STDERR_LINE_CHARS])
    if pending:
        callback(pending)


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
