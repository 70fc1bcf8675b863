"""The script: faults per request target, and pagination, applied as SDK middleware.

Middleware runs on every transport, sees the raw request, and -- unlike a
handler -- may return a result the SDK does not validate, which is how a fake
server built on ``MCPServer`` can still send malformed data.

A fault is scripted for a *target*: a method and, for the methods that name
one thing, that thing (a tool, a resource URI or template, a prompt); a fault
for the method alone (target ``None``) applies to every request of it that
has no fault of its own.
"""

from __future__ import annotations

import base64
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError

from ._faults import (
    Crash,
    Delay,
    ErrorResult,
    Fault,
    Hang,
    HttpStatus,
    JsonRpcError,
    Malformed,
    Oversized,
    RawBytes,
    dump_fault,
    load_fault,
)
from ._records import Records
from ._serving import Serving

__all__ = [
    "NAMED_BY",
    "UNRECORDED_METHODS",
    "Pagination",
    "Script",
    "Target",
    "target_of",
    "with_request_id",
]

Target = tuple[str, str | None]
"""A fault's target: ``(method, name)``; ``name`` is ``None`` for every request of the method."""

NAMED_BY = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
"""The methods whose requests name one thing, and the param that names it."""

UNRECORDED_METHODS = frozenset({"initialize", "server/discover"})
"""The handshake: how a client connects differs by mode, so it is not in ``requests``."""

_MALFORMED: dict[str, dict[str, Any]] = {
    "tools/call": {"content": "not a list"},
    "tools/list": {"tools": "not a list"},
    "resources/list": {"resources": "not a list"},
    "resources/templates/list": {"resourceTemplates": "not a list"},
    "resources/read": {"contents": "not a list"},
    "prompts/list": {"prompts": "not a list"},
    "prompts/get": {"messages": "not a list"},
    "completion/complete": {"completion": "not an object"},
}
_MALFORMED_OTHERWISE: dict[str, Any] = {"_meta": "not an object"}


@dataclass(frozen=True, slots=True)
class Pagination:
    """Serve tools/list ``page_size`` tools at a time; ``endless`` never stops giving cursors."""

    page_size: int
    endless: bool = False


def target_of(method: str, params: dict[str, Any]) -> str | None:
    """The name a request's params give its target, for the methods that have one."""
    key = NAMED_BY.get(method)
    value = params.get(key) if key is not None else None
    return value if isinstance(value, str) else None


class Script:
    """Middleware applying the scripted behaviour; also holds declared schema overrides."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.faults: dict[Target, Fault] = {}
        self.pagination: Pagination | None = None
        self.schemas: dict[str, dict[str, Any]] = {}
        self._source: Path | None = None
        self._source_text = ""

    def fault_for(self, method: str, params: dict[str, Any]) -> Fault | None:
        """The fault a request meets: its target's own, else its method's, else none."""
        name = target_of(method, params)
        if name is not None:
            if (method, name) in self.faults:
                return self.faults[method, name]
            for (faulted, template), fault in self.faults.items():
                if faulted == method and template is not None and _expands(template, name):
                    return fault
        return self.faults.get((method, None))

    def dump(self) -> dict[str, Any]:
        """The mutable part of the script (not the schemas: a child declares those itself)."""
        return {
            "faults": [[method, name, dump_fault(f)] for (method, name), f in self.faults.items()],
            "pagination": self.pagination and [self.pagination.page_size, self.pagination.endless],
        }

    def publish(self, path: Path) -> None:
        """Parent side: write the script where a stdio child reads it (atomically)."""
        staging = path.with_suffix(".tmp")
        staging.write_text(json.dumps(self.dump()))
        os.replace(staging, path)

    def follow(self, path: Path) -> None:
        """Child side: take the script from ``path`` now and whenever it changes."""
        self._source = path
        self._reload()

    def _reload(self) -> None:
        if self._source is None:
            return
        text = self._source.read_text()
        if text == self._source_text:
            return
        self._source_text = text
        data = json.loads(text)
        self.faults = {(method, name): load_fault(f) for method, name, f in data["faults"]}
        pagination = data["pagination"]
        self.pagination = Pagination(*pagination) if pagination else None

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method in UNRECORDED_METHODS or ctx.method.startswith("notifications/"):
            return await call_next(ctx)
        self._reload()
        params = {key: value for key, value in (ctx.params or {}).items() if key != "_meta"}
        self.records.request(ctx.method, params)
        fault = self.fault_for(ctx.method, params)
        if ctx.method == "tools/call":
            return await self._call(fault, params, ctx, call_next)
        if isinstance(fault, Crash):
            await _serving(ctx).crash()
        answer = await _answer(fault, params, ctx)
        if answer is not None:
            return answer
        result = await call_next(ctx)
        if ctx.method == "tools/list":
            result = self._listing(result, params.get("cursor"))
        if isinstance(fault, Oversized) and isinstance(result, dict):
            result["_meta"] = {**result.get("_meta", {}), "padding": "x" * fault.size}
        return result

    async def _call(
        self,
        fault: Fault | None,
        params: dict[str, Any],
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        tool = str(params.get("name"))
        arguments = dict(params.get("arguments") or {})
        self.records.call(tool, arguments)
        serving = _serving(ctx)
        if isinstance(fault, Crash):
            await serving.crash()
        try:
            if isinstance(fault, ErrorResult):
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=fault.text)], is_error=True
                )
            answer = await _answer(fault, params, ctx)
            return answer if answer is not None else await call_next(ctx)
        except anyio.get_cancelled_exc_class():
            reason = serving.reasons.pop(str(ctx.request_id), None)
            self.records.cancellation(tool, arguments, reason)
            raise

    def _listing(self, listing: HandlerResult, cursor: Any) -> HandlerResult:
        assert isinstance(listing, dict), "the SDK serializes results to dicts"
        for tool in listing["tools"]:
            tool.update(self.schemas.get(tool["name"], {}))
        return self._page(listing, cursor)

    def _page(self, listing: dict[str, Any], cursor: Any) -> dict[str, Any]:
        pagination = self.pagination
        if pagination is None:
            return listing
        try:
            start = int(cursor) if cursor is not None else 0
        except (TypeError, ValueError):
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Invalid cursor: {cursor!r}"
            ) from None
        end = start + pagination.page_size
        page = {**listing, "tools": listing["tools"][start:end]}
        if pagination.endless or end < len(listing["tools"]):
            page["nextCursor"] = str(end)
        return page


async def _answer(
    fault: Fault | None, params: dict[str, Any], ctx: ServerRequestContext[Any, Any]
) -> HandlerResult | None:
    """What ``fault`` answers instead of the handler; ``None``: let the handler answer."""
    method = ctx.method
    match fault:
        case Malformed(result):
            return result if result is not None else _MALFORMED.get(method, _MALFORMED_OTHERWISE)
        case Oversized(size, kind) if method == "tools/call":
            return {"content": [_block(size, kind)], "resultType": "complete"}
        case Oversized(size, kind) if method == "resources/read":
            contents = [_contents(str(params.get("uri")), size, kind)]
            return {"contents": contents, "resultType": "complete"}
        case Oversized(size, kind) if method == "prompts/get":
            messages = [{"role": "user", "content": _block(size, kind)}]
            return {"messages": messages, "resultType": "complete"}
        case RawBytes(data):
            serving = _serving(ctx)
            if serving.raw is None:
                raise MCPError(code=types.INTERNAL_ERROR, message="RawBytes: no raw wire here")
            await serving.raw(with_request_id(data, ctx.request_id))
            await anyio.sleep_forever()
            raise AssertionError("unreachable")  # sleep_forever only ends by cancellation
        case HttpStatus():
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"{fault!r} applies to HTTP only: there is no status to send here",
            )
        case Delay(seconds):
            await anyio.sleep(seconds)
        case Hang():
            await anyio.sleep_forever()
        case JsonRpcError(code, message):
            raise MCPError(code=code, message=message)
        case _:
            pass
    return None


def with_request_id(data: bytes, request_id: Any) -> bytes:
    """``data`` with ``{id}`` replaced by the request's id, as JSON."""
    return data.replace(b"{id}", json.dumps(request_id).encode())


def _expands(template: str, uri: str) -> bool:
    """Whether ``uri`` is one of the URIs the RFC 6570 level-1 ``template`` describes."""
    if "{" not in template:
        return False
    pattern = "".join(
        "[^/]+" if part.startswith("{") else re.escape(part)
        for part in re.split(r"(\{[^}]*\})", template)
    )
    return re.fullmatch(pattern, uri) is not None


def _serving(ctx: ServerRequestContext[Any, Any]) -> Serving:
    serving = ctx.lifespan_context
    assert isinstance(serving, Serving), "FakeMCPServer serves only through its own transports"
    return serving


def _block(size: int, kind: str) -> dict[str, Any]:
    if kind == "text":
        return {"type": "text", "text": "x" * size}
    data = base64.b64encode(bytes(size)).decode()
    return {"type": "image", "data": data, "mimeType": "image/png"}


def _contents(uri: str, size: int, kind: str) -> dict[str, Any]:
    if kind == "text":
        return {"uri": uri, "mimeType": "text/plain", "text": "x" * size}
    blob = base64.b64encode(bytes(size)).decode()
    return {"uri": uri, "mimeType": "image/png", "blob": blob}
