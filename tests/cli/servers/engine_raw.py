"""A hand-written stdio MCP server for the engine tests: every rule's misbehaviour, on purpose.

It speaks JSON-RPC line by line without the SDK, so it can do what an SDK
server never would (answer with a line no client can parse, declare
``taskSupport: required``), and appends every ``tools/call`` it receives to
the file named by its first argument, so a test proves what was never called.

Run: ``python engine_raw.py RECORDS_FILE``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

READ_ONLY = {"readOnlyHint": True}
NINE_KEYS = "abcdefghi"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "read_notes",
        "description": "Reads notes; ignores unknown keys like pydantic and zod servers do.",
        "inputSchema": {
            "type": "object",
            "properties": {"topic": {"type": "string", "maxLength": 20, "examples": ["ops"]}},
            "required": ["topic"],
            "additionalProperties": False,
        },
        "annotations": READ_ONLY,
    },
    {
        "name": "write_note",
        "description": "Writes a note (no annotations: it may change state).",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {
        "name": "wipe",
        "description": "Deletes everything.",
        "inputSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}},
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    },
    {
        "name": "tasked",
        "description": "Only callable as an MCP task.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": READ_ONLY,
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "garbled",
        "description": "Answers with a line that is not JSON-RPC.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": READ_ONLY,
    },
    {
        "name": "slow",
        "description": "Answers after SLOW_SECONDS.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": READ_ONLY,
    },
    {
        "name": "leaky",
        "description": "An isError answer showing a Python traceback.",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "annotations": READ_ONLY,
    },
    {
        "name": "leaky_rpc",
        "description": "A JSON-RPC error showing a database URL with its password.",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "annotations": READ_ONLY,
    },
    {
        "name": "die",
        "description": "Exits mid-call, like a server that crashes.",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "annotations": READ_ONLY,
    },
    {
        "name": "sealed",
        "description": "Takes no arguments and says so: no properties, none allowed.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": READ_ONLY,
    },
    {
        "name": "open_zero",
        "description": "Takes no arguments; its schema says so with an empty required list.",
        "inputSchema": {"type": "object", "properties": {}, "required": []},
        "annotations": READ_ONLY,
    },
    {
        "name": "nine_keys",
        "description": "Fails with a JSON-RPC error when both a and b are given.",
        "inputSchema": {
            "type": "object",
            "properties": {key: {"type": "integer"} for key in NINE_KEYS},
            "additionalProperties": False,
        },
        "annotations": READ_ONLY,
    },
]

SLOW_SECONDS = 0.6
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/srv/notes/server.py", line 41, in handle\n'
    "    row = db.fetch(n)\n"
    "KeyError: 7"
)


def main() -> None:
    records = open(sys.argv[1], "a")  # noqa: SIM115 - open until the process exits
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        answer = respond(message, records)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


def respond(message: dict[str, Any], records: Any) -> str:
    ident, method = message["id"], message["method"]
    params = message.get("params") or {}
    if method == "initialize":
        return reply(
            ident,
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "engine-raw", "version": "1"},
            },
        )
    if method == "tools/list":
        return reply(ident, {"tools": TOOLS})
    if method != "tools/call":
        return error(ident, -32601, f"Method not found: {method}")
    name, arguments = params["name"], params.get("arguments") or {}
    records.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")
    records.flush()
    return call(ident, name, arguments)


def call(ident: Any, name: str, arguments: dict[str, Any]) -> str:
    if name == "read_notes":
        topic = arguments.get("topic")
        if not isinstance(topic, str) or len(topic) > 20:
            return text(ident, "topic must be a string of at most 20 characters", is_error=True)
        return text(ident, f"notes about {topic}")
    if name == "garbled":
        return "this line is not JSON-RPC"
    if name == "slow":
        time.sleep(SLOW_SECONDS)
        return text(ident, "done")
    if name == "leaky":
        return text(ident, TRACEBACK, is_error=True)
    if name == "leaky_rpc":
        return error(ident, -32603, "cannot reach postgres://admin:hunter2@db.internal/notes")
    if name == "die":
        os._exit(3)
    if name == "nine_keys":
        if "a" in arguments and "b" in arguments:
            return error(ident, -32603, "a and b clash")
        return text(ident, "fine")
    return text(ident, "done")


def text(ident: Any, value: str, *, is_error: bool = False) -> str:
    return reply(ident, {"content": [{"type": "text", "text": value}], "isError": is_error})


def reply(ident: Any, result: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result})


def error(ident: Any, code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})


if __name__ == "__main__":
    main()
