"""The seam between the SDK's client and its transport, where a server's bytes are bounded.

The SDK reads a server's messages without limit and, when it cannot parse one,
logs it and drops it, leaving the request that waited for it hanging.
``install`` replaces the client's connector so that:

- stdio and Streamable HTTP servers are read through bounded readers
  (``stdio.py``, ``http.py``): no message may exceed ``max_result_bytes``;
- anything the transport cannot parse breaks the connection (``Wire.fail``):
  every pending request fails at once with the reason, and so does every later one;
- a ``tools/call`` result is measured while it is still plain JSON, before the
  SDK builds a model object per content block, and so is a ``tools/list``
  page (``Wire.listed_bytes``, which discovery meters), and every page of the
  resources, resource templates and prompts (``Wire.listing``); a ``tools/call``
  result without ``resultType`` is taken as ``"complete"``, as SEP-2322
  requires of clients (the SDK would reject it on 2026-07-28);
- an answer whose id is not one the client sent (the string ``"1"`` for
  request 1, which the SDK would accept) breaks the connection too: the
  bounded readers judge it on the raw JSON (``_answers.py``), and the read
  stream below judges the models of any other transport.

Every message the transport hands over is redacted first (``_secrets.py``):
no value the route sent the server -- a header, an env value, a URL's query
or password -- reaches the SDK, and so neither a result, an error nor a log
line, whatever the server echoes.

``Route`` carries what the connection factory (``_client.py``) was told about
reaching the server: headers, a response hook, where stderr goes, the secrets
sent, and whether a stdio server keeps the inherited temp folder.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import IO, Any

import anyio
import mcp
import mcp_types as types
import pydantic_core
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.dispatcher import Dispatcher
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage

import littleghost as lg

from .._redaction import Redactor
from . import _compat as compat
from ._answers import string_id
from ._bounds import Bounds, exceeded
from ._failures import unparseable
from ._http import bounded_http_client
from ._protocol import Negotiation, Protocol
from ._secrets import redacted_message
from ._stdio import bounded_stdio_client

__all__ = ["Route", "Wire", "install", "redactor_of"]

LISTINGS = frozenset({"resources/list", "resources/templates/list", "prompts/list"})
"""Listings metered here, page by page; discovery meters ``tools/list`` (``CatalogMeter``)."""

Stderr = IO[str] | Callable[[str], object] | None
"""Where a stdio server's stderr goes: a real file, a callback per line, or our own stderr."""


@dataclass(frozen=True)
class Route:
    """How to reach the server beyond its address (see ``littleghost.mcp.client``)."""

    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    on_response: Callable[[Any], object] | None = None
    stderr: Stderr = None
    redactor: Redactor = field(default_factory=Redactor)
    """Every secret sent, to hide in what the server sends back."""
    inherit_tmpdir: bool = False
    """Whether a stdio server keeps our ``TMPDIR`` rather than get a private one."""
    protocol: Protocol = "auto"


class Wire:
    """One connection's bounds, and the reason it broke (once it has)."""

    def __init__(
        self, bounds: Bounds, negotiation: Negotiation, redactor: Redactor | None = None
    ) -> None:
        self.bounds = bounds
        self.negotiation = negotiation
        self.redactor = Redactor() if redactor is None else redactor
        self._failure: lg.ProviderError | None = None
        self._receive_scope: anyio.CancelScope | None = None
        self.dispatcher: Any = None
        # The JSON size of the last tools/list result, as the server sent it.
        self.listed_bytes = 0
        # Whether the client ever sent a request id that is a string (the SDK sends ints).
        self.sent_string_ids = False
        self._listed: dict[str, int] = {}  # JSON bytes of each listing so far, by method

    @property
    def broken(self) -> bool:
        return self._failure is not None

    @property
    def loop_ended(self) -> bool:
        """Whether the SDK's read loop is over (its own flag; in-process dispatchers have none)."""
        return compat.dispatcher_closed(self.dispatcher)

    def error(self) -> lg.ProviderError:
        """A fresh copy of the failure, so concurrent callers never share one traceback."""
        assert self._failure is not None
        fresh = copy.copy(self._failure)
        fresh.__traceback__ = None
        fresh.__cause__ = self._failure.__cause__
        return fresh

    def listing(self, method: str, params: Mapping[str, Any] | None, size: int) -> None:
        """Count one page of ``size`` JSON bytes against ``max_catalog_bytes``, per listing.

        A page asked for without a cursor starts the listing again.
        """
        first = not (params or {}).get("cursor")
        total = size + (0 if first else self._listed.get(method, 0))
        self._listed[method] = total
        limit = self.bounds.max_catalog_bytes
        if total > limit:
            raise exceeded("max_catalog_bytes", limit, f"{method} listing of {total} bytes")

    def fail(self, error: lg.ProviderError) -> None:
        """Break the connection: the first reason sticks and the read loop stops now."""
        if self._failure is None:
            self.redactor.exception(error)  # it may quote what the server sent
            self._failure = error
        if self._receive_scope is not None:
            self._receive_scope.cancel()


def install(
    client: mcp.Client, bounds: Bounds, route: Route | None = None, protocol: Protocol | None = None
) -> Wire:
    """Route ``client``'s connection through a ``Wire``; call before the client is entered.

    A client already routed (one the connection factory made) keeps its route
    and takes ``bounds``: a ``Toolset``'s limits apply to every client it
    connects, and so does its ``protocol`` when it names one.
    """
    existing = compat.connector(client)
    if isinstance(existing, BoundedConnector):
        existing.wire.bounds = bounds
        if protocol is not None:
            existing.wire.negotiation.protocol = protocol
        return existing.wire
    route = route or Route()
    wire = Wire(bounds, Negotiation(client, protocol or route.protocol), route.redactor)
    connector = BoundedConnector(client.server, existing, wire, route)
    compat.replace_connector(client, connector)
    return connector.wire


def redactor_of(client: mcp.Client) -> Redactor:
    """The secrets ``client`` sends its server (none for a client ``install`` never routed)."""
    existing = compat.connector(client)
    return existing.wire.redactor if isinstance(existing, BoundedConnector) else Redactor()


class BoundedConnector:
    """The client's connector: the SDK's transports for ``server``, read through bounds."""

    def __init__(
        self, server: Any, sdk_connect: compat.Connector, wire: Wire, route: Route
    ) -> None:
        self.server = server
        self.wire = wire
        self._sdk_connect = sdk_connect
        self._route = route

    async def __call__(self, stack: AsyncExitStack, mode: Any, raise_exceptions: bool) -> Any:
        server, wire, route = self.server, self.wire, self._route
        if isinstance(server, Server | MCPServer):
            # In-process: no bytes to bound; results are still measured as JSON.
            wire.dispatcher = await self._sdk_connect(stack, mode, raise_exceptions)
            return CheckedDispatcher(wire.dispatcher, wire)
        if isinstance(server, str):
            http = await stack.enter_async_context(
                bounded_http_client(wire, route.headers, route.on_response)
            )
            transport: Any = streamable_http_client(
                server, http_client=http, max_sse_event_size=None
            )
        elif isinstance(server, StdioServerParameters):
            transport = bounded_stdio_client(
                server, wire, route.stderr, inherit_tmpdir=route.inherit_tmpdir
            )
        else:
            transport = server  # the application's own Transport
        read_stream, write_stream = await stack.enter_async_context(transport)
        wire.dispatcher = JSONRPCDispatcher(
            GuardedReadStream(read_stream, wire), RecordingWriteStream(write_stream, wire)
        )
        return CheckedDispatcher(wire.dispatcher, wire)


class RecordingWriteStream:
    """The dispatcher's view of the transport's writer: notes the kinds of request id it sends."""

    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner = inner
        self._wire = wire

    async def send(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCRequest) and isinstance(message.id, str):
            self._wire.sent_string_ids = True
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> RecordingWriteStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class GuardedReadStream:
    """The dispatcher's view of the transport: ends, rather than skips, on what cannot be read.

    What it hands on is redacted (``Wire.redactor``).
    """

    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner = inner
        self._wire = wire

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage:
        if self._wire.broken:
            raise anyio.EndOfStream
        item: Any = None
        with anyio.CancelScope() as scope:
            self._wire._receive_scope = scope
            try:
                item = await self._inner.receive()
            finally:
                self._wire._receive_scope = None
        if scope.cancel_called or self._wire.broken:
            raise anyio.EndOfStream
        if isinstance(item, Exception):
            self._wire.fail(unparseable(item))
            raise anyio.EndOfStream
        message = item.message
        if (
            isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
            and isinstance(message.id, str)
            and not self._wire.sent_string_ids
        ):
            self._wire.fail(string_id(message.id))
            raise anyio.EndOfStream
        if self._wire.redactor:
            return redacted_message(item, self._wire.redactor)
        return item

    def __aiter__(self) -> GuardedReadStream:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> GuardedReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class CheckedDispatcher:
    """Delegates to the SDK's dispatcher; measures raw answers before the SDK models them."""

    def __init__(self, inner: Dispatcher[Any], wire: Wire) -> None:
        self._inner = inner
        self._wire = wire

    async def run(self, *args: Any, **kwargs: Any) -> None:
        await self._inner.run(*args, **kwargs)

    async def notify(self, *args: Any, **kwargs: Any) -> None:
        await self._inner.notify(*args, **kwargs)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        if self._wire.broken:
            raise self._wire.error()
        negotiation = self._wire.negotiation
        negotiation.check_request(method)
        params = negotiation.with_meta(params)
        try:
            raw = await self._send(method, params, opts, **kwargs)
        except MCPError as error:
            if negotiation.falls_back(method, error) and await negotiation.handshake(error, params):
                params, opts = negotiation.restamped(params, opts)
                raw = await self._resend(method, params, opts, **kwargs)
            elif negotiation.keeps_meta(error, params):
                raw = await self._send(method, negotiation.with_meta(params), opts, **kwargs)
            else:
                raise
        if method == "tools/call":
            check_result(raw, self._wire.bounds)
            if "resultType" not in raw:
                # SEP-2322: a result without resultType is complete, for older servers;
                # the SDK's 2026-07-28 models require the field.
                raw = {**raw, "resultType": "complete"}
        elif method == "tools/list":
            self._wire.listed_bytes = len(pydantic_core.to_json(raw))
        elif method in LISTINGS:
            self._wire.listing(method, params, len(pydantic_core.to_json(raw)))
        return raw

    async def _resend(
        self, method: str, params: Mapping[str, Any] | None, opts: Any, **kwargs: Any
    ) -> dict[str, Any]:
        """A request refused statelessly, sent again after the handshake (and once more
        with the stateless ``_meta`` if the server wants that too)."""
        try:
            return await self._send(method, params, opts, **kwargs)
        except MCPError as error:
            if not self._wire.negotiation.keeps_meta(error, params):
                raise
            params = self._wire.negotiation.with_meta(params)
            return await self._send(method, params, opts, **kwargs)

    async def _send(
        self, method: str, params: Mapping[str, Any] | None, opts: Any, **kwargs: Any
    ) -> dict[str, Any]:
        try:
            return await self._inner.send_raw_request(method, params, opts, **kwargs)
        except MCPError as error:
            if error.code == types.CONNECTION_CLOSED and self._wire.broken:
                raise self._wire.error()  # noqa: B904 (its cause is why the wire broke)
            check_error(error, self._wire.bounds)
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def check_error(error: MCPError, bounds: Bounds) -> None:
    """A JSON-RPC error message longer than ``max_error_bytes`` is a ``ProtocolError``."""
    size = len(error.message.encode(errors="surrogatepass"))
    if size > bounds.max_error_bytes:
        raise exceeded(
            "max_error_bytes", bounds.max_error_bytes, f"JSON-RPC error message of {size} bytes"
        )


def check_result(raw: Mapping[str, Any], bounds: Bounds) -> None:
    """Count a result's content blocks while they are plain JSON."""
    content = raw.get("content")
    if isinstance(content, list) and len(content) > bounds.max_content_blocks:  # pyright: ignore[reportUnknownArgumentType]
        raise exceeded(
            "max_content_blocks",
            bounds.max_content_blocks,
            f"result with {len(content)} content blocks",  # pyright: ignore[reportUnknownArgumentType]
        )
