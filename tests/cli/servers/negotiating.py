"""A raw JSON-RPC stdio server whose answers depend on how the client negotiated.

``python negotiating.py BEHAVIOR``:

- ``initialize-first``: answers ``server/discover`` with 2026-07-28 and
  ``tools/list`` statelessly, then refuses every other request with ``-32600
  initialize is required`` until the client did the handshake;
- ``kglite``: as ``initialize-first``, and once it answered ``server/discover``
  it also refuses, even after the handshake, every request without the
  stateless ``_meta`` (``-32602``, naming the keys): kglite 0.21.2 does this;
- ``legacy``: knows no ``server/discover`` (``-32601``), answers after ``initialize``;
- ``by-capability``: lists its ``ask`` tool only to a client that advertises
  elicitation (server-everything registers its elicitation tools so);
- ``refuses-both``: refuses stateless tool calls as ``kglite`` does, and the
  handshake too; its listings answer statelessly.

Every server has one read-only tool ``echo`` and one resource; each answer
to ``tools/call`` names the protocol the request came under (``stateless``
or the handshake's version).
"""

from __future__ import annotations

import json
import sys
from typing import Any

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
COMPLETE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}

ECHO = {
    "name": "echo",
    "description": "Says which protocol the call came under.",
    "inputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True},
}
ASK = {
    "name": "ask",
    "description": "Asks the user (registered only for a client that can elicit).",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {"readOnlyHint": True},
}
RESOURCE = {"uri": "docs://readme", "name": "readme", "mimeType": "text/plain"}


class Server:
    def __init__(self, behavior: str) -> None:
        self.behavior = behavior
        self.handshake: dict[str, Any] | None = None  # the initialize params, once received
        self.discovered = False  # whether it answered server/discover

    def answer(self, request: dict[str, Any]) -> dict[str, Any] | None:
        method, params = request.get("method"), request.get("params") or {}
        if "id" not in request:
            return None
        meta = params.get("_meta") or {}
        stateless = self.handshake is None and VERSION_KEY in meta
        if method == "server/discover":
            if self.behavior == "legacy":
                return {"error": {"code": -32601, "message": "Method not found"}}
            self.discovered = True
            return {"result": self._discovered()}
        if method == "initialize":
            if self.behavior == "refuses-both":
                return {"error": {"code": -32600, "message": "initialize is not accepted"}}
            if VERSION_KEY in (params.get("_meta") or {}):
                return {"error": {"code": -32602, "message": "initialize sent as stateless"}}
            self.handshake = params
            return {"result": self._initialized()}
        if not stateless and self.handshake is None:
            return {"error": {"code": -32600, "message": "initialize is required"}}
        if self.behavior == "kglite" and self.discovered and VERSION_KEY not in meta:
            keys = f"{VERSION_KEY}, {CAPABILITIES_KEY}"
            message = f"request _meta is missing or has malformed required fields: {keys}"
            return {"error": {"code": -32602, "message": message}}
        if stateless and self._refused(method):
            return {"error": {"code": -32600, "message": "initialize is required"}}
        extra = COMPLETE if stateless else {}
        if method == "tools/list":
            tools = [ECHO, ASK] if self._can_elicit(params) else [ECHO]
            return {"result": {"tools": tools, **extra}}
        if method == "tools/call":
            spoken = "stateless" if stateless else f"handshake {HANDSHAKE}"
            return {"result": {"content": [{"type": "text", "text": spoken}], **extra}}
        if method == "resources/list":
            return {"result": {"resources": [RESOURCE], **extra}}
        if method == "resources/read":
            text = {"uri": RESOURCE["uri"], "mimeType": "text/plain", "text": "Welcome."}
            return {"result": {"contents": [text], **extra}}
        return {"error": {"code": -32601, "message": "Method not found"}}

    def _refused(self, method: str) -> bool:
        if self.behavior in ("kglite", "initialize-first"):
            return method != "tools/list"
        return self.behavior == "refuses-both" and method == "tools/call"

    def _can_elicit(self, params: dict[str, Any]) -> bool:
        if self.handshake is not None:
            capabilities = self.handshake.get("capabilities") or {}
        else:
            capabilities = (params.get("_meta") or {}).get(CAPABILITIES_KEY) or {}
        return self.behavior == "by-capability" and "elicitation" in capabilities

    def _capabilities(self) -> dict[str, Any]:
        return {"tools": {}, "resources": {}}

    def _discovered(self) -> dict[str, Any]:
        info = {"name": f"negotiating-{self.behavior}", "version": "1.0"}
        return {
            "supportedVersions": [MODERN, HANDSHAKE],
            "capabilities": self._capabilities(),
            "_meta": {"io.modelcontextprotocol/serverInfo": info},
            **COMPLETE,
        }

    def _initialized(self) -> dict[str, Any]:
        return {
            "protocolVersion": HANDSHAKE,
            "capabilities": self._capabilities(),
            "serverInfo": {"name": f"negotiating-{self.behavior}", "version": "1.0"},
        }


def main() -> None:
    server = Server(sys.argv[1])
    for line in sys.stdin:
        request = json.loads(line)
        answer = server.answer(request)
        if answer is not None:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], **answer}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
