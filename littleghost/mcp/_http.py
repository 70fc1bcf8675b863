"""An HTTP client for Streamable HTTP servers that reads bodies within ``max_result_bytes``.

The SDK reads a JSON response body whole (``aread``) and buffers SSE lines of
any length, so a server answering 1 GB takes gigabytes and outlives deadlines.
The transport below counts bytes as they arrive -- per body for JSON, per event
for ``text/event-stream`` -- and once a message passes the bound it breaks the
connection (``Wire.fail``) and stops reading: memory stays near the bound and
every waiting call fails at once. Bodies are requested uncompressed (a few KiB
of gzip can inflate to gigabytes after counting) and a compressed one is refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio
import httpx2

from . import _compat as compat
from ._bounds import exceeded
from ._exceptions import MalformedMessage

if TYPE_CHECKING:
    from ._wire import Wire

__all__ = ["bounded_http_client"]

_EVENT_ENDS = (b"\n\n", b"\r\r", b"\r\n\r\n")


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
        events = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        body = BoundedBody(response.stream, self._wire, per_event=events)  # pyright: ignore[reportArgumentType]
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=body,
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedBody(httpx2.AsyncByteStream):
    """Counts a body's bytes (or each SSE event's) and stalls the reader past the bound."""

    def __init__(self, inner: httpx2.AsyncByteStream, wire: Wire, *, per_event: bool) -> None:
        self._inner = inner
        self._wire = wire
        self._per_event = per_event

    async def __aiter__(self) -> AsyncIterator[bytes]:
        limit = self._wire.bounds.max_result_bytes
        size = 0
        tail = b""
        async for chunk in self._inner:
            if self._wire.broken:
                break
            if self._per_event:
                window = tail + chunk
                ends = [window.rfind(end) + len(end) for end in _EVENT_ENDS if end in window]
                size = len(window) - max(ends) if ends else size + len(chunk)
                tail = window[-3:]
            else:
                size += len(chunk)
            if size > limit:
                what = "an event" if self._per_event else "a response body"
                self._wire.fail(exceeded("max_result_bytes", limit, f"{what} longer than that"))
                break
            yield chunk
        if self._wire.broken:
            # The waiting calls have failed already; park the SDK's reader until
            # the connection closes rather than hand it a truncated message.
            await anyio.sleep_forever()

    async def aclose(self) -> None:
        await self._inner.aclose()
