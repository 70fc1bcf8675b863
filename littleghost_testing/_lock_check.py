"""``assert_matches_lock``: a server's catalog against its lock file, from pytest."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import anyio
import mcp
import mcp_types as types

import littleghost as lg
from littleghost.mcp import CatalogLock, Toolset

from ._engine import DEFAULT_TIMEOUT
from ._server_fuzzing import _connector
from .contracts._runner import in_fresh_thread

__all__ = ["assert_matches_lock", "write_lock"]


def write_lock(
    target: Any,
    lock: str | os.PathLike[str],
    *,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> CatalogLock:
    """Write ``target``'s catalog to ``lock``, as ``littleghost lock`` does; calls no tool."""
    connector = _connector(target, headers=headers, env=env, cwd=cwd)
    server, tools = in_fresh_thread(
        lambda: anyio.run(_listed, connector.toolset, connector.client, timeout)
    )
    catalog = CatalogLock.from_tools(tools, server)
    catalog.write(lock)
    return catalog


def assert_matches_lock(
    target: Any,
    lock: str | os.PathLike[str],
    *,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> None:
    """Fail, with the classified changes, unless ``target``'s catalog matches ``lock``.

    ``target`` is anything ``from_target`` takes (a URL, ``module:attribute``,
    a stdio command, a ``Toolset`` subclass, an SDK server, a ``FakeMCPServer``).
    Compatible changes (a new tool, a new optional property, a widened
    constraint) pass; breaking and suspicious ones fail. Calls no tool.
    """
    locked = CatalogLock.load(lock)
    connector = _connector(target, headers=headers, env=env, cwd=cwd)
    _, tools = in_fresh_thread(
        lambda: anyio.run(_listed, connector.toolset, connector.client, timeout)
    )
    changes = locked.diff(CatalogLock.from_tools(tools))
    failing = [change for change in changes if change.kind != "compatible"]
    if failing:
        shown = "\n".join(f"  {change}" for change in changes)
        raise AssertionError(
            f"{connector.label} drifted from the lock {os.fspath(lock)}: "
            f"{len(failing)} breaking or suspicious changes\n{shown}"
        )


async def _listed(
    toolset: type[Toolset] | None, client: Any, seconds: float
) -> tuple[types.Implementation | None, list[types.Tool]]:
    """The catalog through a ``Toolset``, so every bound of the library applies."""
    clients: list[mcp.Client] = []
    if toolset is None:
        make: Any = client

        class Listed(Toolset):
            discovery_timeout = seconds

            def client(self, binding: lg.Binding) -> mcp.Client:
                clients.append(make())
                return clients[-1]

        toolset = Listed
    async with lg.Run() as run:
        classes = await toolset.tools(lg.Binding(run=run))
        server = clients[0].server_info if clients else None
        return server, [getattr(tool_class, "mcp_tool") for tool_class in classes]  # noqa: B009
