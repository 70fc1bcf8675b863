"""Counting sessions where they exist on every transport: around the client's transport.

At 2026-07-28 a Streamable HTTP client has no server-side session at all (each
request stands alone), so a session is counted as the lifetime of one
connected client transport: opened once it connects, closed when it
disconnects, whatever the server did in between.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING

from ._records import Records

if TYPE_CHECKING:
    from littleghost.mcp import _TransportStreams as TransportStreams

__all__ = ["CountedTransport"]


class CountedTransport:
    """Wraps a client transport and records the session it carries."""

    def __init__(
        self, transport: AbstractAsyncContextManager[TransportStreams], records: Records
    ) -> None:
        self._transport = transport
        self._records = records

    async def __aenter__(self) -> TransportStreams:
        streams = await self._transport.__aenter__()
        self._records.session_opened()
        return streams

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        try:
            return await self._transport.__aexit__(exc_type, exc_value, traceback)
        finally:
            self._records.session_closed()
