"""A hostile stdio MCP server for ``check``'s completions: slow, wide or oversized on purpose.

It speaks JSON-RPC line by line without the SDK. It lists no tool and one
resource template naming ``VARIABLES`` variables (``wide://t/{v0}/{v1}...``),
offers completions, answers each ``completion/complete`` after ``SECONDS``
with one value of ``BYTES`` characters, and reads any URI. Every completion
and read it receives is appended to ``EVENTS_FILE``, one line each.

Run: ``python read_hostile.py VARIABLES SECONDS BYTES EVENTS_FILE``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def main() -> None:
    variables, seconds, size = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    events = open(sys.argv[4], "a")  # noqa: SIM115 - open until the process exits
    template = "wide://t/" + "/".join(f"{{v{n}}}" for n in range(variables))
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        ident, method = message["id"], message["method"]
        params = message.get("params") or {}
        if method == "completion/complete":
            events.write(f"complete {params['argument']['name']}\n")
            events.flush()
            time.sleep(seconds)
            answer = reply(ident, {"completion": {"values": ["c" * size]}})
        elif method == "resources/read":
            events.write(f"read {params['uri'][:80]}\n")
            events.flush()
            answer = reply(ident, {"contents": [{"uri": params["uri"], "text": "fine"}]})
        else:
            answer = respond(ident, method, template)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


def respond(ident: Any, method: str, template: str) -> str:
    if method == "initialize":
        capabilities = {"tools": {}, "resources": {}, "completions": {}}
        return reply(
            ident,
            {
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "serverInfo": {"name": "read-hostile", "version": "1"},
            },
        )
    if method == "tools/list":
        return reply(ident, {"tools": []})
    if method == "resources/list":
        return reply(ident, {"resources": []})
    if method == "resources/templates/list":
        listed = {"uriTemplate": template, "name": "wide"}
        return reply(ident, {"resourceTemplates": [listed]})
    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": method}})


def reply(ident: Any, result: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
