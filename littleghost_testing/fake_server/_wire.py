"""Wire faults over HTTP: answering a faulted request before the SDK sees it.

``RawBytes`` and ``HttpStatus`` are below JSON-RPC, where the SDK's handlers
and middleware cannot reach, so an ASGI layer in front of the SDK's app reads
each POST, and answers a request whose scripted fault is a wire fault itself
(recording it as the middleware would have); every other request goes on to
the SDK unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ._faults import WIRE_FAULTS, HttpStatus, RawBytes
from ._script import UNRECORDED_METHODS, Script, with_request_id

__all__ = ["MAX_REQUEST_BYTES", "WireFaults"]

MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""A request body larger than this goes to the SDK unread (and so unfaulted)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class WireFaults:
    """ASGI app: ``app``, except for requests whose scripted fault is a wire fault."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], script: Script):
        self._app = app
        self._script = script

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not self._wired():
            await self._app(scope, receive, send)
            return
        body, complete = await _read(receive)
        faulted = _faulted_call(body, self._script) if complete else None
        if faulted is None:
            await self._app(scope, _replay(body, complete, receive), send)
            return
        fault, request, params = faulted
        self._script.records.request(request["method"], params)
        if request["method"] == "tools/call":
            self._script.records.call(str(params.get("name")), dict(params.get("arguments") or {}))
        if isinstance(fault, RawBytes):
            status, content_type = 200, "application/json"
            payload = with_request_id(fault.data, request.get("id"))
        else:
            status, content_type, payload = fault.status, fault.content_type, fault.body.encode()
        headers = [
            (b"content-type", content_type.encode()),
            (b"content-length", str(len(payload)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    def _wired(self) -> bool:
        return any(isinstance(fault, WIRE_FAULTS) for fault in self._script.faults.values())


async def _read(receive: Receive) -> tuple[bytes, bool]:
    """The request body, and whether it was read whole (within ``MAX_REQUEST_BYTES``)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True
        if size > MAX_REQUEST_BYTES:
            return b"".join(chunks), False


def _replay(body: bytes, complete: bool, receive: Receive) -> Receive:
    """A ``receive`` that hands the SDK the body already read, then the rest."""
    pending = [{"type": "http.request", "body": body, "more_body": not complete}]

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


def _faulted_call(
    body: bytes, script: Script
) -> tuple[RawBytes | HttpStatus, dict[str, Any], dict[str, Any]] | None:
    """The wire fault a request meets, the request, and its params without ``_meta``."""
    try:
        request = json.loads(body)
    except ValueError:
        return None
    if not isinstance(request, dict) or "id" not in request:
        return None
    method, params = request.get("method"), request.get("params") or {}
    if not isinstance(method, str) or method in UNRECORDED_METHODS or not isinstance(params, dict):
        return None
    params = {key: value for key, value in params.items() if key != "_meta"}
    fault = script.fault_for(method, params)
    if isinstance(fault, RawBytes | HttpStatus):
        return fault, request, params
    return None
