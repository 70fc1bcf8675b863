"""Serving one connection over a pair of message streams (memory and stdio).

The SDK's dispatcher applies ``notifications/cancelled`` before any handler
or middleware can read it, so the reason would be lost; a relay in front of
the server notes each reason by request id first. Each connection also gets
its own ``Serving`` state -- passed to handlers as the lifespan state -- that
says how this connection crashes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.runner import serve_dual_era_loop
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from littleghost.mcp import _ReadStream as ReadStream
    from littleghost.mcp import _WriteStream as WriteStream

__all__ = ["Serving", "serve_streams"]


@dataclass
class Serving:
    """Per-connection state: how to crash it or send it raw bytes, why requests were cancelled.

    ``raw`` is ``None`` where raw bytes never reach the server's handlers
    (HTTP answers them before the SDK sees the request).
    """

    crash: Callable[[], Awaitable[None]]
    raw: Callable[[bytes], Awaitable[None]] | None = None
    reasons: dict[str, str] = field(default_factory=dict[str, str])


async def serve_streams(
    server: Server[Any],
    read_stream: ReadStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
    serving: Serving,
) -> None:
    """Serve until the client closes its side; takes ownership of both streams."""
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    async with anyio.create_task_group() as task_group:
        task_group.start_soon(_relay, read_stream, send, serving.reasons)
        await serve_dual_era_loop(server, receive, write_stream, lifespan_state=serving)
        task_group.cancel_scope.cancel()


async def _relay(
    read_stream: ReadStream[SessionMessage | Exception],
    send: anyio.abc.ObjectSendStream[SessionMessage | Exception],
    reasons: dict[str, str],
) -> None:
    async with read_stream, send:
        try:
            async for item in read_stream:
                _note_reason(item, reasons)
                await send.send(item)
        except anyio.ClosedResourceError:  # the connection crashed under us: same as EOF
            pass


def _note_reason(item: SessionMessage | Exception, reasons: dict[str, str]) -> None:
    message = item.message if isinstance(item, SessionMessage) else None
    if (
        isinstance(message, types.JSONRPCNotification)
        and message.method == "notifications/cancelled"
        and message.params
    ):
        request_id, reason = message.params.get("requestId"), message.params.get("reason")
        if request_id is not None and isinstance(reason, str):
            reasons[str(request_id)] = reason
