"""``client(...)``: the one way littleghost and its kit build an ``mcp.Client`` for a server.

Whatever reaches the server -- a ``Toolset``, ``littleghost check``, ``littleghost
call``, pytest's ``from_target`` -- gets the same transports, read within the
same bounds (``_wire.py``): a server's bytes are never read by the SDK's
unbounded readers, whoever asked for the connection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import httpx2
import mcp
from mcp.client.stdio import StdioServerParameters
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from . import _compat as compat
from ._bounds import Bounds
from ._protocol import Protocol, Spoken, configure
from ._secrets import secrets_sent
from ._wire import BoundedConnector, Route, install

if TYPE_CHECKING:
    from ._toolset import Toolset

__all__ = ["client", "spoken", "use_protocol"]


def client(
    server: str | Sequence[str] | StdioServerParameters | Server[Any] | MCPServer[Any] | Any,
    *,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    stderr: IO[str] | Callable[[str], object] | None = None,
    on_response: Callable[[httpx2.Response], object] | None = None,
    limits: type[Toolset] | None = None,
    secrets: Iterable[str] = (),
    inherit_tmpdir: bool = False,
    protocol: Protocol = "auto",
    **options: Any,
) -> mcp.Client:
    """A fresh, unconnected ``mcp.Client`` whose transport reads the server within bounds.

    ``server`` is a Streamable HTTP URL (``headers`` go with every request;
    ``on_response`` sees each response, e.g. to notice a 401 or 403), a stdio
    command as a list of words or ``StdioServerParameters`` (``env`` is added
    to the SDK's default environment, ``cwd`` is its directory, ``stderr`` a
    real file or a callback that gets it line by line), an in-process SDK
    ``Server``/``MCPServer``, or a ``Transport`` of your own (its messages
    are checked once parsed). The bounds are the ``max_*`` attributes of
    ``limits`` (default ``Toolset``'s); a ``Toolset`` applies its own to any
    client it connects. ``protocol`` is how it negotiates (``_protocol.py``):
    ``"auto"``, ``"stateless"`` or ``"legacy"``. ``options`` go to ``mcp.Client``.

    Every secret sent -- header values, the URL's query values and password,
    ``env`` values whose name or value says they are secrets -- and every
    string in ``secrets`` is redacted from all the server sends back (see
    docs/mcp.md, "Secrets are redacted from what the server sends"). A stdio server gets a private
    temp folder (``TMPDIR``, ``TEMP``, ``TMP``), removed once it exits;
    ``inherit_tmpdir=True`` keeps ours.
    """
    from ._toolset import Toolset  # the Toolset imports this module's package first

    is_url = isinstance(server, str)
    is_command = not is_url and isinstance(server, list | tuple)
    if (headers or on_response is not None) and not is_url:
        raise TypeError("headers and on_response are for a Streamable HTTP server (a URL)")
    is_stdio = is_command or isinstance(server, StdioServerParameters)
    if (env is not None or cwd is not None or stderr is not None) and not is_stdio:
        raise TypeError("env, cwd and stderr are for a stdio server (a command)")
    if inherit_tmpdir and not is_stdio:
        raise TypeError("inherit_tmpdir is for a stdio server (a command)")
    target: Any = server
    if isinstance(server, str) and not server.startswith(("http://", "https://")):
        raise ValueError(f"{server[:80]!r} is not an http:// or https:// URL")
    if isinstance(server, list | tuple):
        words = [str(word) for word in server]  # pyright: ignore[reportUnknownVariableType]
        if not words:
            raise ValueError("a stdio command needs at least the program")
        target = StdioServerParameters(
            command=words[0], args=words[1:], env=dict(env) if env else None, cwd=cwd
        )
    elif isinstance(server, StdioServerParameters) and (env or cwd is not None):
        target = server.model_copy(
            update={
                "env": {**(server.env or {}), **(env or {})} or None,
                "cwd": server.cwd if cwd is None else cwd,
            }
        )
    made = mcp.Client(target, **options)
    configure(made, protocol)
    redactor = secrets_sent(
        server if is_url else None,
        headers,
        target.env if isinstance(target, StdioServerParameters) else None,
        [secrets] if isinstance(secrets, str) else secrets,
    )
    route = Route(
        headers=dict(headers or {}),
        on_response=on_response,
        stderr=stderr,
        redactor=redactor,
        inherit_tmpdir=inherit_tmpdir,
        protocol=protocol,
    )
    install(made, Bounds.of(limits or Toolset), route)
    return made


def use_protocol(client: mcp.Client, protocol: Protocol) -> None:
    """Make a fresh ``client`` negotiate by ``protocol``, as if ``client(...)`` had been told so."""
    from ._toolset import Toolset

    configure(client, protocol)
    install(client, Bounds.of(Toolset), Route(protocol=protocol), protocol=protocol)


def spoken(client: mcp.Client) -> Spoken | None:
    """The protocol ``client`` speaks, for a report; ``None`` unless connected and routed."""
    connector = compat.connector(client)
    if not isinstance(connector, BoundedConnector):
        return None
    return connector.wire.negotiation.spoken()
