"""``Toolset``: the tools of one MCP server, discovered per binding."""

from __future__ import annotations

import functools
import inspect
import logging
import os
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, ClassVar

import anyio
import mcp
import mcp_types as types

import littleghost as lg
from littleghost import instrumentation

from .._closing import close_after
from . import _compat as compat
from ._bounds import Bounds, CatalogMeter, event_text
from ._connection import Connection
from ._exceptions import MalformedMessage, TimeoutExceeded, UnusableTool
from ._lock import load_cached
from ._protocol import Protocol, configure
from ._server_requests import ServerRequests, decline_sampling
from ._tools import Owner, RemoteTool, generate_tool_class

__all__ = ["Toolset"]

_logger = logging.getLogger("littleghost.mcp")


class _CallbackFailure(Exception):
    """Carries an exception raised by the application's own callback past ``optional``."""

    def __init__(self, original: BaseException) -> None:
        self.original = original


class Toolset:
    """Subclass it and implement ``client(binding)``; ``await tools(binding)`` discovers.

    Every ``max_*`` attribute bounds what an untrusted server may send, and
    ``discovery_timeout`` / ``call_timeout`` (seconds) how long it may take;
    see docs/mcp.md for what each limit measures.
    """

    optional: ClassVar[bool] = False
    strict: ClassVar[bool] = False
    """Whether one unusable tool fails discovery (``True``) or is left out (the default)."""

    max_tools: ClassVar[int] = 1000
    max_pages: ClassVar[int] = 100
    max_catalog_bytes: ClassVar[int] = 10 * 1024 * 1024
    max_cursor_bytes: ClassVar[int] = 16 * 1024
    max_schema_depth: ClassVar[int] = 64
    max_schema_nodes: ClassVar[int] = 10_000
    max_regexes: ClassVar[int] = 1000
    max_regex_bytes: ClassVar[int] = 64 * 1024
    max_total_regex_bytes: ClassVar[int] = 1024 * 1024
    max_images: ClassVar[int] = 20
    max_image_bytes: ClassVar[int] = 8 * 1024 * 1024
    max_total_image_bytes: ClassVar[int] = 12 * 1024 * 1024
    max_result_bytes: ClassVar[int] = 16 * 1024 * 1024
    max_content_blocks: ClassVar[int] = 1000
    max_error_bytes: ClassVar[int] = 64 * 1024
    max_event_text_bytes: ClassVar[int] = 4 * 1024
    max_input_rounds: ClassVar[int] = 10
    max_input_requests: ClassVar[int] = 16
    max_request_state_bytes: ClassVar[int] = 1024 * 1024

    discovery_timeout: ClassVar[float] = 60.0
    call_timeout: ClassVar[float] = 600.0

    protocol: ClassVar[Protocol | None] = None
    """How every client it connects negotiates: ``"auto"`` (discover, and the initialize
    handshake when the server wants it), ``"stateless"`` or ``"legacy"``; ``None``: the
    client's own (``mcp.Client``'s ``mode``, ``littleghost.mcp.client``'s ``protocol``)."""

    lock: ClassVar[str | os.PathLike[str] | None] = None
    """A catalog lock (``littleghost lock``): tools that drifted from it are left out."""

    def client(self, binding: lg.Binding) -> mcp.Client:
        """Return a fresh, unconnected ``mcp.Client``; discovery connects and owns it."""
        raise lg.ConfigurationError(f"{type(self).__name__} must implement client(self, binding)")

    def map_tool(
        self, tool_class: type[lg.Tool], *, mcp_tool: types.Tool, binding: lg.Binding
    ) -> type[lg.Tool] | None:
        """Return the class, a subclass (to rename or adjust it), or ``None`` to omit it."""
        return tool_class

    def map_result(
        self,
        value: Any,
        *,
        result: types.CallToolResult,
        mcp_tool: types.Tool,
        arguments: dict[str, Any],
        binding: lg.Binding,
    ) -> Any:
        """Return the value the tool call produces (any value or ``lg.Result``)."""
        return value

    def on_error(self, error: lg.LittleGhostError, *, binding: lg.Binding) -> None:
        """Observe a discovery failure that ``optional = True`` turns into no tools."""

    def on_tool_skipped(self, error: UnusableTool, *, binding: lg.Binding) -> None:
        """Observe a tool discovery left out because it cannot be used (``error.tool``)."""

    async def elicit(
        self, binding: lg.Binding, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """Answer the server's request for user input (override it to answer).

        Only a toolset that overrides it advertises elicitation; this default
        declines, for an override that calls ``super()`` on what it will not ask.
        """
        return types.ElicitResult(action="decline")

    async def sample(
        self, binding: lg.Binding, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        """Answer the server's request for a model completion (override it to answer).

        Only a toolset that overrides it advertises sampling; this default
        refuses with an error naming the policy, for an override's ``super()``.
        """
        return decline_sampling(type(self).__name__)

    @classmethod
    async def tools(cls, binding: lg.Binding | None = None) -> list[type[lg.Tool]]:
        """Connect, list every page and return one Tool subclass per server tool."""
        binding = lg.Binding() if binding is None else binding
        toolset = cls()
        if not instrumentation.active():
            return await toolset._discover_or_skip(binding, None)
        with instrumentation.measure(
            "mcp_discovery", toolset=cls.__name__, tool_count=0, error_type=None
        ) as measurement:
            try:
                classes = await toolset._discover_or_skip(binding, measurement)
            except BaseException as error:
                measurement.payload["error_type"] = type(error).__name__
                raise
            measurement.payload["tool_count"] = len(classes)
            return classes

    async def _discover_or_skip(
        self, binding: lg.Binding, measurement: instrumentation.Measurement | None
    ) -> list[type[lg.Tool]]:
        """Discover; with ``optional = True`` a provider failure is reported, and no tools."""
        try:
            return await self._discover(binding)
        except _CallbackFailure as failure:
            raise failure.original from None
        except (lg.ProviderError, lg.ToolError) as error:
            if not self.optional:
                raise
            if measurement is not None:
                measurement.failed()
                measurement.payload["error_type"] = type(error).__name__
            self.on_error(error, binding=binding)  # its own exceptions propagate unchanged
            return []

    async def _discover(self, binding: lg.Binding) -> list[type[lg.Tool]]:
        run = binding.run
        context: lg.RunContext | None = run.context if run is not None else None
        if context is None:
            return await self._within_discovery_timeout(binding, run)
        with context.guard():
            return await self._within_discovery_timeout(binding, run)

    async def _within_discovery_timeout(self, binding: lg.Binding, run: Any) -> list[type[lg.Tool]]:
        timeout = _positive_seconds(type(self), "discovery_timeout")
        with anyio.move_on_after(timeout):
            return await self._connect_and_list(binding, run)
        raise TimeoutExceeded(
            f"MCP discovery exceeded discovery_timeout ({timeout:g} s); "
            "raise the Toolset's discovery_timeout for a slow server",
            timeout="discovery_timeout",
            seconds=timeout,
        )

    async def _connect_and_list(self, binding: lg.Binding, run: Any) -> list[type[lg.Tool]]:
        bounds = Bounds.of(type(self))
        call_timeout = _positive_seconds(type(self), "call_timeout")
        client = await _async_callback(self.client, binding)
        if not isinstance(client, mcp.Client):
            raise lg.ConfigurationError(
                f"{type(self).__name__}.client() must return an mcp.Client, "
                f"not {type(client).__name__}"
            )
        if compat.client_entered(client):
            raise lg.ConfigurationError(
                f"{type(self).__name__}.client() must return a fresh, unconnected mcp.Client"
            )
        requests = ServerRequests(
            self, binding, answer_timeout=call_timeout, text_limit=bounds.max_event_text_bytes
        )
        requests.install(
            client,
            elicit=type(self).elicit is not Toolset.elicit,
            sample=type(self).sample is not Toolset.sample,
        )
        protocol = type(self).protocol
        if protocol is not None:
            configure(client, protocol)
        connection = Connection(client, bounds, call_timeout, protocol)
        try:
            await connection.open()
            owner: Owner = "run" if run is not None else "instances"
            meter = CatalogMeter(bounds)
            remote = functools.partial(
                RemoteTool,
                meter=meter,
                connection=connection,
                toolset=self,
                bounds=bounds,
                owner=owner,
                requests=requests,
            )
            skip = functools.partial(self._skip, binding=binding)
            listing = await _list_all(connection, meter, remote, skip)
            classes = self._build(listing, binding, skip)
            if run is not None:
                run.register(connection)
            elif not classes:
                await connection.aclose()
        except BaseException as error:
            await close_after(error, connection.aclose)
            raise
        return classes

    def _build(
        self,
        listing: list[RemoteTool],
        binding: lg.Binding,
        skip: Callable[[UnusableTool], None],
    ) -> list[type[lg.Tool]]:
        classes: list[type[lg.Tool]] = []
        names: dict[str, str] = {}
        # The default map_tool keeps every class: not calling it leaves schemas unread.
        maps_tools = type(self).map_tool is not Toolset.map_tool
        if type(self).lock is not None:
            listing = self._pinned(listing)
        for remote in listing:
            try:
                generated = generate_tool_class(remote)
            except UnusableTool as error:
                skip(error)
                continue
            mapped = generated
            if maps_tools:
                mapped = _callback(
                    self.map_tool, generated, mcp_tool=remote.mcp_tool(), binding=binding
                )
                if mapped is None:
                    continue
                if not (isinstance(mapped, type) and issubclass(mapped, generated)):
                    raise lg.ConfigurationError(
                        f"{type(self).__name__}.map_tool() must return the generated class, "
                        f"a subclass of it, or None; got {mapped!r}"
                    )
            name = mapped.tool_name
            if name in names:
                raise lg.ConfigurationError(
                    f"Tool name collision: {name} (MCP tools {names[name]!r} and "
                    f"{remote.name!r}); rename one in map_tool()"
                )
            names[name] = remote.name
            classes.append(mapped)
        return classes

    def _skip(self, error: UnusableTool, *, binding: lg.Binding) -> None:
        """Leave one unusable tool out, saying so; with ``strict = True``, fail discovery."""
        if type(self).strict:
            raise error
        limit = type(self).max_event_text_bytes
        tool, reason = event_text(error.tool, limit), event_text(str(error), limit)
        instrumentation.emit(
            instrumentation.Event(
                "mcp_tool_skipped",
                MappingProxyType(
                    {
                        "toolset": type(self).__name__,
                        "tool": tool,
                        "reason": reason,
                        "error_type": type(error).__name__,
                    }
                ),
            )
        )
        _logger.warning("%s: MCP tool %r left out: %s", type(self).__name__, tool, reason)
        _callback(self.on_tool_skipped, error, binding=binding)

    def _pinned(self, listing: list[RemoteTool]) -> list[RemoteTool]:
        """The tools the lock vouches for: a breaking or suspicious drift, or a new tool, is out.

        A tool the lock does not know is left out too: its description was never
        shown to whoever wrote the lock.
        """
        path = type(self).lock
        assert path is not None
        locked = load_cached(path)  # parsed again only when the file changed
        kept: list[RemoteTool] = []
        for remote in listing:
            changes = locked.drift(remote.tool)
            if not changes:
                kept.append(remote)
                continue
            what = "; ".join(f"{change.kind}: {change.what}" for change in changes[:5])
            instrumentation.emit(
                instrumentation.Event(
                    "mcp_lock_drift",
                    MappingProxyType(
                        {"toolset": type(self).__name__, "tool": remote.name, "changes": what}
                    ),
                )
            )
            _logger.warning(
                "%s: MCP tool %r left out: it drifted from the lock %s (%s)",
                type(self).__name__,
                remote.name,
                os.fspath(path),
                what,
            )
        return kept


async def _list_all(
    connection: Connection,
    meter: CatalogMeter,
    remote: Callable[[types.Tool], RemoteTool],
    skip: Callable[[UnusableTool], None],
) -> list[RemoteTool]:
    """Every page of tools/list; ``remote`` checks each tool's schemas (``meter`` the bounds).

    A tool ``remote`` finds unusable goes to ``skip``; anything else wrong fails the catalog.
    """
    listing: list[RemoteTool] = []
    seen: set[str] = set()
    cursor: str | None = None
    while True:
        page = await connection.request(functools.partial(_list_page, cursor=cursor))
        meter.page(len(page.tools), connection.wire.listed_bytes)
        for mcp_tool in page.tools:
            if not mcp_tool.name:
                raise MalformedMessage("MCP server listed a tool with an empty name")
            if mcp_tool.name in seen:
                raise MalformedMessage(f"MCP server listed tool {mcp_tool.name!r} twice")
            seen.add(mcp_tool.name)
            try:
                listing.append(remote(mcp_tool))
            except UnusableTool as error:
                skip(error)
        if page.next_cursor is None:
            return listing
        meter.cursor(page.next_cursor)
        cursor = page.next_cursor


async def _list_page(client: mcp.Client, *, cursor: str | None) -> types.ListToolsResult:
    return await client.list_tools(cursor=cursor)


def _positive_seconds(owner: type, name: str) -> float:
    value = getattr(owner, name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise TypeError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def _callback(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return function(*args, **kwargs)
    except Exception as error:
        raise _CallbackFailure(error) from error


async def _async_callback(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        value = function(*args, **kwargs)
        return await value if inspect.isawaitable(value) else value
    except Exception as error:
        raise _CallbackFailure(error) from error
