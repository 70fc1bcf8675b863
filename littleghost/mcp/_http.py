"""An HTTP client for Streamable HTTP servers that reads bodies within ``max_result_bytes``.

The SDK reads a JSON response body whole (``aread``) and buffers SSE lines of
any length, so a server answering 1 GB takes gigabytes and outlives deadlines.
The transport below counts bytes as they arrive -- per body for JSON, per event
for ``text/event-stream`` -- and once a message passes the bound it breaks the
connection (``Wire.fail``) and stops reading: memory stays near the bound and
every waiting call fails at once. Bodies are requested uncompressed (a few KiB
of gzip can inflate to gigabytes after counting) and a compressed one is refused.

Each message is judged (``_answers.py``) before the SDK parses it, as over
stdio: an answer with both ``result`` and ``error``, or with a string id the
client never sent (which the SDK rewrites to the posted request's id on an
event stream), breaks the connection the same way.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import anyio
import httpx2
import pydantic_core

from . import _compat as compat
from ._answers import breach
from ._bounds import exceeded
from ._exceptions import MalformedMessage

if TYPE_CHECKING:
    from ._wire import Wire

__all__ = ["bounded_http_client"]

_LINE_END = re.compile(rb"\r\n?|\n")
"""An SSE line ends in CRLF, CR or LF."""

BodyKind = Literal["json", "events", "other"]
"""What a response body holds: one JSON-RPC message, an SSE stream, or nothing the SDK parses."""


def bounded_http_client(
    wire: Wire,
    headers: Mapping[str, str] | None = None,
    on_response: Callable[[httpx2.Response], object] | None = None,
) -> httpx2.AsyncClient:
    """The SDK's default client (same timeouts), reading through a ``BoundedTransport``.

    ``on_response`` sees every response before its body is read (a 401 or 403
    is reported by the SDK like any 4xx; the hook can tell them apart).
    """
    timeout = httpx2.Timeout(compat.DEFAULT_HTTP_TIMEOUT, read=compat.DEFAULT_HTTP_READ_TIMEOUT)
    hooks: dict[str, list[Callable[..., Any]]] = {}
    if on_response is not None:
        hook = on_response

        async def notify(response: httpx2.Response) -> None:
            hook(response)

        hooks["response"] = [notify]
    return httpx2.AsyncClient(
        timeout=timeout,
        headers=dict(headers or {}),
        event_hooks=hooks,
        transport=BoundedTransport(httpx2.AsyncHTTPTransport(), wire),
    )


class BoundedTransport(httpx2.AsyncBaseTransport):
    """Wraps every response body in a ``BoundedBody``."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, wire: Wire) -> None:
        self._inner = inner
        self._wire = wire

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["accept-encoding"] = "identity"
        response = await self._inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding != "identity":
            self._wire.fail(
                MalformedMessage(
                    f"MCP server sent a {encoding}-encoded body though asked for identity; "
                    "connection closed",
                    connection_closed=True,
                )
            )
        body = BoundedBody(response.stream, self._wire, kind=_kind(response))  # pyright: ignore[reportArgumentType]
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=body,
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _kind(response: httpx2.Response) -> BodyKind:
    content_type = response.headers.get("content-type", "").lower()
    if content_type.startswith("text/event-stream"):
        return "events"
    return "json" if content_type.startswith("application/json") else "other"


class BoundedBody(httpx2.AsyncByteStream):
    """Counts a body's bytes (or each SSE event's) and judges its messages; stalls on a fault.

    A JSON body is judged once it is whole, before its last byte reaches the
    SDK; an event stream's messages as their events end. Only what arrives as
    ``application/json`` or ``text/event-stream`` is judged: the SDK parses nothing else.
    """

    def __init__(self, inner: httpx2.AsyncByteStream, wire: Wire, *, kind: BodyKind) -> None:
        self._inner = inner
        self._wire = wire
        self._kind = kind

    async def __aiter__(self) -> AsyncIterator[bytes]:
        limit = self._wire.bounds.max_result_bytes
        events = EventReader() if self._kind == "events" else None
        body: list[bytes] = []
        size = 0
        async for chunk in self._inner:
            if self._wire.broken:
                break
            messages: list[bytes] = []
            if events is not None:
                messages = events.feed(chunk)
                size = events.size
            else:
                size += len(chunk)
                if self._kind == "json":
                    body.append(chunk)
            if size > limit:
                what = "an event" if events is not None else "a response body"
                self._wire.fail(exceeded("max_result_bytes", limit, f"{what} longer than that"))
                break
            if not self._admit(messages):
                break
            yield chunk
        else:
            if self._kind == "json":
                self._admit([b"".join(body)])
        if self._wire.broken:
            # The waiting calls have failed already; park the SDK's reader until
            # the connection closes rather than hand it a truncated message.
            await anyio.sleep_forever()

    def _admit(self, messages: list[bytes]) -> bool:
        """Whether every message keeps JSON-RPC's rules; the first that does not breaks the wire.

        What does not parse is left to the SDK, which reports it as malformed.
        """
        for data in messages:
            try:
                raw = pydantic_core.from_json(data)
            except ValueError:
                continue
            breached = breach(raw, string_ids_sent=self._wire.sent_string_ids)
            if breached is not None:
                self._wire.fail(breached)
                return False
        return True

    async def aclose(self) -> None:
        await self._inner.aclose()


class EventReader:
    """Frames a ``text/event-stream`` as the SSE specification does, in linear time.

    ``feed`` returns the data of every ``message`` event a chunk completes (the
    only events the SDK reads); ``size`` is how many bytes arrived since the
    last event ended, the event being read.
    """

    def __init__(self) -> None:
        self.size = 0
        self._line = bytearray()
        self._data: list[bytes] = []
        self._event = b""
        self._after_cr = False  # the last chunk ended in CR: an LF opening the next one is its pair

    def feed(self, chunk: bytes) -> list[bytes]:
        completed: list[bytes] = []
        self.size += len(chunk)
        start = 1 if self._after_cr and chunk.startswith(b"\n") else 0
        self._after_cr = chunk.endswith(b"\r")
        for end in _LINE_END.finditer(chunk, start):
            self._line += chunk[start : end.start()]
            start = end.end()
            if self._line:
                self._field(bytes(self._line))
                self._line.clear()
                continue
            if self._data and self._event in (b"", b"message"):
                completed.append(b"\n".join(self._data))
            self._data, self._event = [], b""
            self.size = len(chunk) - start
        self._line += chunk[start:]
        return completed

    def _field(self, line: bytes) -> None:
        name, _, value = line.partition(b":")
        value = value.removeprefix(b" ")
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event = value
