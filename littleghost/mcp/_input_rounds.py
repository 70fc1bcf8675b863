"""Answering ``input_required`` results (SEP-2322, the 2026-07-28 protocol).

On 2026-07-28 a server does not send requests of its own mid-call. A tool that
needs input (a person's answer, a model completion, the client's roots)
answers ``tools/call`` with an ``InputRequiredResult``: the requests, keyed,
and an opaque ``requestState``. The client answers each request with the
callbacks that answer a server's own requests on 2025-11-25 (a ``Toolset``'s
``elicit`` and ``sample``, or the application's), then sends the call again --
a new request id, the answers, the state echoed byte for byte -- round after
round, until the server answers the call itself.

A server cannot make that endless or large: ``max_input_rounds``,
``max_input_requests`` and ``max_request_state_bytes`` bound it, and the
call's deadline and cancellation cover every round.
"""

from __future__ import annotations

import anyio
import mcp
import mcp_types as types
from mcp.client.session import ClientRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ._bounds import Bounds, exceeded
from ._exceptions import InputRefused, MalformedMessage

__all__ = ["STATE_ONLY_FIRST_WAIT_SECONDS", "STATE_ONLY_MAX_WAIT_SECONDS", "InputRounds"]

STATE_ONLY_FIRST_WAIT_SECONDS = 0.05
"""The wait before answering a round that asks nothing (``requestState`` only): a poll."""

STATE_ONLY_MAX_WAIT_SECONDS = 0.25
"""The longest such wait: it doubles with each state-only round in a row, up to this."""

_WHAT = {
    "elicitation/create": "user input (elicitation/create)",
    "sampling/createMessage": "a model completion (sampling/createMessage)",
    "roots/list": "the client's roots (roots/list)",
}


class InputRounds:
    """The input rounds of one ``tools/call``; ``retry`` answers one and says what to send next."""

    def __init__(self, client: mcp.Client, bounds: Bounds, request: types.CallToolRequest) -> None:
        self._client = client
        self._bounds = bounds
        self._request = request
        self._rounds = 0
        self._wait = STATE_ONLY_FIRST_WAIT_SECONDS

    @property
    def _tool(self) -> str:
        return self._request.params.name

    async def retry(self, asked: types.InputRequiredResult) -> types.CallToolRequest:
        """The call again, with the answers to what ``asked`` asks and its ``requestState``.

        Raises ``LimitExceeded`` past a bound, ``InputRefused`` when an answer
        is an error, ``MalformedMessage`` on a protocol that has no such result.
        """
        version = self._client.protocol_version
        if version not in MODERN_PROTOCOL_VERSIONS:
            raise MalformedMessage(
                f"MCP tool {self._tool} answered with an input_required result, which "
                f"protocol {version} does not define"
            )
        bounds = self._bounds
        self._rounds += 1
        if self._rounds > bounds.max_input_rounds:
            raise exceeded(
                "max_input_rounds",
                bounds.max_input_rounds,
                f"tool {self._tool} still asked for input after {bounds.max_input_rounds} rounds",
            )
        requests = asked.input_requests or {}
        if len(requests) > bounds.max_input_requests:
            raise exceeded(
                "max_input_requests",
                bounds.max_input_requests,
                f"tool {self._tool} asked for {len(requests)} inputs in one round",
            )
        state = asked.request_state
        if state is not None and (size := len(state.encode(errors="surrogatepass"))) > (
            bounds.max_request_state_bytes
        ):
            raise exceeded(
                "max_request_state_bytes",
                bounds.max_request_state_bytes,
                f"tool {self._tool} sent a requestState of {size} bytes",
            )
        responses: types.InputResponses | None = None
        if requests:
            self._wait = STATE_ONLY_FIRST_WAIT_SECONDS
            responses = {key: await self._answer(key, request) for key, request in requests.items()}
        else:
            await anyio.sleep(self._wait)
            self._wait = min(self._wait * 2, STATE_ONLY_MAX_WAIT_SECONDS)
        params = self._request.params.model_copy(
            update={"input_responses": responses, "request_state": state}
        )
        return types.CallToolRequest(params=params)

    async def _answer(self, key: str, request: types.InputRequest) -> types.InputResponse:
        """One request's answer, from the callback the client has for it."""
        session = self._client.session
        meta = request.params.meta if request.params is not None else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        answer = await session.dispatch_input_request(context, request)
        if isinstance(answer, types.ErrorData):
            raise InputRefused(
                f"MCP tool {self._tool} asked for {_WHAT[request.method]}, "
                f"which the client refused: {answer.message}",
                method=request.method,
                code=answer.code,
            )
        return answer
