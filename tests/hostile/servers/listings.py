"""A hostile stdio server whose resource, template or prompt listing has no end in bytes.

``python -m tests.hostile.servers.listings KIND PAGES SIZE [PER_PAGE]``: ``resources/list``
(KIND ``resources``), ``resources/templates/list`` (``templates``) or
``prompts/list`` (``prompts``) answers PAGES pages of PER_PAGE items each (one
by default), every item's description SIZE bytes long; each page is within
``max_result_bytes``, their sum is not. KIND may name several, comma-separated
(``resources,prompts``). The other listings are empty; its one tool is read-only.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.hostile.servers.behaviors import DISCOVER, LISTING

METHODS = {
    "resources": ("resources/list", "resources"),
    "templates": ("resources/templates/list", "resourceTemplates"),
    "prompts": ("prompts/list", "prompts"),
}
COMPLETE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
CAPABILITIES = {"tools": {}, "resources": {}, "prompts": {}}


def item(kind: str, index: int, size: int) -> dict[str, Any]:
    described: dict[str, Any] = {"name": f"item{index}", "description": "x" * size}
    if kind == "resources":
        return described | {"uri": f"docs://item{index}"}
    if kind == "templates":
        return described | {"uriTemplate": f"docs://item{index}/{{id}}"}
    return described


def result(
    request: dict[str, Any], kinds: list[str], pages: int, size: int, per_page: int
) -> dict[str, Any]:
    method = request.get("method")
    if method == "server/discover":
        return {"result": DISCOVER | {"capabilities": CAPABILITIES}}
    if method == "tools/list":
        return {"result": LISTING}
    for name, (listing, key) in METHODS.items():
        if method == listing:
            if name not in kinds:
                return {"result": {key: [], **COMPLETE}}
            cursor = (request.get("params") or {}).get("cursor")
            page = int(cursor) if cursor else 0
            more = {"nextCursor": str(page + 1)} if page + 1 < pages else {}
            first = page * per_page
            items = [item(name, index, size) for index in range(first, first + per_page)]
            return {"result": {key: items, **more, **COMPLETE}}
    return {"error": {"code": -32601, "message": "Method not found"}}


def main() -> None:
    kinds, pages, size = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
    per_page = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if "id" in request:
            answer = {
                "jsonrpc": "2.0",
                "id": request["id"],
                **result(request, kinds, pages, size, per_page),
            }
            out.write(json.dumps(answer).encode() + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
