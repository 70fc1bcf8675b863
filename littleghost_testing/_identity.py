"""The one client the kit presents to every server it checks, pins or calls.

A server may register tools by what its client can do: server-everything
lists its elicitation tools only to a client that can elicit. So ``check``,
``call``, ``lock``, ``diff``, ``lint``, ``from_target``, ``write_lock`` and
``assert_matches_lock`` all present the same client, made here: named
``littleghost`` with the kit's version, offering elicitation (every request
is declined: the kit never consents for a user) and neither sampling nor
roots, negotiating by the one ``protocol`` option (``littleghost.mcp``'s
``_protocol.py``). A ``Toolset`` subclass given to ``from_target`` presents
its own client instead.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import mcp
import mcp_types as types
from mcp.client.session import ClientRequestContext

import littleghost.mcp

from ._engine import DECLINE

__all__ = ["CLIENT_INFO", "identified"]


def _version() -> str:
    try:
        return version("littleghost")
    except PackageNotFoundError:
        return "unknown"


CLIENT_INFO = types.Implementation(name="littleghost", version=_version())


async def _decline(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    return DECLINE


def identified(client: mcp.Client, protocol: littleghost.mcp._Protocol = "auto") -> mcp.Client:
    """``client`` (fresh, unconnected), presenting the kit's identity."""
    client.client_info = CLIENT_INFO
    client.elicitation_callback = _decline
    client.sampling_callback = None
    client.list_roots_callback = None
    littleghost.mcp._use_protocol(client, protocol)
    return client
