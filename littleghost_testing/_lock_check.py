"""``assert_matches_lock``: a server's catalog against its lock file, from pytest."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

import anyio

import littleghost.mcp
from littleghost.mcp import CatalogLock

from ._engine import DEFAULT_TIMEOUT
from ._server_fuzzing import _connector
from ._threads import in_fresh_thread
from .cli import _list_catalog as list_catalog

__all__ = ["assert_matches_lock", "write_lock"]


class CatalogOptions(TypedDict, total=False):
    """How ``write_lock`` and ``assert_matches_lock`` reach the target, as ``from_target`` does."""

    headers: Mapping[str, str] | None
    env: Mapping[str, str] | None
    cwd: str | None
    inherit_tmpdir: bool
    timeout: float
    """Seconds to connect and list the catalog (default ``DEFAULT_TIMEOUT``)."""
    protocol: littleghost.mcp._Protocol
    """How to negotiate: ``"auto"`` (the default), ``"stateless"`` or ``"legacy"``."""


def write_lock(
    target: Any, lock: str | os.PathLike[str], **options: Unpack[CatalogOptions]
) -> CatalogLock:
    """Write ``target``'s catalog to ``lock``, as ``littleghost lock`` does; calls no tool."""
    _, catalog = _catalog_of(target, options)
    catalog.write(lock)
    return catalog


def assert_matches_lock(
    target: Any, lock: str | os.PathLike[str], **options: Unpack[CatalogOptions]
) -> None:
    """Fail, with the classified changes, unless ``target``'s catalog matches ``lock``.

    ``target`` is anything ``from_target`` takes (a URL, ``module:attribute``,
    a stdio command, a ``Toolset`` subclass, an SDK server, a ``FakeMCPServer``),
    with its ``headers``, ``env`` and ``cwd``. Compatible changes (a new tool,
    a new optional property, a widened constraint) pass; breaking and
    suspicious ones fail. Calls no tool and reads no resource.
    """
    locked = CatalogLock.load(lock)
    label, catalog = _catalog_of(target, options)
    changes = locked.diff(catalog)
    failing = [change for change in changes if change.kind != "compatible"]
    if failing:
        shown = "\n".join(f"  {change}" for change in changes)
        raise AssertionError(
            f"{label} drifted from the lock {os.fspath(lock)}: "
            f"{len(failing)} breaking or suspicious changes\n{shown}"
        )


def _catalog_of(target: Any, options: CatalogOptions) -> tuple[str, CatalogLock]:
    """The target's label and catalog, listed in a thread of its own (callers may be async)."""
    connector = _connector(
        target,
        headers=options.get("headers"),
        env=options.get("env"),
        cwd=options.get("cwd"),
        inherit_tmpdir=options.get("inherit_tmpdir", False),
        protocol=options.get("protocol", "auto"),
    )
    seconds = options.get("timeout", DEFAULT_TIMEOUT)
    catalog = in_fresh_thread(
        lambda: anyio.run(list_catalog, connector.client, seconds, connector.toolset)
    )
    return connector.label, catalog
