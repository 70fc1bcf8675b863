"""Which MCP protocol a connection speaks, and its fallback to the initialize handshake.

With ``mode="auto"`` the SDK probes ``server/discover`` and, when the server
names a 2026-07-28 version, speaks it statelessly: no ``initialize``. Some
servers answer the probe (even ``tools/list``) and then refuse every other
request with ``-32600`` "initialize is required" (kglite 0.21.2). Under
``protocol="auto"`` such a refusal makes the connection do the handshake
every shipping client does first, on the same connection, and send the
refused request again. kglite also goes on wanting the stateless ``_meta``
on every request of a connection that discovered, handshake or not: a
request after the fallback refused with ``-32602`` naming those keys is
sent again with them, and so is every later one (``Spoken.stateless_meta``).
``"legacy"`` starts with the handshake, and
``"stateless"`` refuses to fall back at all (to test a server's stateless
side). ``Negotiation.spoken()`` says what was spoken, for reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

import anyio
import mcp
import mcp_types as types
from mcp.shared.exceptions import MCPError

from . import _compat as compat
from ._exceptions import TransportError

__all__ = ["PROTOCOLS", "Negotiation", "Protocol", "Spoken", "configure"]

Protocol = Literal["auto", "stateless", "legacy"]
"""How a client negotiates: see the module docstring and docs/mcp.md."""

PROTOCOLS: tuple[Protocol, ...] = get_args(Protocol)

_NEGOTIATING = frozenset({"initialize", "server/discover"})

_STATELESS_META = (
    types.PROTOCOL_VERSION_META_KEY,
    types.CLIENT_INFO_META_KEY,
    types.CLIENT_CAPABILITIES_META_KEY,
    types.LOG_LEVEL_META_KEY,
)
"""What a stateless request carries in ``_meta`` in place of the handshake."""

MAX_REFUSAL_CHARS = 200
"""How much of the server's refusal ``Negotiation.spoken()`` quotes."""


@dataclass(frozen=True, slots=True)
class Spoken:
    """The protocol one connection spoke: its version, whether stateless, and why it fell back."""

    version: str
    stateless: bool
    refusal: str | None = None
    """The server's refusal of a stateless request that made it do the handshake."""
    stateless_meta: bool = False
    """Whether the server also wanted the stateless ``_meta`` after the handshake."""

    def __str__(self) -> str:
        if self.stateless:
            return f"{self.version} (stateless)"
        text = f"{self.version} (initialize handshake)"
        if self.refusal is not None:
            text += f", after the server refused a stateless request: {self.refusal}"
        if self.stateless_meta:
            text += "; every request also carries the stateless _meta, which the server wants"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "stateless": self.stateless,
            "refusal": self.refusal,
            "stateless_meta": self.stateless_meta,
        }


def configure(client: mcp.Client, protocol: Protocol) -> None:
    """Set ``client``'s SDK mode for ``protocol`` (before it is entered).

    ``"auto"`` leaves the mode the client was made with (``mode="legacy"`` stays).
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}; got {protocol!r}")
    if protocol == "legacy":
        client.mode = "legacy"
    elif protocol == "stateless" and client.mode == "legacy":
        client.mode = "auto"


def refuses_stateless(error: MCPError) -> bool:
    """Whether a server's error says the request needed the initialize handshake first."""
    return error.code == types.INVALID_REQUEST and "initializ" in error.message.lower()


def wants_stateless_meta(error: MCPError) -> bool:
    """Whether a server's error names a stateless ``_meta`` key the request lacked."""
    return error.code == types.INVALID_PARAMS and any(
        key in error.message for key in _STATELESS_META
    )


class Negotiation:
    """One connection's protocol policy, and the refusal it fell back on (if any)."""

    def __init__(self, client: mcp.Client, protocol: Protocol) -> None:
        self.client = client
        self.protocol: Protocol = protocol
        self.refusal: str | None = None
        """The server's words that made the connection fall back to the handshake."""
        self._lock = anyio.Lock()
        self._handshake_refused = False
        self._stateless_meta: dict[str, Any] = {}
        """The stateless ``_meta`` of the refused request, for a server that wants it still."""
        self.keeps_stateless_meta = False

    def check_request(self, method: str) -> None:
        """Under ``"stateless"``, the SDK's fallback to ``initialize`` is refused."""
        if method == "initialize" and self.protocol == "stateless":
            raise TransportError(
                "the server does not offer a stateless session (it did not answer "
                "server/discover with 2026-07-28): protocol 'auto' or 'legacy' talks to it"
            )

    def falls_back(self, method: str, error: MCPError) -> bool:
        """Whether ``error``, the answer to ``method``, is a stateless session refused."""
        return (
            self.protocol == "auto"
            and self.client.mode == "auto"
            and method not in _NEGOTIATING
            and refuses_stateless(error)
        )

    def keeps_meta(self, error: MCPError, params: Mapping[str, Any] | None) -> bool:
        """Whether ``error``, the answer to a request sent with ``params`` after the fallback,
        asks for the stateless ``_meta`` too: if so, every request from now on carries it."""
        sent = (params or {}).get("_meta") or {}
        if (
            self.refusal is None
            or not self._stateless_meta
            or types.PROTOCOL_VERSION_META_KEY in sent
            or not wants_stateless_meta(error)
        ):
            return False
        self.keeps_stateless_meta = True
        return True

    def with_meta(self, params: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """``params`` with the stateless ``_meta`` added, once the server wants it."""
        if not self.keeps_stateless_meta:
            return params
        data = dict(params or {})
        data["_meta"] = {**self._stateless_meta, **dict(data.get("_meta") or {})}
        return data

    async def handshake(self, refusal: MCPError, params: Mapping[str, Any] | None) -> bool:
        """Initialize on this connection, once however many requests were refused at once;
        whether the refused request may go again (not if the server refused the handshake).

        ``params`` are the refused request's, whose stateless ``_meta`` is kept aside."""
        meta = dict((params or {}).get("_meta") or {})
        async with self._lock:
            if not self._stateless_meta:
                self._stateless_meta = {k: v for k, v in meta.items() if k in _STATELESS_META}
            session = self.client.session
            if session.discover_result is None:
                return True  # a concurrent refusal did it already
            if self._handshake_refused:
                return False
            restore = compat.forget_negotiation(session)  # initialize goes as it would first
            try:
                await session.initialize()
            except MCPError:
                restore()  # still stateless: the refusal stands as the request's answer
                self._handshake_refused = True
                return False
            self.refusal = refusal.message[:MAX_REFUSAL_CHARS]
            return True

    def restamped(
        self, params: Mapping[str, Any] | None, opts: Any
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """A refused request's params and options as the handshake session sends them."""
        data: dict[str, Any] = {"method": "", "params": dict(params or {})}
        meta = {
            key: value
            for key, value in dict(data["params"].get("_meta") or {}).items()
            if key not in _STATELESS_META
        }
        if meta:
            data["params"]["_meta"] = meta
        else:
            data["params"].pop("_meta", None)
        options = {key: value for key, value in dict(opts or {}).items() if key != "headers"}
        compat.stamp(self.client.session, data, options)
        return (data["params"] or None), options

    def spoken(self) -> Spoken | None:
        """What the client speaks (the handshake's version once it fell back); ``None``
        until it is connected."""
        try:
            session = self.client.session
        except RuntimeError:
            return None
        version = session.protocol_version or "unknown"
        stateless = session.discover_result is not None
        return Spoken(version, stateless, self.refusal, self.keeps_stateless_meta)
