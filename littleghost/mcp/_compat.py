"""Every use of the MCP SDK's internals, in one place.

littleghost bounds what a server sends by replacing the connector an
``mcp.Client`` resolves at construction, and starts stdio servers with the
SDK's own process helpers (so process groups, Windows job objects and the
spec's shutdown sequence stay the SDK's). The testing kit's fake server
names the SDK's stream types, and its fuzzing engine asks whether a client
connected already; it reaches both through ``littleghost.mcp``. None of these
is public API: when the SDK changes, this module is the one to change.

Tested with mcp 2.3.0, which is both the lowest supported and the newest 2.x
on PyPI (checked with ``pip index versions mcp`` on 2026-12-01).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import IO, Any, cast

import mcp
from mcp.client import session as _sdk_session
from mcp.client import stdio as _sdk_stdio
from mcp.client._transport import TransportStreams
from mcp.shared import _httpx_utils  # pyright: ignore[reportPrivateUsage]
from mcp.shared._stream_protocols import ReadStream, WriteStream

__all__ = [
    "DEFAULT_HTTP_READ_TIMEOUT",
    "DEFAULT_HTTP_TIMEOUT",
    "Connector",
    "ReadStream",
    "TransportStreams",
    "WriteStream",
    "client_entered",
    "connector",
    "dispatcher_closed",
    "executable_command",
    "forget_negotiation",
    "replace_connector",
    "stamp",
    "start_process",
    "stop_process",
]

Connector = Callable[[AsyncExitStack, Any, bool], Awaitable[Any]]
"""``mcp.Client._connect``: enters a transport on the stack and returns the session's dispatcher."""

DEFAULT_HTTP_TIMEOUT: float = _httpx_utils.MCP_DEFAULT_TIMEOUT
"""The SDK's connect/write/pool timeout for Streamable HTTP (seconds)."""

DEFAULT_HTTP_READ_TIMEOUT: float = _httpx_utils.MCP_DEFAULT_SSE_READ_TIMEOUT
"""The SDK's read timeout for Streamable HTTP: a server may hold a stream open (seconds)."""


def connector(client: mcp.Client) -> Connector:
    """The connector ``client`` resolved from its ``server`` at construction."""
    return client._connect  # pyright: ignore[reportPrivateUsage]


def replace_connector(client: mcp.Client, replacement: Connector) -> None:
    """Make ``client`` connect through ``replacement`` (before it is entered)."""
    client._connect = replacement  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue]


def client_entered(client: mcp.Client) -> bool:
    """Whether ``client`` was entered already (a client connects once)."""
    return bool(getattr(client, "_entered", False))


def dispatcher_closed(dispatcher: object) -> bool:
    """Whether the SDK's JSON-RPC read loop is over (in-process dispatchers have no flag)."""
    return bool(getattr(dispatcher, "_closed", False))


def stamp(session: Any, data: dict[str, Any], options: dict[str, Any]) -> None:
    """Add what the session's negotiated protocol puts in a request to ``data``, ``options``."""
    session._stamp(data, options)  # pyright: ignore[reportPrivateUsage]


def forget_negotiation(session: Any) -> Callable[[], None]:
    """Stamp the session's requests as before it negotiated (for a handshake after the fact);
    the function returned puts the negotiated stamp back."""
    negotiated = session._stamp

    def restore() -> None:
        session._stamp = negotiated

    session._stamp = _sdk_session._preconnect_stamp  # pyright: ignore[reportPrivateUsage]
    return restore


async def executable_command(command: str) -> str:
    """The command as the platform runs it (the SDK resolves ``.cmd`` shims on Windows)."""
    return await _sdk_stdio._get_executable_command(command)  # pyright: ignore[reportPrivateUsage]


async def start_process(
    command: str,
    args: list[str],
    env: dict[str, str],
    stderr: IO[str] | int,
    cwd: Path | str | None,
) -> Any:
    """Start a stdio server in its own process group, as the SDK does; ``stderr`` may be a pipe."""
    errlog = cast(Any, stderr) if stderr is not None else sys.stderr
    return await _sdk_stdio._create_platform_compatible_process(  # pyright: ignore[reportPrivateUsage]
        command=command, args=args, env=env, errlog=errlog, cwd=cwd
    )


async def stop_process(process: Any) -> None:
    """The spec's shutdown: close stdin, wait, then terminate the process group."""
    await _sdk_stdio._stop_server_process(process)  # pyright: ignore[reportPrivateUsage]
