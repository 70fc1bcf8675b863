"""What a hostile MCP server answers, as raw bytes: shared by the stdio and HTTP servers.

Each behavior answers ``server/discover`` and ``tools/list`` like an honest
2026-07-28 server with one tool, ``probe``, and misbehaves on ``tools/call``
(or, for ``silent-list``, ``garbage-list`` and ``huge-list``, on ``tools/list``);
``both`` answers with ``result`` and ``error`` at once, ``string-id`` with
the request's integer id as a string;
``wrong-output`` lists an ``outputSchema`` that its ``structuredContent`` breaks
``SIZE`` times over. Answers are produced in chunks,
so a server can send a gigabyte without holding it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

CHUNK = 1 << 20
SECRET = "postgres://admin:SECRET@db/prod is unreachable"

DISCOVER = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "resultType": "complete",
    "ttlMs": 0,
    "cacheScope": "public",
}
PROBE = {"name": "probe", "description": "Probe.", "inputSchema": {"type": "object"}}
LISTING = {"tools": [PROBE], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
NAMES = {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}


class Silent(Exception):
    """The request gets no answer at all."""


class Exit(Exception):
    """The server process exits instead of answering."""


def answer(request: dict[str, Any], behavior: str, size: int) -> Iterator[bytes]:
    """The raw answer (ending in a newline) to one request; nothing for a notification."""
    if "id" not in request:
        return iter(())
    key = json.dumps(request["id"])
    method = request.get("method")
    if method == "server/discover":
        return _line(key, "result", DISCOVER)
    if method == "tools/list":
        if behavior == "silent-list":
            raise Silent
        if behavior == "garbage-list":
            return iter([b"this is not JSON-RPC\n"])
        if behavior == "huge-list":
            return _huge_listing(key, size)
        if behavior == "wrong-output":
            return _line(key, "result", LISTING | {"tools": [PROBE | {"outputSchema": NAMES}]})
        return _line(key, "result", LISTING)
    if method != "tools/call":
        return _line(key, "error", {"code": -32601, "message": "Method not found"})
    if behavior in ("both", "string-id"):
        return _breach(key, behavior)
    return _call(key, behavior, size)


def _call(key: str, behavior: str, size: int) -> Iterator[bytes]:
    text_block = {"type": "text", "text": "ok"}
    if behavior in ("ok", "huge-list"):
        return _line(key, "result", {"content": [text_block], "resultType": "complete"})
    if behavior == "huge":
        return _huge(key, size)
    if behavior == "blocks":
        blocks = [{"type": "text", "text": ""}] * size
        return _line(key, "result", {"content": blocks, "resultType": "complete"})
    if behavior == "error-text":
        return _line(key, "error", {"code": -32602, "message": "e" * size})
    if behavior == "secret":
        return _line(key, "error", {"code": size, "message": SECRET})
    if behavior == "deep":
        nested: Any = []
        for _ in range(size):
            nested = [nested]
        result = {"content": [], "structuredContent": {"tree": nested}, "resultType": "complete"}
        return _line(key, "result", result)
    if behavior == "wrong-output":
        result = {"content": [], "structuredContent": {"names": [0] * size}}
        return _line(key, "result", result | {"resultType": "complete"})
    if behavior == "invalid-utf8":
        return iter([b'{"jsonrpc": "2.0", "id": ' + key.encode() + b', "result": "\xff\xfe"}\n'])
    if behavior == "surrogate":
        raw = '{"content": [{"type": "text", "text": "\\ud83d"}], "resultType": "complete"}'
        return iter([f'{{"jsonrpc": "2.0", "id": {key}, "result": {raw}}}\n'.encode()])
    if behavior == "null-result":
        return iter([f'{{"jsonrpc": "2.0", "id": {key}, "result": null}}\n'.encode()])
    if behavior == "garbage":
        return iter([b"this is not JSON-RPC\n"])
    if behavior == "silent":
        raise Silent
    if behavior == "exit":
        raise Exit
    raise ValueError(f"unknown behavior {behavior!r}")


def _line(key: str, field: str, value: Any) -> Iterator[bytes]:
    yield f'{{"jsonrpc": "2.0", "id": {key}, "{field}": {json.dumps(value)}}}\n'.encode()


def _breach(key: str, behavior: str) -> Iterator[bytes]:
    """An answer that looks right but breaks JSON-RPC (the SDK alone would accept it)."""
    text_block = {"type": "text", "text": "ok"}
    if behavior == "both":
        error = {"code": -32000, "message": "and an error"}
        raw = {"content": [text_block], "resultType": "complete"}
        return iter(
            [
                f'{{"jsonrpc": "2.0", "id": {key}, "result": {json.dumps(raw)}, '
                f'"error": {json.dumps(error)}}}\n'.encode()
            ]
        )
    raw = {"content": [text_block], "resultType": "complete"}
    return _line(json.dumps(str(json.loads(key))), "result", raw)


def _huge_listing(key: str, size: int) -> Iterator[bytes]:
    """A tools/list answer of about ``size`` bytes: one tool with a long description."""
    opening = '{"jsonrpc": "2.0", "id": %s, "result": {"tools": [{"name": "probe", "description": "'
    yield (opening % key).encode()
    chunk = b"a" * CHUNK
    for _ in range(size // CHUNK):
        yield chunk
    yield b'", "inputSchema": {"type": "object"}}], "resultType": "complete"}}\n'


def _huge(key: str, size: int) -> Iterator[bytes]:
    """A text result of ``size`` bytes, never held whole."""
    opening = '{"jsonrpc": "2.0", "id": %s, "result": {"content": [{"type": "text", "text": "'
    yield (opening % key).encode()
    chunk = b"a" * CHUNK
    for _ in range(size // CHUNK):
        yield chunk
    yield b"a" * (size % CHUNK)
    yield b'"}], "resultType": "complete"}}\n'
