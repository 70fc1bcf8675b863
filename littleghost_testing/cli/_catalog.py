"""``littleghost lock``, ``diff`` and ``lint``: a server's catalog, pinned, compared and linted.

None of them calls a tool: they connect, list the catalog through a
``Toolset`` (so every bound of the library applies) and close.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO
from xml.etree import ElementTree

import anyio
import mcp
import mcp_types as types

import littleghost as lg
from littleghost.mcp import CatalogLock, Change, Toolset, _is_lock_file

from .._engine import read_catalog
from .._targets import TargetError
from ..providers import PROVIDER_DOCS, ProviderWarning, provider_warnings
from ._connect import ServerLog, connection_failure, show_tail, target_of
from ._text import plural, visible, xml_text

__all__ = ["diff", "lint", "list_catalog", "lock", "mcp_tool_of"]

EXIT_OK, EXIT_CHANGED, EXIT_ERROR = 0, 1, 2


class _Failed(Exception):
    """Connecting or listing failed; the message is the one line to print."""


async def list_catalog(
    make_client: Callable[[], mcp.Client] | None,
    seconds: float,
    toolset: type[Toolset] | None = None,
) -> CatalogLock:
    """The catalog through a ``Toolset``, so every bound of the library applies.

    ``toolset`` (a user's subclass) connects by itself, and only its tools are
    listed; otherwise ``make_client`` does, and resources, resource templates
    and prompts are listed on the same connection.
    """
    clients: list[mcp.Client] = []
    if toolset is None:
        assert make_client is not None
        make = make_client

        class Listed(Toolset):
            discovery_timeout = seconds
            strict = True  # a lock or a lint of part of the catalog would mislead

            def client(self, binding: lg.Binding) -> mcp.Client:
                clients.append(make())
                return clients[-1]

        toolset = Listed
    async with lg.Run() as run:
        classes = await toolset.tools(lg.Binding(run=run))
        tools = [mcp_tool_of(tool_class) for tool_class in classes]
        if not clients:
            return CatalogLock.from_tools(tools)
        reads = await read_catalog(clients[0], seconds)
        return CatalogLock.from_tools(tools, clients[0].server_info, **reads)


def mcp_tool_of(tool: type[lg.Tool] | lg.Tool) -> types.Tool:
    """The SDK's ``Tool`` a generated class was made from (frozen schemas)."""
    return getattr(tool, "mcp_tool")  # noqa: B009 - set on generated classes only


def _catalog(args: argparse.Namespace, command: list[str]) -> CatalogLock:
    target = target_of(args, command, args.target)
    log = ServerLog(args.server_log, target.redact) if target.kind == "stdio" else None
    try:
        errlog = log.file() if log is not None else None
        return anyio.run(list_catalog, lambda: target.client(errlog=errlog), args.timeout)
    except (lg.LittleGhostError, TimeoutError) as error:
        show_tail(log)  # why a stdio server died, as check and call show it
        raise _Failed(connection_failure(target, error, args.timeout)) from None
    finally:
        if log is not None:
            log.close()


def lock(args: argparse.Namespace, command: list[str]) -> int:
    """Write the catalog's lock; an existing file is rewritten only with ``--update``, and
    only when it is a lock (one a merge broke included)."""
    path: Path = args.output
    if path.exists() and not args.update:
        return _error(f"{path} exists: --update rewrites it (or littleghost diff compares)")
    if path.exists() and not _is_lock_file(str(path)):
        return _error(f"{path} is not a littleghost lock: --update rewrites only a lock")
    try:
        catalog = _catalog(args, command)
        catalog.write(path)
    except (TargetError, _Failed, lg.ConfigurationError) as error:
        return _error(str(error))
    except OSError as error:
        return _error(f"cannot write {path}: {error.strerror}")
    for hint in catalog.hints():
        print(f"warning: {visible(str(hint))}")
    print(f"{path}: {_counts(catalog)} of {_server(catalog)}")
    return EXIT_OK


def diff(args: argparse.Namespace, command: list[str]) -> int:
    """Classify every change since the lock; 1 when any is breaking or suspicious."""
    try:
        locked = CatalogLock.load(args.lock)
        changes = locked.diff(_catalog(args, command))
    except (TargetError, _Failed, lg.ConfigurationError) as error:
        return _error(str(error))
    write_changes(changes, sys.stdout)
    try:
        if args.json is not None:
            args.json.write_text(json.dumps(changes_json(changes), indent=2) + "\n")
        if args.junit_xml is not None:
            _write_junit(changes, args.junit_xml)
    except OSError as error:
        return _error(f"cannot write the report: {error.strerror}")
    return EXIT_CHANGED if drifted(changes) else EXIT_OK


def lint(args: argparse.Namespace, command: list[str]) -> int:
    """Warn about what each provider rejects; 1 with ``--strict`` when anything does."""
    try:
        catalog = _catalog(args, command)
    except (TargetError, _Failed) as error:
        return _error(str(error))
    warnings = lint_catalog(catalog, args.providers)
    write_warnings(warnings, args.providers, len(catalog.tools), sys.stdout)
    return EXIT_CHANGED if warnings and args.strict else EXIT_OK


def lint_catalog(catalog: CatalogLock, providers: Sequence[str]) -> list[ProviderWarning]:
    return [
        warning
        for name, entry in catalog.tools.items()
        for warning in provider_warnings(name, entry.get("inputSchema") or {}, providers)
    ]


def drifted(changes: Sequence[Change]) -> bool:
    return any(change.kind != "compatible" for change in changes)


def write_changes(changes: Sequence[Change], out: TextIO) -> None:
    for change in changes:
        print(visible(str(change)), file=out)
    counts = {kind: sum(c.kind == kind for c in changes) for kind in _KINDS}
    summary = ", ".join(f"{count} {kind}" for kind, count in counts.items())
    if drifted(changes):
        verdict = "drifted"
    elif changes:
        verdict = "compatible with the lock (lock --update records them)"
    else:
        verdict = "matches the lock"
    print(f"{len(changes)} changes ({summary}): {verdict}", file=out)


def write_warnings(
    warnings: Sequence[ProviderWarning], providers: Sequence[str], tools: int, out: TextIO
) -> None:
    for warning in warnings:
        print(visible(str(warning)), file=out)
    for provider in providers:
        rejected = len({w.tool for w in warnings if w.provider == provider})
        print(
            f"{provider}: {rejected} of {tools} tools break a rule ({PROVIDER_DOCS[provider]})",
            file=out,
        )


def changes_json(changes: Sequence[Change]) -> dict[str, Any]:
    return {
        "drifted": drifted(changes),
        "changes": [{"tool": c.tool, "kind": c.kind, "what": c.what} for c in changes],
    }


_KINDS = ("breaking", "suspicious", "compatible")


def _write_junit(changes: Sequence[Change], path: Path) -> None:
    suite = ElementTree.Element(
        "testsuite",
        name="littleghost diff",
        tests=str(len(changes)),
        failures=str(sum(c.kind != "compatible" for c in changes)),
    )
    for change in changes:
        case = ElementTree.SubElement(
            suite, "testcase", classname=xml_text(change.tool), name=xml_text(change.what)
        )
        if change.kind != "compatible":
            failure = ElementTree.SubElement(case, "failure", message=change.kind)
            failure.text = xml_text(str(change))
    ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


_SECTIONS = (
    ("resources", "resource"),
    ("resourceTemplates", "resource template"),
    ("prompts", "prompt"),
)


def _counts(catalog: CatalogLock) -> str:
    """``3 tools, 2 resources, 1 resource template, 1 prompt``: each section the lock holds."""
    counts = [plural(len(catalog.tools), "tool")]
    counts += [
        plural(len(catalog.reads[section]), noun)
        for section, noun in _SECTIONS
        if section in catalog.reads
    ]
    return ", ".join(counts)


def _server(catalog: CatalogLock) -> str:
    name = catalog.server.get("name") or "the server"
    version = catalog.server.get("version")
    return visible(f"{name} {version}" if version else str(name))


def _error(message: str) -> int:
    print(f"littleghost: error: {visible(message)}", file=sys.stderr)
    return EXIT_ERROR
