"""A FakeMCPServer for the engine tests over Streamable HTTP: it records every call it gets."""

from __future__ import annotations

from typing import Any

from littleghost_testing.fake_server import ErrorResult, FakeMCPServer, JsonRpcError

READ_ONLY = {"readOnlyHint": True}
JS_STACK = "TypeError: row is undefined\n    at lookup (/app/dist/index.js:41:17)"

shop = FakeMCPServer("engine-shop", import_path="servers.engine_fakes:shop")


@shop.tool(
    description="Search the catalog; more than 100 hits break the outputSchema.",
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "examples": ["alpha", "beta"]},
            "limit": {"type": "integer", "minimum": 1, "default": 5},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"hits": {"type": "array", "items": {"type": "string"}}},
        "required": ["hits"],
    },
    annotations=READ_ONLY,
)
def search(query: Any = None, limit: Any = 5) -> dict[str, Any]:
    if not isinstance(query, str) or not isinstance(limit, int) or limit < 1:
        return {"hits": []}  # lenient: invalid input answered with success
    return {"hits": "too many"} if limit > 100 else {"hits": [query] * min(limit, 3)}


@shop.tool(description="Zero arguments.", input_schema={"type": "object"}, annotations=READ_ONLY)
def ping() -> str:
    return "pong"


@shop.tool(
    description="Never finds anything.",
    input_schema={"type": "object", "properties": {"sku": {"type": "string"}}},
    annotations=READ_ONLY,
)
def find(sku: Any = None) -> str:
    return "never"


@shop.tool(
    description="A JSON-RPC error carrying a JavaScript stack.",
    input_schema={"type": "object", "properties": {"sku": {"type": "string"}}},
    annotations=READ_ONLY,
)
def stock(sku: Any = None) -> str:
    return "never"


@shop.tool(
    description="Changes prices (no annotations).",
    input_schema={"type": "object", "properties": {"percent": {"type": "number"}}},
)
def reprice(percent: Any = None) -> str:
    return "repriced"


@shop.tool(
    description="Deletes the catalog.",
    input_schema={"type": "object", "properties": {"confirm": {"type": "boolean"}}},
    annotations={"destructiveHint": True, "readOnlyHint": False},
)
def delete_catalog(confirm: Any = None) -> str:
    return "deleted"


def arm() -> None:
    """Script the faults (``close()`` forgets them): ``find`` never succeeds, ``stock`` leaks."""
    shop.fault("find", ErrorResult("no such product"))
    shop.fault("stock", JsonRpcError(-32603, JS_STACK))
