"""The script: per-tool faults, listing faults and pagination, applied as SDK middleware.

Middleware runs on every transport, sees the raw request, and -- unlike a
handler -- may return a result the SDK does not validate, which is how a fake
server built on ``MCPServer`` can still send malformed data.
"""

from __future__ import annotations

import base64
import json
import os
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

__all__ = ["Pagination", "Script", "with_request_id"]


@dataclass(frozen=True, slots=True)
class Pagination:
    """Serve tools/list ``page_size`` tools at a time; ``endless`` never stops giving cursors."""

    page_size: int
    endless: bool = False


class Script:
    """Middleware applying the scripted behaviour; also holds declared schema overrides."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.faults: dict[str, Fault] = {}
        self.listing_fault: Fault | None = None
        self.pagination: Pagination | None = None
        self.schemas: dict[str, dict[str, Any]] = {}
        self._source: Path | None = None
        self._source_text = ""

    def dump(self) -> dict[str, Any]:
        """The mutable part of the script (not the schemas: a child declares those itself)."""
        return {
            "faults": {tool: dump_fault(fault) for tool, fault in self.faults.items()},
            "listing_fault": self.listing_fault and dump_fault(self.listing_fault),
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
        self.faults = {tool: load_fault(fault) for tool, fault in data["faults"].items()}
        listing = data["listing_fault"]
        self.listing_fault = load_fault(listing) if listing else None
        pagination = data["pagination"]
        self.pagination = Pagination(*pagination) if pagination else None

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method.startswith("tools/"):
            self._reload()
        if ctx.method == "tools/call":
            return await self._call(ctx, call_next)
        if ctx.method == "tools/list":
            return await self._list(ctx, call_next)
        return await call_next(ctx)

    async def _call(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params or {}
        tool = str(params.get("name"))
        arguments = dict(params.get("arguments") or {})
        self.records.call(tool, arguments)
        fault = self.faults.get(tool)
        serving = _serving(ctx)
        if isinstance(fault, Crash):
            await serving.crash()
        try:
            return await self._call_answer(fault, ctx, call_next)
        except anyio.get_cancelled_exc_class():
            reason = serving.reasons.pop(str(ctx.request_id), None)
            self.records.cancellation(tool, arguments, reason)
            raise

    async def _call_answer(
        self, fault: Fault | None, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        match fault:
            case ErrorResult(text):
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=text)], is_error=True
                )
            case Malformed(result):
                return result if result is not None else {"content": "not a list"}
            case Oversized(size, kind):
                return {"content": [_block(size, kind)], "resultType": "complete"}
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
            case _:
                await _stall(fault)
                return await call_next(ctx)

    async def _list(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        fault = self.listing_fault
        if isinstance(fault, Crash):
            await _serving(ctx).crash()
        if isinstance(fault, Malformed):
            return fault.result if fault.result is not None else {"tools": "not a list"}
        await _stall(fault)
        listing = await call_next(ctx)
        assert isinstance(listing, dict), "the SDK serializes results to dicts"
        for tool in listing["tools"]:
            tool.update(self.schemas.get(tool["name"], {}))
        if isinstance(fault, Oversized):
            listing["_meta"] = {**listing.get("_meta", {}), "padding": "x" * fault.size}
        return self._page(listing, (ctx.params or {}).get("cursor"))

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


def with_request_id(data: bytes, request_id: Any) -> bytes:
    """``data`` with ``{id}`` replaced by the request's id, as JSON."""
    return data.replace(b"{id}", json.dumps(request_id).encode())


def _serving(ctx: ServerRequestContext[Any, Any]) -> Serving:
    serving = ctx.lifespan_context
    assert isinstance(serving, Serving), "FakeMCPServer serves only through its own transports"
    return serving


async def _stall(fault: Fault | None) -> None:
    """Delay and hang before answering; a JSON-RPC error instead of answering."""
    match fault:
        case Delay(seconds):
            await anyio.sleep(seconds)
        case Hang():
            await anyio.sleep_forever()
        case JsonRpcError(code, message):
            raise MCPError(code=code, message=message)
        case _:
            pass


def _block(size: int, kind: str) -> dict[str, Any]:
    if kind == "text":
        return {"type": "text", "text": "x" * size}
    data = base64.b64encode(bytes(size)).decode()
    return {"type": "image", "data": data, "mimeType": "image/png"}
