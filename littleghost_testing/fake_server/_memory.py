"""The in-process transport: the fake server runs in the client's own event loop.

Unlike ``mcp.Client(server)`` (the SDK's direct in-process dispatch, which has
no wire to break), this speaks JSON-RPC over memory streams, so a crash can
fail the connection the way a dying process or socket would.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage

from ._serving import Serving, serve_streams

if TYPE_CHECKING:
    from littleghost.mcp import _TransportStreams as TransportStreams

__all__ = ["MemoryTransport"]

_BUFFER = 16
_SHUTDOWN_GRACE_SECONDS = 2.0
"""How long a closing client lets the server finish on its own before cancelling it."""


class MemoryTransport:
    """One client connection to an in-process server; a session from enter to exit."""

    def __init__(self, server: Server[Any]) -> None:
        self._server = server
        self._scope = anyio.CancelScope()
        self._task_group: anyio.abc.TaskGroup | None = None
        self._to_client: Any = None

    async def __aenter__(self) -> TransportStreams:
        to_client, client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](
            _BUFFER
        )
        client_writes, from_client = anyio.create_memory_object_stream[SessionMessage](_BUFFER)
        self._to_client = to_client
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        self._task_group.start_soon(self._serve, from_client, to_client)
        return client_reads, client_writes

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        assert self._task_group is not None
        self._scope.deadline = anyio.current_time() + _SHUTDOWN_GRACE_SECONDS
        return await self._task_group.__aexit__(exc_type, exc_value, traceback)

    async def _serve(self, from_client: Any, to_client: Any) -> None:
        try:
            with self._scope:
                serving = Serving(self._crash, self._raw)
                await serve_streams(self._server, from_client, to_client, serving)
        finally:
            from_client.close()
            to_client.close()

    async def _raw(self, data: bytes) -> None:
        """What a stdio client makes of ``data`` as a line: a message, or the parse error."""
        assert self._to_client is not None
        try:
            message: SessionMessage | Exception = SessionMessage(
                types.jsonrpc_message_adapter.validate_json(data, by_name=False)
            )
        except ValueError as error:
            message = error
        await self._to_client.send(message)

    async def _crash(self) -> None:
        """Fail the connection: the client reads EOF at once, then the server stops."""
        assert self._to_client is not None
        self._to_client.close()
        self._scope.cancel()
        await anyio.sleep_forever()
