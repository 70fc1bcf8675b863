"""One connected ``mcp.Client``, hosted in a task of its own.

The SDK's client is an async context manager full of task groups and cancel
scopes, which anyio requires to be exited by the task that entered them and in
LIFO order. Discovery runs inside the caller's own scopes, while the owner that
closes the connection (a run, or the last tool instance) may be another task
entirely. So the client is entered and exited by a dedicated host task -- an
asyncio task, or a trio system task -- and every other task only sends
requests through it, which the SDK supports concurrently on every transport.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.lowlevel
import mcp
import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

import littleghost as lg

from .._closing import close_after
from ._bounds import Bounds
from ._exceptions import ConnectionClosed
from ._failures import translate, translate_connect_failure
from ._input_rounds import InputRounds
from ._protocol import Protocol
from ._watchdog import Watchdog
from ._wire import install

__all__ = ["Connection"]

T = TypeVar("T")

GRACEFUL_CLOSE_SECONDS = 5.0
"""How long a close lets the SDK shut the transport down politely before cancelling it."""

CANCELLED_CLOSE_SECONDS = 10.0
"""How long a close then waits for the cancelled transport to finish before abandoning it.

The wait is shielded (a close must finish), so no caller's deadline reaches it,
``Run.close_timeout`` included: without this bound a transport whose own
shutdown never ends would hang the close. The SDK's stdio shutdown takes at
most about 6.5 s (stdin closed, SIGTERM, SIGKILL, each waited out).
"""

_CALL_RESULT: TypeAdapter[types.CallToolResult | types.InputRequiredResult] = TypeAdapter(
    types.CallToolResult | types.InputRequiredResult
)
"""A ``tools/call`` answer: the result, or the input the tool needs first (SEP-2322)."""

_FAILURE_SETTLE_SECONDS = 0.5
"""How long a closed-connection error waits for the host to learn why the transport died."""


class Connection:
    """A connected client shared by generated tools; closed exactly once by its owner."""

    def __init__(
        self,
        client: mcp.Client,
        bounds: Bounds,
        call_timeout: float,
        protocol: Protocol | None = None,
    ) -> None:
        self.client = client
        self.bounds = bounds
        self.wire = install(client, bounds, protocol=protocol)
        self.watchdog = Watchdog(call_timeout)
        self._ready = anyio.Event()
        self._close_requested = anyio.Event()
        self._done = anyio.Event()
        self._scope = anyio.CancelScope()
        self._failure: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        self._users = 0
        self._settle_waited = False

    async def open(self) -> None:
        """Connect; on failure or cancellation the host is gone when this raises."""
        self._spawn()
        try:
            await self._ready.wait()
        except BaseException as error:
            await close_after(error, self.aclose)  # an abandoned close is a note on ``error``
            raise
        if self._failure is not None:
            await self.aclose()
            raise self._redacted(translate_connect_failure(self._failure))  # cause: the SDK's

    async def request(
        self, operation: Callable[[mcp.Client], Awaitable[T]], *, tool_call: bool = False
    ) -> T:
        """Run one SDK operation, translating its failures into littleghost errors."""
        self._check_open()
        try:
            return await operation(self.client)
        except Exception as error:
            raise self._redacted(await self._translated(error, tool_call=tool_call))  # noqa: B904

    async def call_tool(
        self,
        request: types.CallToolRequest,
        stop: Callable[[], object],
        progress: ProgressFnT | None = None,
    ) -> types.CallToolResult:
        """Send one ``tools/call`` and answer its input rounds (see ``_input_rounds.py``).

        Past ``call_timeout``, counted over every round, the watchdog calls ``stop()``.
        With ``progress``, each request asks for progress and each notification reaches it.

        Not ``Client.call_tool``: it validates structuredContent with Python's
        backtracking ``re``, which a hostile outputSchema can stall; the caller
        checks the output schema with linear-time regexes instead. Nor the SDK's
        own request timeout: in-process it is a timer per call, and over a
        transport its clock starts only once the request is written.
        """
        self._check_open()
        key = self.watchdog.watch(stop)
        try:
            result = await self._send_call(request, progress)
            rounds = InputRounds(self.client, self.bounds, request)
            while isinstance(result, types.InputRequiredResult):
                result = await self._send_call(await rounds.retry(result), progress)
            return result
        finally:
            self.watchdog.forget(key)

    async def _send_call(
        self, request: types.CallToolRequest, progress: ProgressFnT | None
    ) -> types.CallToolResult | types.InputRequiredResult:
        self._check_open()
        try:
            return await self.client.session.send_request(
                request, _CALL_RESULT, progress_callback=progress
            )
        except Exception as error:
            raise self._redacted(await self._translated(error, tool_call=True))  # noqa: B904

    def _check_open(self) -> None:
        if self._close_requested.is_set():
            raise ConnectionClosed("MCP connection is closed")
        if self.wire.broken:
            raise self.wire.error()

    def _redacted(self, error: BaseException) -> BaseException:
        """``error`` without a secret the connection sent, in it or in its causes.

        The server's messages are redacted as they arrive (``_wire.py``); this
        catches what the transport's own errors quote (a URL with its query).
        """
        self.wire.redactor.exception(error)
        return error

    async def _translated(self, error: Exception, *, tool_call: bool) -> BaseException:
        """The littleghost error for what an SDK operation raised."""
        if not isinstance(error, MCPError):
            return translate(error, self._failure)
        if error.code != types.CONNECTION_CLOSED:
            return translate(error, self._failure, tool_call=tool_call)
        if self.wire.broken:
            return self.wire.error()
        translated = translate(error, await self._settled_failure())
        if self.wire.loop_ended and isinstance(translated, lg.ProviderError):
            self.wire.fail(translated)  # a closed connection stays closed: later calls fail now
        return translated

    def acquire(self) -> None:
        """Count one more tool instance that shares the connection."""
        self._users += 1

    async def release(self) -> None:
        """The last tool instance to release it closes the connection."""
        self._users -= 1
        if self._users <= 0:
            await self.aclose()

    async def aclose(self) -> None:
        """Leave the client's context in the host task; idempotent and safe from any task.

        Raises ``TimeoutError`` if the transport is still shutting down
        ``CANCELLED_CLOSE_SECONDS`` after it was cancelled: it is abandoned.
        """
        self._close_requested.set()
        if not self._ready.is_set():
            self._scope.cancel()
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(GRACEFUL_CLOSE_SECONDS):
                await self._done.wait()
            self._scope.cancel()
            with anyio.move_on_after(CANCELLED_CLOSE_SECONDS):
                await self._done.wait()
        if not self._done.is_set():
            raise TimeoutError(
                f"the MCP transport was still shutting down {CANCELLED_CLOSE_SECONDS:g} s "
                "after it was cancelled and was abandoned"
            )

    async def _settled_failure(self) -> BaseException | None:
        """Give a dying host a moment to record why, once per connection."""
        if self._failure is None and not self._settle_waited:
            self._settle_waited = True
            with anyio.move_on_after(_FAILURE_SETTLE_SECONDS, shield=True):
                await self._done.wait()
        return self._failure

    async def _host(self) -> None:
        try:
            with self._scope:
                async with self.client:
                    self._ready.set()
                    await self.watchdog.run_until(self._close_requested)
        except Exception as error:  # the transport's own failure; callers see it translated
            self._failure = error
        finally:
            self._ready.set()
            self._done.set()

    def _spawn(self) -> None:
        native = anyio.lowlevel.current_token().native_token
        if isinstance(native, asyncio.AbstractEventLoop):
            self._task = native.create_task(self._host())
        else:
            import trio

            trio.lowlevel.spawn_system_task(self._host, context=contextvars.copy_context())
