"""What a ``Toolset`` answers when its server asks, and what it makes of what the server says.

A server may send requests of its own (elicitation, sampling, roots) and
notifications (log messages, progress, a changed tool list). The SDK's
``mcp.Client`` takes a callback for each; a toolset fills in those the
application's client left ``None``: requests go to the toolset's ``elicit``
and ``sample`` when a subclass overrides them (else the SDK's defaults refuse
them, and the capability is not advertised), notifications become
instrumentation events. The application's own callbacks always win. On
2026-07-28 the same callbacks answer the requests of an ``input_required``
result (``_input_rounds.py``).

The toolset's answers are bounded like everything else: each takes at most
``call_timeout``, a failing one is logged and answered with a JSON-RPC error
that tells the server nothing of the failure, and server text reaches events
and logs cut to ``max_event_text_bytes``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.lowlevel
import mcp
import mcp_types as types
from mcp.client.session import ClientRequestContext, IncomingMessage
from mcp.shared.dispatcher import ProgressFnT

import littleghost as lg
from littleghost import instrumentation

from ._bounds import event_text

if TYPE_CHECKING:
    from ._toolset import Toolset

__all__ = ["ServerRequests", "decline_sampling"]

_logger = logging.getLogger("littleghost.mcp")

T = TypeVar("T")


def decline_sampling(toolset: str) -> types.ErrorData:
    """``Toolset.sample``'s default answer: a JSON-RPC error that names the policy."""
    return types.ErrorData(
        code=types.INVALID_REQUEST,
        message=f"sampling declined: {toolset} does not sample (override Toolset.sample)",
    )


class ServerRequests:
    """The callbacks one discovery installs on its client, bound to the toolset and binding."""

    def __init__(
        self, toolset: Toolset, binding: lg.Binding, *, answer_timeout: float, text_limit: int
    ) -> None:
        self._toolset = toolset
        self._name = type(toolset).__name__
        self._binding = binding
        self._answer_timeout = answer_timeout
        self._text_limit = text_limit

    def install(self, client: mcp.Client, *, elicit: bool, sample: bool) -> None:
        """Fill in the callbacks ``client`` left ``None``; the application's own stay.

        ``elicit`` and ``sample`` say whether the toolset answers those requests
        (it overrides the method): the SDK advertises a capability exactly when
        its callback is set, and a client that would refuse every request
        should not offer to answer them.
        """
        if client.elicitation_callback is None and elicit:
            client.elicitation_callback = self._elicitation
        if client.sampling_callback is None and sample:
            client.sampling_callback = self._sampling
        if client.logging_callback is None:
            client.logging_callback = self._log_message
        if client.message_handler is None:
            client.message_handler = self._message

    def progress(self, tool: str) -> ProgressFnT:
        """The progress callback of one call of ``tool``: each notification is an event."""

        async def report(progress: float, total: float | None, message: str | None) -> None:
            self._emit(
                "mcp_progress",
                tool=tool,
                progress=progress,
                total=total,
                message=None if message is None else self._text(message),
            )

        return report

    # -- requests --------------------------------------------------------------------

    async def _elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        def described(answer: types.ElicitResult) -> dict[str, Any]:
            return {"action": answer.action}

        return await self._answer(
            "mcp_elicitation",
            self._toolset.elicit,
            params,
            (types.ElicitResult,),
            {"message": self._text(params.message), "action": None},
            described,
        )

    async def _sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        def described(answer: types.CreateMessageResult | types.ErrorData) -> dict[str, Any]:
            if isinstance(answer, types.ErrorData):
                return {"error_code": answer.code}
            return {"model": self._text(answer.model)}

        return await self._answer(
            "mcp_sampling",
            self._toolset.sample,
            params,
            (types.CreateMessageResult, types.CreateMessageResultWithTools, types.ErrorData),
            {"model": None, "error_code": None},
            described,
        )

    async def _answer(
        self,
        event: str,
        answer: Callable[[lg.Binding, Any], Awaitable[T]],
        params: Any,
        expected: tuple[type, ...],
        payload: dict[str, Any],
        described: Callable[[T], dict[str, Any]],
    ) -> T | types.ErrorData:
        """The toolset's answer, within ``call_timeout``; a failure is logged, not sent."""
        method = answer.__name__
        with instrumentation.measure(event, toolset=self._name, **payload) as measurement:
            result = await self._run(answer, params, expected)
            if result is None:
                measurement.failed()
                return types.ErrorData(
                    code=types.INTERNAL_ERROR, message=f"the client's {method} failed"
                )
            measurement.payload.update(described(result))
            if isinstance(result, types.ErrorData):
                measurement.failed()
            return result

    async def _run(
        self,
        answer: Callable[[lg.Binding, Any], Awaitable[T]],
        params: Any,
        expected: tuple[type, ...],
    ) -> T | None:
        """The answer, or ``None`` (logged) when it raised, took too long or is of a wrong type."""
        method = f"{self._name}.{answer.__name__}()"
        result: Any = None
        try:
            with anyio.move_on_after(self._answer_timeout):
                result = await answer(self._binding, params)
        except Exception:
            _logger.exception("%s failed; the server is told only that it failed", method)
            return None
        if result is None:
            _logger.error(
                "%s took longer than call_timeout (%g s); the server is told it failed",
                method,
                self._answer_timeout,
            )
        elif not isinstance(result, expected):
            _logger.error(
                "%s must return %s, not %s; the server is told it failed",
                method,
                " or ".join(kind.__name__ for kind in expected),
                type(result).__name__,
            )
            return None
        return result

    # -- notifications -----------------------------------------------------------------

    async def _log_message(self, params: types.LoggingMessageNotificationParams) -> None:
        data = params.data
        self._emit(
            "mcp_log_message",
            level=params.level,
            logger=None if params.logger is None else self._text(params.logger),
            data=self._text(data if isinstance(data, str) else _json(data)),
        )

    async def _message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._emit("mcp_list_changed")
        await anyio.lowlevel.checkpoint()

    # -- helpers -----------------------------------------------------------------------

    def _text(self, text: str) -> str:
        return event_text(text, self._text_limit)

    def _emit(self, name: str, **payload: Any) -> None:
        if instrumentation.active():
            event = instrumentation.Event(
                name, MappingProxyType({"toolset": self._name, **payload})
            )
            instrumentation.emit(event)


def _json(data: Any) -> str:
    """Structured log data as JSON text (the SDK parsed it, so it is JSON)."""
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):
        return f"<{type(data).__name__} nested too deeply to show>"
