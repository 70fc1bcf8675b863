"""A hostile MCP server over stdio whose tools' input schemas reference what is not there.

``python -m tests.hostile.servers.schemas [URL]``: raw JSON-RPC lines, no SDK, so every
schema reaches the client exactly as written. Beside usable tools (which
check their arguments with ``jsonschema``) it lists tools whose ``$ref`` dangles,
points at a remote ``URL`` (which must never be fetched) or loops with no base case,
and one whose ``$dynamicRef`` names an anchor nowhere in the schema. Every tool is
annotated read-only, so ``check`` would call them all.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import jsonschema.exceptions
from jsonschema import Draft202012Validator

from tests.hostile.servers.behaviors import DISCOVER

REMOTE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:9/schema.json"
"""Where the ``remote`` tool's schema points."""

CHECKED: dict[str, Any] = {
    "echo": {
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": 20}},
        "required": ["text"],
        "additionalProperties": False,
    },
    # Valid, though a definition holds a reference to nothing: nothing applies that definition
    # in place, so no instance ever meets it.
    "hidden": {
        "type": "object",
        "properties": {"note": {"$ref": "#/$defs/note"}},
        "required": ["note"],
        "$defs": {"note": {"type": "string", "$defs": {"unused": {"$ref": "#/$defs/gone"}}}},
    },
    # Valid, though one branch takes no value at all.
    "branches": {
        "type": "object",
        "properties": {"x": {"anyOf": [{"type": "integer"}, {"not": {}}]}},
        "required": ["x"],
    },
}
"""Tools whose schemas are usable: each checks its arguments against its schema."""

HOSTILE: dict[str, Any] = {
    "dangling": {"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}},
    "remote": {
        "type": "object",
        "properties": {"x": {"$ref": REMOTE}},
    },
    "dynamic_nowhere": {"type": "object", "properties": {"x": {"$dynamicRef": "#nowhere"}}},
    # No finite instance: a required property that is the root again.
    "endless": {"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]},
    # Two definitions that only name each other: nothing to build a value from.
    "loop": {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
        "required": ["x"],
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    },
    # Fifty-wide recursion two optional levels down: past MAX_EXPANSIONS, refused from inside,
    # and ``{}`` is valid all the same.
    "expansive": {
        "type": "object",
        "properties": {
            "reporting_pipeline_settings": {
                "type": "object",
                "properties": {
                    "nested_output_block": {
                        "type": "object",
                        "properties": {
                            f"part_{n}": {"$ref": "#/properties/reporting_pipeline_settings"}
                            for n in range(50)
                        },
                    }
                },
            }
        },
    },
}
"""Tools whose schemas no input can be made for: they answer any call with ``ok``."""

TOOLS = [
    {
        "name": name,
        "description": f"A tool with a {name} schema.",
        "inputSchema": schema,
        "annotations": {"readOnlyHint": True},
    }
    for name, schema in {**CHECKED, **HOSTILE}.items()
]
VALIDATORS = {name: Draft202012Validator(schema) for name, schema in CHECKED.items()}
COMPLETE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}


def checked(name: str, arguments: Any) -> dict[str, Any]:
    """A usable tool's answer: its arguments back, or an error naming what they break."""
    error = jsonschema.exceptions.best_match(VALIDATORS[name].iter_errors(arguments))
    if error is not None:
        return _text(f"invalid arguments: {error.message}", True)
    return _text(json.dumps(arguments), False)


def _text(text: str, error: bool) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error, "resultType": "complete"}


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON-RPC answer to one request; ``None`` for a notification."""
    if "id" not in request:
        return None
    method, params = request.get("method"), request.get("params") or {}
    if method == "server/discover":
        result: Any = DISCOVER
    elif method == "tools/list":
        result = {"tools": TOOLS, **COMPLETE}
    elif method == "tools/call" and params.get("name") in CHECKED:
        result = checked(params["name"], params.get("arguments") or {})
    elif method == "tools/call":
        result = _text("ok", False)
    else:
        error = {"code": -32601, "message": "Method not found"}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
