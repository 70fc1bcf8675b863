"""A hostile MCP server over HTTP: raw HTTP/1.1 on a socket, no SDK, no ASGI server.

``python -m tests.hostile.servers.raw_http BEHAVIOR [SIZE]`` prints its port,
then answers every POST per ``behaviors``, as a JSON body -- or, for
``sse-BEHAVIOR``, as one ``text/event-stream`` event. ``mute`` accepts
connections and never answers anything (a server that hangs discovery).
"""

from __future__ import annotations

import asyncio
import json
import sys

from tests.hostile.servers.behaviors import Exit, Silent, answer

_FOREVER = 3600


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    behavior = sys.argv[1].removeprefix("sse-")
    events = sys.argv[1].startswith("sse-")
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        method = head.split(b" ", 1)[0]
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await reader.readexactly(length)
        if behavior == "mute":
            await asyncio.sleep(_FOREVER)
        if method != b"POST":
            writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return
        request = json.loads(body)
        if "id" not in request:
            writer.write(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
            return
        try:
            chunks = answer(request, behavior, size)
        except Silent:
            await asyncio.sleep(_FOREVER)
            return
        except Exit:
            return  # drop the connection without an answer
        kind = b"text/event-stream" if events else b"application/json"
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: " + kind + b"\r\nConnection: close\r\n\r\n")
        if events:
            writer.write(b"event: message\ndata: ")
        for chunk in chunks:  # the answer ends with a newline: a blank line ends the event
            writer.write(chunk)
            await writer.drain()
        if events:
            writer.write(b"\n")
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def main() -> None:
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
