"""Serving ASGI apps with uvicorn on 127.0.0.1, in a background thread.

The listening socket is created here, with ``IPPROTO_TCP`` spelled out:
asyncio only sets ``TCP_NODELAY`` on accepted sockets whose ``proto`` is
``IPPROTO_TCP``, and a socket made with the default ``proto=0`` keeps Nagle
on, which costs ~40 ms per request/response pair.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

import uvicorn

ASGIApp = Any


class HttpServer:
    """One uvicorn server on an ephemeral port; ``url`` is its base URL."""

    def __init__(self, app: ASGIApp) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self._sock]))

    def __enter__(self) -> HttpServer:
        self._thread.start()
        for _ in range(500):
            if self._server.started:
                return self
            self._thread.join(0.01)
        raise RuntimeError("uvicorn did not start")

    def __exit__(self, *exc_info: object) -> None:
        self._server.should_exit = True
        self._thread.join(5)
        self._sock.close()


def without_discover(app: ASGIApp) -> ASGIApp:
    """Answer ``server/discover`` with "method not found", as a pre-2026 server does."""

    async def filtered(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await app(scope, receive, send)
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        request = json.loads(body) if body else {}
        if isinstance(request, dict) and request.get("method") == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            reply = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "error": error})
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": reply.encode()})
            return None
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await app(scope, replay, send)

    return filtered


async def failing_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Every request gets HTTP 500 with a plain-text body."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [(b"content-type", b"text/plain")],
        }
    )
    await send({"type": "http.response.body", "body": b"internal error"})
