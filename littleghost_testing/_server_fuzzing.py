"""Fuzzing an MCP server from pytest: ``from_target(TARGET).parametrize()``, one test per tool.

Resources, resource templates and prompts are items too (``resource:URI``,
``prompt:NAME``), read the way ``littleghost check`` reads them, all on the
first item's use, over the tools' connection.

What Schemathesis users know as ``@schema.parametrize()``. The tools are
discovered when the test module is collected, so each becomes its own pytest
item, with the tool's name as its id (``-k``, ``--lf`` and ``-n auto`` work).
The event loop and every call run in threads of their own, so a case can be
checked from a sync test or from inside a running event loop.
Each item fuzzes its tool with the same engine and the same finding text as
``littleghost check``: a violation fails it, a warning is a ``FuzzWarning``
(or a failure, with ``fail_on_warnings``). Every worker process opens one
connection per server, on first use, and closes it when the session ends.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import mcp
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

import littleghost as lg
import littleghost.mcp
from littleghost.mcp import Toolset

from ._compat import global_seed
from ._engine import (
    DEFAULT_TIMEOUT,
    FuzzOptions,
    JudgedToolset,
    PlannedTool,
    ReadSession,
    ServerReport,
    ToolReport,
    TransportFaults,
    check_reads,
    fuzz_tool,
    list_reads,
    plan,
)
from ._identity import identified
from ._targets import Target, TargetError, resolve
from ._threads import in_fresh_thread
from .cli import _details as details
from .cli import _plural as plural
from .cli import _reproduce as reproduce
from .fake_server import FakeMCPServer

__all__ = [
    "FuzzCase",
    "FuzzWarning",
    "FuzzedServer",
    "ReadCase",
    "UnreachableCase",
    "close_all",
    "from_target",
]

F = TypeVar("F", bound=Callable[..., Any])


class FuzzWarning(UserWarning):
    """A tool's warnings (``unexercised``, ``error_as_success``...): shown, not failed.

    ``-W error::littleghost_testing.FuzzWarning`` or ``fail_on_warnings=True``
    makes them failures.
    """


_servers: list[FuzzedServer] = []
_servers_lock = threading.Lock()


def from_target(
    target: str | Sequence[str] | type[Toolset] | MCPServer[Any] | Server[Any] | FakeMCPServer,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    allow_side_effects: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    tool_timeouts: Mapping[str, float] | None = None,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    inherit_tmpdir: bool = False,
    inputs: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    strict: bool = False,
    examples: int | None = None,
    seed: int | None = None,
    fail_on_warnings: bool = False,
    resources: bool = True,
    prompts: bool = True,
    protocol: littleghost.mcp._Protocol = "auto",
) -> FuzzedServer:
    """A server to fuzz from pytest: what ``littleghost check`` accepts, and in-process servers.

    ``target`` is a URL, ``module:attribute``, a stdio command as a list of
    strings, a ``Toolset`` subclass, an SDK ``MCPServer``/``Server`` or a
    ``FakeMCPServer``. The options are the CLI's; ``examples`` and ``seed``
    left ``None`` come from the active Hypothesis settings profile (and
    ``--hypothesis-seed``). A tool with warnings but no violation passes with
    a ``FuzzWarning``; ``fail_on_warnings`` fails it. ``resources`` and
    ``prompts`` make items of the server's resources (and templates) and
    prompts (not through a ``Toolset`` subclass, which only has tools).
    ``protocol`` is ``--protocol``: ``"auto"``, ``"stateless"`` or ``"legacy"``.
    Nothing connects until a test module uses it.
    """
    connect = _connector(
        target, headers=headers, env=env, cwd=cwd, inherit_tmpdir=inherit_tmpdir, protocol=protocol
    )
    profile = settings()
    database = profile.database
    options = FuzzOptions(
        examples=examples if examples is not None else profile.max_examples,
        seed=seed if seed is not None else _global_seed(),
        timeout=timeout,
        tool_timeouts=dict(tool_timeouts or {}),
        include=tuple(include),
        exclude=tuple(exclude),
        allow_side_effects=allow_side_effects,
        strict=strict,
        inputs=dict(inputs or {}),
        hypothesis_database=(
            database.path if isinstance(database, DirectoryBasedExampleDatabase) else None
        ),
        resources=resources,
        prompts=prompts,
    )
    return FuzzedServer(connect, options, fail_on_warnings=fail_on_warnings)


@dataclass(frozen=True)
class _Connector:
    """How to reach the server: a label, fresh clients, and the CLI words to call a tool again."""

    label: str
    client: Callable[[], mcp.Client] | None  # None: a Toolset subclass connects by itself
    toolset: type[Toolset] | None = None
    target: Target | None = None


def _connector(
    target: object,
    *,
    headers: Mapping[str, str] | None,
    env: Mapping[str, str] | None,
    cwd: str | None,
    inherit_tmpdir: bool,
    protocol: littleghost.mcp._Protocol = "auto",
) -> _Connector:
    """How to reach ``target``: every client presents the kit's identity (``_identity.py``)."""
    if isinstance(target, type) and issubclass(target, Toolset):
        return _Connector(target.__name__, None, toolset=target)
    if isinstance(target, FakeMCPServer):
        fake = target
        return _Connector(
            f"FakeMCPServer {fake.name!r}", lambda: identified(fake.client(), protocol)
        )
    if isinstance(target, MCPServer | Server):
        server: Any = target
        label = f"{type(target).__name__} {server.name!r}"
        return _Connector(label, lambda: identified(littleghost.mcp.client(server), protocol))
    if isinstance(target, str):
        resolved = resolve(target, headers=headers, env=env, cwd=cwd, inherit_tmpdir=inherit_tmpdir)
    elif isinstance(target, Sequence) and target and all(isinstance(w, str) for w in target):
        resolved = resolve(
            None,
            command=list(target),
            headers=headers,
            env=env,
            cwd=cwd,
            inherit_tmpdir=inherit_tmpdir,
        )
    else:
        raise TargetError(
            f"from_target takes a URL, module:attribute, a stdio command as a list of strings, "
            f"a Toolset subclass, an MCPServer, Server or FakeMCPServer; not {target!r}"
        )
    resolved = resolved.speaking(protocol)
    return _Connector(resolved.label, resolved.client, target=resolved)


def _global_seed() -> int | None:
    """``--hypothesis-seed``, when pytest was given one."""
    seed = global_seed()
    return seed if isinstance(seed, int) else None


class FuzzedServer:
    """The server's tools as pytest items: decorate a test with ``@server.parametrize()``."""

    def __init__(
        self, connector: _Connector, options: FuzzOptions, *, fail_on_warnings: bool = False
    ) -> None:
        self._connector = connector
        self.options = options
        self.fail_on_warnings = fail_on_warnings
        self._connection: _Connection | None = None
        self._unreachable: str | None = None  # why connecting failed, once: not tried again
        self._reads: dict[tuple[str, str], ToolReport] | None = None

    def __repr__(self) -> str:
        return f"<FuzzedServer {self._connector.label}>"

    @property
    def label(self) -> str:
        return self._connector.label

    def parametrize(self) -> Callable[[F], F]:
        """One pytest item per tool, id'd by its name; the test receives ``case``.

        A tool the CLI would skip (no ``readOnlyHint: true`` and no
        ``allow_side_effects=True``, or excluded) is a skipped item that says why.
        A server that cannot be reached is one failed item, id'd ``unreachable``,
        that says why: the rest of the session runs.
        """
        try:
            connection = self._open()
        except _Unreachable as error:
            self._unreachable = str(error)
            case = UnreachableCase(self, self._unreachable)
            return pytest.mark.parametrize("case", [pytest.param(case, id="unreachable")])
        params = [
            pytest.param(
                FuzzCase(self, tool),
                id=tool.name,
                marks=() if tool.called else pytest.mark.skip(reason=_skip_reason(tool)),
            )
            for tool in connection.planned
        ]
        params += [
            pytest.param(ReadCase(self, subject, name), id=_read_id(subject, name))
            for subject, name in connection.reads
        ]
        return pytest.mark.parametrize("case", params)

    def close(self) -> None:
        """Close this process's connection (pytest does it at session end)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            in_fresh_thread(connection.close)

    def _open(self) -> _Connection:
        if self._unreachable is not None:
            raise _Unreachable(self._unreachable)
        if self._connection is None:
            connector, options = self._connector, self.options
            self._connection = in_fresh_thread(lambda: _Connection(connector, options))
            with _servers_lock:
                _servers.append(self)
        return self._connection

    def _read(self, subject: str, name: str) -> ToolReport | None:
        """``name``'s report, from one pass over every resource and prompt (the first use)."""
        if self._reads is None:
            connection = self._open()
            report = in_fresh_thread(connection.read_all)
            read = [*report.resources, *report.prompts]
            self._reads = {(item.subject, item.name): item for item in read}
            if any(_broke(item) for item in read):
                self.close()  # the tools get a fresh connection, as after a crashed tool
        return self._reads.get((subject, name))

    def _fuzz(self, name: str) -> ToolReport:
        connection = self._open()
        report = in_fresh_thread(lambda: connection.fuzz(name))
        if report.crashed:
            self.close()  # the next tool gets a fresh connection
        elif _broke(report):
            connection.usable = False  # a server stuck on the call: the reads reconnect
        return report


def _skip_reason(tool: PlannedTool) -> str:
    reason = tool.reason.replace("--allow-side-effects", "allow_side_effects=True")
    reason = reason.replace("--include", "include=").replace("--exclude", "exclude=")
    return f"{tool.name}: {reason}"


class _Unreachable(TargetError):
    """The server could not be reached or listed: its own item fails, the session goes on.

    A mistake in the test's own arguments (``inputs=`` naming tools the server does
    not list) is a plain ``TargetError``, raised at collection.
    """


@dataclass(frozen=True)
class FuzzCase:
    """One tool of a ``FuzzedServer``: what a ``parametrize()``d test receives as ``case``."""

    server: FuzzedServer
    planned: PlannedTool

    @property
    def tool_name(self) -> str:
        """The name the server lists the tool under."""
        return self.planned.name

    @property
    def annotations(self) -> dict[str, Any]:
        """The server's annotations as JSON (``{"readOnlyHint": True}``), or ``{}``."""
        return dict(self.planned.annotations)

    def check(self) -> ToolReport:
        """Fuzz the tool with valid and invalid inputs; fail the test on any violation.

        The failure shows each distinct finding as ``littleghost check`` does.
        Without a violation, warnings are a ``FuzzWarning`` (a failure with
        ``fail_on_warnings``); returns the report, warnings included.
        """
        report = self.server._fuzz(self.tool_name)  # pyright: ignore[reportPrivateUsage]
        return _judged(report, self.server, self._explain)

    def _explain(self, report: ToolReport, severity: str) -> str:
        """``lookup on desk: 2 violations in 26 calls``, then each finding as the CLI shows it."""
        lines = details(report, _reproduce(self.server))
        distinct = (
            report.distinct_violations if severity == "violation" else report.distinct_warnings
        )
        header = (
            f"{self.tool_name} on {self.server.label}: "
            f"{plural(distinct, severity)} in {plural(report.calls, 'call')}"
        )
        return "\n".join([header, *lines])


@dataclass(frozen=True)
class ReadCase:
    """A resource, resource template or prompt of a ``FuzzedServer``, as a ``case``."""

    server: FuzzedServer
    subject: str
    """``"resource"``, ``"resource template"`` or ``"prompt"``."""
    name: str
    """The resource's URI, the template's URI template or the prompt's name."""

    def check(self) -> ToolReport:
        """Read it (or get it) as ``littleghost check`` does; fail the test on any violation.

        Warnings are a ``FuzzWarning`` (a failure with ``fail_on_warnings``).
        """
        server = self.server
        report = server._read(self.subject, self.name)  # pyright: ignore[reportPrivateUsage]
        if report is None:
            pytest.fail(f"{self.subject} {self.name} is no longer listed by {server.label}")
        return _judged(report, server, self._explain)

    def _explain(self, report: ToolReport, severity: str) -> str:
        """``prompt ask on desk: 1 violation``, then each finding as the CLI shows it."""
        distinct = (
            report.distinct_violations if severity == "violation" else report.distinct_warnings
        )
        header = f"{self.subject} {self.name} on {self.server.label}: {plural(distinct, severity)}"
        return "\n".join([header, *details(report, _reproduce(self.server))])


@dataclass(frozen=True)
class UnreachableCase:
    """The one item of a ``FuzzedServer`` that could not be reached: it fails with the reason."""

    server: FuzzedServer
    reason: str

    def check(self) -> ToolReport:
        """Fail the test with why the server could not be reached (the plugin does it first)."""
        pytest.fail(self.reason, pytrace=False)


def _judged(
    report: ToolReport, server: FuzzedServer, explain: Callable[[ToolReport, str], str]
) -> ToolReport:
    """Fail the test on a violation; warnings are a ``FuzzWarning`` (or fail, if told to)."""
    if report.violation_count:
        pytest.fail(explain(report, "violation"), pytrace=False)
    if report.warning_count:
        if server.fail_on_warnings:
            pytest.fail(explain(report, "warning"), pytrace=False)
        warnings.warn(FuzzWarning(explain(report, "warning")), stacklevel=3)  # check()'s caller
    return report


def _read_id(subject: str, name: str) -> str:
    """``resource:URI`` (templates too) or ``prompt:NAME``."""
    return f"{'prompt' if subject == 'prompt' else 'resource'}:{name}"


def _broke(report: ToolReport) -> bool:
    """Whether ``report``'s calls left the connection crashed, or the server stuck on one."""
    return report.crashed or any(group.example.kind == "timeout" for group in report.groups)


def _reproduce(server: FuzzedServer) -> Callable[[str, Any, str], str]:
    """The ``littleghost call`` (``read``, ``get``) line of a finding, or where it was sent."""
    target = server._connector.target  # pyright: ignore[reportPrivateUsage]
    if target is not None:
        return reproduce(target.connect_words)
    label = server.label
    return lambda name, value, command="call": f"{command} {name} on {label} with that input"


class _Connection:
    """One connection in this process: an event loop thread, a run owning the client, tools.

    Resources and prompts are read on the same connection (``read_all``).
    """

    def __init__(self, connector: _Connector, options: FuzzOptions) -> None:
        self.options = options
        self.faults = TransportFaults()
        self.client: mcp.Client | None = None
        """The SDK client the tools' connection holds (``None`` through a ``Toolset``)."""
        self.usable = True
        """No tool left the server stuck: the reads may use the connection as it is."""
        self._stack = contextlib.ExitStack()
        self.portal: BlockingPortal = self._stack.enter_context(start_blocking_portal("asyncio"))
        self._run = lg.Run()
        self._stack.callback(lambda: self.portal.call(_close_quietly, self._run))
        self._toolset = _toolset(connector, self)
        try:
            self.planned = self.portal.call(self._discover)
        except BaseException as error:
            self.close()
            raise _Unreachable(
                f"cannot discover the tools of {connector.label}: {_describe(error)}"
            ) from None
        unknown = options.unknown_tools(
            {tool.name for tool in self.planned},
            {
                "inputs": "from_target(inputs=...)",
                "tool_timeouts": "from_target(tool_timeouts=...)",
            },
        )
        if unknown is not None:
            self.close()
            raise TargetError(f"{connector.label}: {unknown}")
        self.reads: list[tuple[str, str]] = []
        """Each resource, template and prompt as ``(subject, name)``, listing failures too."""
        if connector.client is not None and (options.resources or options.prompts):
            try:
                listed = self.portal.call(list_reads, self._read_session(), options)
            except BaseException as error:
                self.close()
                raise _Unreachable(
                    f"cannot list the resources and prompts of {connector.label}: "
                    f"{_describe(error)}"
                ) from None
            self.reads = [(item.subject, item.name) for item in [*listed.listings, *listed.reads]]

    async def _discover(self) -> list[PlannedTool]:
        binding = lg.Binding(run=self._run)
        with anyio.fail_after(self.options.timeout):
            classes = await self._toolset.tools(binding)
        return plan([cls(binding) for cls in classes], self.options)

    async def _reopen(self) -> mcp.Client:
        """A fresh connection after a read broke this one; the tools move to it too."""
        await _close_quietly(self._run)
        self._run = lg.Run()
        self.planned = await self._discover()
        self.usable = True
        assert self.client is not None  # discovery connected it
        return self.client

    def _read_session(self) -> ReadSession:
        current = self.client if self.usable else None
        return ReadSession(self._reopen, self.options.timeout, current)

    def read_all(self) -> ServerReport:
        """Every resource and prompt read, as ``littleghost check`` reads them."""
        report = ServerReport("")
        self.portal.call(check_reads, self._read_session(), self.options, report)
        return report

    def fuzz(self, name: str) -> ToolReport:
        [tool] = [tool for tool in self.planned if tool.name == name]
        return fuzz_tool(self.portal, tool, self.options, faults=self.faults)

    def close(self) -> None:
        self._stack.close()


def _toolset(connector: _Connector, connection: _Connection) -> type[Toolset]:
    if connector.toolset is not None:
        return connector.toolset
    client = connector.client
    assert client is not None
    faults = connection.faults

    class FuzzedTools(JudgedToolset):
        strict = True  # a tool whose schema cannot be used fails discovery (a TargetError)

        def client(self, binding: lg.Binding) -> mcp.Client:
            connection.client = faults.attach(client())
            return connection.client

    return FuzzedTools


async def _close_quietly(run: lg.Run) -> None:
    """A crashed server's connection may fail to close; the crash is already reported."""
    with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
        await run.aclose()


def _describe(error: BaseException) -> str:
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def close_all() -> None:
    """Close every connection this process opened; the plugin calls it at session end."""
    with _servers_lock:
        servers = list(_servers)
        _servers.clear()
    for server in servers:
        server.close()
