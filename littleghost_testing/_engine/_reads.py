"""``check_reads``: every resource, resource template and prompt read once or a few times.

Reading a resource and getting a prompt change nothing, by the protocol, so
no opt-in is needed. Each listed resource is read at its URI; each template
at the URIs a few rounds of values make; each prompt is got with its
required arguments, then with every argument (``_resources``, ``_prompts``).
Answers are judged as tool calls are: a JSON-RPC error where a result was
due (``jsonrpc_error``), an SDK's report of an exception the server did not
handle (``unhandled_exception``, ``_crashes.read_crash``), a result the MCP
types reject (``malformed_contents``), an error text showing a stack trace or
a credential (``leaked_error_detail``), no answer (``timeout``), a dead
connection (``crash``), and ``unexercised`` when nothing a subject was sent
succeeded.

The reads go through a ``ReadSession``: the connection the tools were
called on, reopened by its owner once it broke (``_read_session``).
``list_reads`` says what would be sent, sending no read; ``read_catalog``
lists everything for a lock.

Values ``check`` chose (made up, or offered by the server's completions) may
be refused, with any error: that is an answer, and no finding (``unexercised``
when nothing worked), bar a crash report, which counts whatever the others
answered. Values the user gave (``--inputs``, keys ``prompt:NAME`` and
``resource:URI_TEMPLATE``) must work, as a listed resource must.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypedDict, cast

import anyio
import mcp
import mcp_types as types
from pydantic import ValidationError

import littleghost as lg
from littleghost.mcp import (
    JSONRPCError,
    MalformedMessage,
    Toolset,
    translate_error,
)

from ._completions import MAX_COMPLETION_REQUESTS, Completions
from ._crashes import read_crash
from ._findings import (
    DISCOVERY,
    KINDS,
    Finding,
    FindingGroup,
    ServerReport,
    Subject,
    ToolReport,
    describe,
)
from ._leaks import find_leak
from ._options import PROMPT_INPUTS, TEMPLATE_INPUTS, FuzzOptions
from ._prompts import getter, messages_problem, prompt_attempts
from ._read_session import (
    Attempt,
    ConnectFailed,
    Listed,
    ReadSession,
    connection_fault,
    list_pages,
)
from ._resources import contents_problem, read, template_attempts
from ._uri_templates import match

__all__ = [
    "MAX_LOCKED_READS",
    "MAX_READ_SUBJECTS",
    "REFUSAL_CODES",
    "RESOURCE_NOT_FOUND",
    "PlannedRead",
    "ReadCatalog",
    "ReadPlan",
    "check_reads",
    "list_reads",
    "read_catalog",
]

MAX_READ_SUBJECTS = 100
"""Resources, resource templates and prompts read per run, at most, each kind counted apart."""

MAX_LOCKED_READS = 10_000
"""Resources, resource templates or prompts a lock records, at most, each kind counted apart;
a longer listing is refused (a lock of part of the catalog would mislead)."""

RESOURCE_NOT_FOUND = -32002
"""The JSON-RPC error code MCP gives a read of a resource that does not exist."""

REFUSAL_CODES = frozenset({types.INVALID_PARAMS, RESOURCE_NOT_FOUND})
"""The protocol's refusals: an error under these codes is deliberate, never read as a crash."""

MAX_SHOWN_CHARS = 200
"""How much of an error text a finding quotes."""

TEMPLATE_FIX = (
    "a template that raises for a value it does not know answers -32603, as for a crash; "
    "raise the SDK's ResourceNotFoundError (mcp.server.mcpserver.exceptions) instead: "
    "MCPServer then answers 'not found' (-32602), a refusal"
)
"""The fix of a template read answered with an internal error (-32603, or FastMCP's 0)."""

_INTERNAL_CODES = frozenset({types.INTERNAL_ERROR, 0})

Answer = Literal["success", "jsonrpc_error", "none"]


@dataclass(frozen=True)
class _Readable:
    """One thing to read: what to send, how, and what the MCP types do not check."""

    subject: Subject
    name: str
    attempts: Callable[[Completions], Awaitable[list[Attempt]]]
    send: Callable[[mcp.Client, Any], Awaitable[Any]]
    problem: Callable[[Any], str | None]
    method: str


@dataclass
class _Sent:
    """One request's answer: its findings, and what the server said when it refused."""

    answer: Answer
    findings: list[Finding] = field(default_factory=list[Finding])
    ends_round: bool = False
    broke: bool = False
    crashed: bool = False
    said: str | None = None
    fix: str | None = None


@dataclass(frozen=True)
class PlannedRead:
    """What ``check_reads`` would send one subject: each URI, or each set of arguments."""

    subject: Subject
    name: str
    inputs: tuple[Any, ...]


@dataclass
class ReadPlan:
    """``list_reads``: the reads, in order, and the listings that failed (as findings)."""

    reads: list[PlannedRead]
    listings: list[ToolReport]
    notes: list[str]


async def list_reads(session: ReadSession, options: FuzzOptions) -> ReadPlan:
    """What ``check_reads`` would read and send, sending no read (completions are asked,
    within one timeout per subject).

    Raises ``ConnectFailed`` when the server cannot be reached.
    """
    report = ServerReport("")
    reads: list[PlannedRead] = []
    for readable in await _discover(session, options, report):
        # One --timeout for each subject's completions, as a read of it would have.
        deadline = time.monotonic() + session.seconds
        completions = Completions(await session.client(), session.seconds, deadline=deadline)
        attempts = await readable.attempts(completions)
        if completions.broke:
            session.drop()
        inputs = tuple(attempt.input for attempt in attempts)
        reads.append(PlannedRead(readable.subject, readable.name, inputs))
    return ReadPlan(reads, [*report.resources, *report.prompts], report.notes)


async def check_reads(
    session: ReadSession,
    options: FuzzOptions,
    report: ServerReport,
    *,
    deadline: float | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    started: Callable[[str], None] = lambda name: None,
    finished: Callable[[ToolReport], None] = lambda report: None,
) -> None:
    """Read what ``options`` selects into ``report.resources`` and ``report.prompts``.

    ``deadline`` (``time.monotonic()``) and ``should_stop`` are checked
    between requests; what was not reached is reported as not called. Raises
    ``ConnectFailed`` when the server cannot be reached for the listings.
    """
    readables = await _discover(session, options, report)

    def stopped() -> bool:
        return should_stop() or (deadline is not None and time.monotonic() >= deadline)

    lost: str | None = None
    for readable in readables:
        reports = report.resources if readable.subject != "prompt" else report.prompts
        if lost is not None or stopped():
            why = lost or "the run stopped early"
            reports.append(_not_called(readable, f"not reached: {why}"))
            continue
        started(readable.name)
        checked = _not_called(readable, _why_read(readable))
        checked.called = True
        reports.append(checked)  # in place: an interrupted read keeps what came before
        try:
            await _check(session, readable, options.timeout, checked, stopped, deadline)
        except ConnectFailed as error:
            lost = f"reconnecting failed: {error}"
            checked.notes.append(lost)
        finished(checked)


class ReadCatalog(TypedDict, total=False):
    """``read_catalog``'s listings, as ``CatalogLock.from_tools`` takes them by keyword."""

    resources: list[types.Resource]
    resource_templates: list[types.ResourceTemplate]
    prompts: list[types.Prompt]


async def read_catalog(
    client: mcp.Client, seconds: float, *, resources: bool = True, prompts: bool = True
) -> ReadCatalog:
    """Every resource, resource template and prompt listed, as ``CatalogLock.from_tools``
    takes them (``resources``, ``resource_templates``, ``prompts``); what is left out by a
    switch is absent, and a server without the capability lists none.

    A failed or over-long listing raises: a lock of part of the catalog would mislead.
    """
    switches = {"resources": resources, "prompts": prompts}
    catalog: dict[str, list[Any]] = {}
    for listing in _LISTINGS:
        if switches[listing.kind]:
            offered = listing.offered(client.server_capabilities)
            catalog[listing.lock_key] = (
                await _every_item(client, seconds, listing) if offered else []
            )
    return cast(ReadCatalog, catalog)


async def _every_item(client: mcp.Client, seconds: float, listing: _Listing) -> list[Any]:
    async def page(cursor: str | None) -> Any:
        with anyio.fail_after(seconds):
            return await listing.fetch(client, cursor)

    try:
        listed = await list_pages(page, listing.items_of, listing.method, MAX_LOCKED_READS)
    except Exception as error:
        translated = _translated(error)
        if isinstance(translated, JSONRPCError) and translated.code == types.METHOD_NOT_FOUND:
            return []
        raise translated from error
    if listed.more:
        raise MalformedMessage(
            f"{listing.method}: more than MAX_LOCKED_READS ({MAX_LOCKED_READS}) items"
        )
    return listed.items


# -- discovery ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Listing:
    """One listing method: whether it is wanted, how to page it, and what each item reads as."""

    method: str
    what: str
    lock_key: str
    kind: Literal["resources", "prompts"]
    fetch: Callable[[mcp.Client, str | None], Awaitable[Any]]
    items_of: Callable[[Any], Any]
    readable: Callable[[Any, _Known], _Readable]

    def wanted(self, options: FuzzOptions, capabilities: types.ServerCapabilities) -> bool:
        """Switched on (``--no-resources``, ``--no-prompts``) and offered by the server."""
        switched_on = options.resources if self.kind == "resources" else options.prompts
        return switched_on and self.offered(capabilities)

    def offered(self, capabilities: types.ServerCapabilities) -> bool:
        offer = capabilities.resources if self.kind == "resources" else capabilities.prompts
        return offer is not None


@dataclass(frozen=True)
class _Known:
    """Values known before any read: those the server's listings show, and the user's."""

    offered: dict[str, list[str]]
    """Variable name -> values, read out of listed URIs that a template makes."""
    inputs: Mapping[str, Sequence[Mapping[str, Any]]]
    """``FuzzOptions.inputs``: ``prompt:NAME`` and ``resource:URI_TEMPLATE`` keys are ours."""


async def _discover(
    session: ReadSession, options: FuzzOptions, report: ServerReport
) -> list[_Readable]:
    """Every readable, resources (static, then templates) before prompts; listing failures
    become findings in ``report``."""
    capabilities = (await session.client()).server_capabilities
    listed: list[tuple[_Listing, list[Any]]] = []
    for listing in _LISTINGS:
        if listing.wanted(options, capabilities):
            found = await _listing(session, report, listing)
            listed.append((listing, found.items))
            if found.more:
                report.notes.append(
                    f"only the first {MAX_READ_SUBJECTS} {listing.what} were read "
                    "(MAX_READ_SUBJECTS)"
                )
    items = {listing.method: found for listing, found in listed}
    resources = items.get("resources/list", [])
    templates = items.get("resources/templates/list", [])
    known = _Known(_offered(resources, templates), options.inputs)
    report.notes += _unused_inputs(options, items)
    return [listing.readable(item, known) for listing, found in listed for item in found]


def _offered(
    resources: Sequence[types.Resource], templates: Sequence[types.ResourceTemplate]
) -> dict[str, list[str]]:
    """Each variable's values in the listed URIs its templates make, in listing order."""
    offered: dict[str, dict[str, None]] = {}
    for template in templates:
        for resource in resources:
            values = match(template.uri_template, str(resource.uri))
            for name, value in (values or {}).items():
                offered.setdefault(name, {})[value] = None
    return {name: list(values) for name, values in offered.items()}


def _unused_inputs(options: FuzzOptions, items: Mapping[str, list[Any]]) -> list[str]:
    """A note per ``prompt:`` or ``resource:`` key of the inputs that names nothing listed."""
    listed = {
        PROMPT_INPUTS: (
            "prompts/list",
            {prompt.name for prompt in items.get("prompts/list", [])},
        ),
        TEMPLATE_INPUTS: (
            "resources/templates/list",
            {template.uri_template for template in items.get("resources/templates/list", [])},
        ),
    }
    notes: list[str] = []
    for key in options.inputs:
        for prefix, (method, names) in listed.items():
            if key.startswith(prefix) and method in items and key[len(prefix) :] not in names:
                notes.append(f"inputs for {key!r} not used: {method} does not list it")
    return notes


async def _listing(session: ReadSession, report: ServerReport, listing: _Listing) -> Listed[Any]:
    """Every page of ``listing``; a failure is a finding about the listing, and no items."""
    started = time.monotonic()
    client = await session.client()
    method = listing.method

    async def page(cursor: str | None) -> Any:
        with anyio.fail_after(session.seconds):
            return await listing.fetch(client, cursor)

    try:
        return await list_pages(page, listing.items_of, method, MAX_READ_SUBJECTS)
    except Exception as error:
        translated = _translated(error)
        if isinstance(translated, JSONRPCError) and translated.code == types.METHOD_NOT_FOUND:
            return Listed([])  # resources without templates, say
        kind = "timeout" if isinstance(error, TimeoutError) else "malformed_catalog"
        observed = "no answer" if kind == "timeout" else describe(translated)
        finding = Finding(
            kind=kind,
            valid=True,
            keyword=None,
            path=None,
            input=None,
            expected=f"a valid {method} answer within {session.seconds:g} s",
            observed=observed,
            duration=time.monotonic() - started,
        )
        subject: Subject = "prompt" if method.startswith("prompts") else "resource"
        failed = ToolReport(
            f"({method})", reason=DISCOVERY, subject=subject, groups=[FindingGroup(finding, 1)]
        )
        (report.prompts if subject == "prompt" else report.resources).append(failed)
        session.drop()  # the next request gets a fresh connection
        return Listed([])


def _resource(resource: types.Resource, known: _Known) -> _Readable:
    uri = str(resource.uri)

    async def attempts(completions: Completions) -> list[Attempt]:
        return [Attempt(uri, generated=False)]

    return _Readable("resource", uri, attempts, read, contents_problem, "resources/read")


def _template(template: types.ResourceTemplate, known: _Known) -> _Readable:
    given = known.inputs.get(TEMPLATE_INPUTS + template.uri_template, ())

    async def attempts(completions: Completions) -> list[Attempt]:
        return await template_attempts(completions, template, offered=known.offered, given=given)

    return _Readable(
        "resource template",
        template.uri_template,
        attempts,
        read,
        contents_problem,
        "resources/read",
    )


def _prompt(prompt: types.Prompt, known: _Known) -> _Readable:
    given = known.inputs.get(PROMPT_INPUTS + prompt.name, ())

    async def attempts(completions: Completions) -> list[Attempt]:
        return await prompt_attempts(completions, prompt, offered=known.offered, given=given)

    return _Readable(
        "prompt", prompt.name, attempts, getter(prompt.name), messages_problem, "prompts/get"
    )


_LISTINGS = (
    _Listing(
        "resources/list",
        "resources",
        "resources",
        "resources",
        lambda client, cursor: client.list_resources(cursor=cursor, cache_mode="bypass"),
        lambda page: page.resources,
        _resource,
    ),
    _Listing(
        "resources/templates/list",
        "resource templates",
        "resource_templates",
        "resources",
        lambda client, cursor: client.list_resource_templates(cursor=cursor, cache_mode="bypass"),
        lambda page: page.resource_templates,
        _template,
    ),
    _Listing(
        "prompts/list",
        "prompts",
        "prompts",
        "prompts",
        lambda client, cursor: client.list_prompts(cursor=cursor, cache_mode="bypass"),
        lambda page: page.prompts,
        _prompt,
    ),
)
"""The listings ``check`` reads from, in the order it reads them."""


def _why_read(readable: _Readable) -> str:
    return f"{readable.method} changes nothing, by the protocol"


def _not_called(readable: _Readable, reason: str) -> ToolReport:
    return ToolReport(readable.name, called=False, reason=reason, subject=readable.subject)


# -- reading ---------------------------------------------------------------------------


async def _check(
    session: ReadSession,
    readable: _Readable,
    seconds: float,
    report: ToolReport,
    stopped: Callable[[], bool],
    deadline: float | None = None,
) -> None:
    """Ask completions, then send ``readable``'s attempts round by round, recording answers
    and findings."""
    began = time.monotonic()
    findings: list[Finding] = []
    refusal = _Sent("none")  # the first refusal's text and fix, once there is one
    attempts: list[Attempt] = []
    try:
        completions = Completions(
            await session.client(), seconds, deadline=deadline, stopped=stopped
        )
        attempts = await readable.attempts(completions)
        if not _completed(session, completions, report, findings):
            return
        for round_attempts in _rounds(attempts):
            for attempt in round_attempts:
                if stopped():
                    report.notes.append("stopped early: the run stopped")
                    return
                sent = await _send(session, readable, attempt, seconds)
                _count(report, sent)
                findings += sent.findings
                if refusal.said is None:
                    refusal = sent
                if sent.broke:
                    session.drop()
                if sent.crashed:
                    report.crashed = True
                    return
                if sent.answer == "success" or sent.ends_round:
                    break
    finally:
        report.elapsed = time.monotonic() - began
        generated = any(attempt.generated for attempt in attempts)
        _finish(report, readable, findings, refusal, generated=generated)


def _completed(
    session: ReadSession, completions: Completions, report: ToolReport, findings: list[Finding]
) -> bool:
    """Record how asking for completions went; whether reading may go on (no crash)."""
    if completions.left_out:
        report.notes.append(
            f"{completions.left_out} more variables or arguments were not completed "
            f"(MAX_COMPLETION_REQUESTS, {MAX_COMPLETION_REQUESTS})"
        )
    if completions.failure is not None:
        findings.append(completions.failure)
    if completions.broke:
        session.drop()  # the next read gets a fresh connection, and is not blamed
    if completions.failure is not None and completions.failure.kind == "crash":
        report.crashed = True
        return False
    return True


def _count(report: ToolReport, sent: _Sent) -> None:
    report.valid_calls += 1
    if sent.answer == "success":
        report.answers.success += 1
    elif sent.answer == "jsonrpc_error":
        report.answers.jsonrpc_error += 1


def _rounds(attempts: list[Attempt]) -> Iterator[list[Attempt]]:
    """The attempts grouped by round, in order."""
    rounds: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        rounds.setdefault(attempt.round, []).append(attempt)
    yield from rounds.values()


async def _send(
    session: ReadSession, readable: _Readable, attempt: Attempt, seconds: float
) -> _Sent:
    client = await session.client()
    started = time.monotonic()

    def finding(kind: str, expected: str, observed: str) -> Finding:
        return Finding(
            kind=kind,
            valid=True,
            keyword=None,
            path=None,
            input=attempt.input,
            expected=expected,
            observed=observed,
            duration=time.monotonic() - started,
            severity=KINDS[kind][0],
        )

    try:
        with anyio.fail_after(seconds):
            result = await readable.send(client, attempt.input)
    except TimeoutError:
        timeout = finding("timeout", f"an answer within {seconds:g} s", "no answer")
        return _Sent("none", [timeout], ends_round=True, broke=True)
    except ValidationError as error:
        broken = finding("malformed_contents", "an answer the MCP types accept", _summary(error))
        return _Sent("none", [broken], ends_round=True)
    except Exception as error:
        return _failed(_translated(error), readable, attempt, finding)
    size = len(result.model_dump_json(by_alias=True, exclude_none=True).encode())
    if size > Toolset.max_result_bytes:
        observed = f"{size} bytes, over max_result_bytes ({Toolset.max_result_bytes})"
        oversized = finding("malformed_result", "an answer within the size limit", observed)
        return _Sent("none", [oversized], ends_round=True)
    problem = readable.problem(result)
    if problem is not None:
        broken = finding("malformed_contents", "an answer the MCP types accept", problem)
        return _Sent("none", [broken], ends_round=True)
    return _Sent("success")


def _failed(
    error: BaseException, readable: _Readable, attempt: Attempt, finding: Callable[..., Finding]
) -> _Sent:
    """What an error answer makes: a refusal, or a finding.

    An error whose text is an SDK's report of an unhandled exception
    (``read_crash``), under a code that is not a refusal's, is an
    ``unhandled_exception`` whatever else its round answered: chosen values
    may be refused, never crash the server. Any other error for chosen values
    is the server refusing them: no finding.
    """
    if isinstance(error, JSONRPCError):
        text = error.server_message
        leaked = _leaks(text, error.data, attempt.input, finding)
        said = "withheld: it leaks" if leaked else text[:MAX_SHOWN_CHARS]
        internal = readable.subject == "resource template" and error.code in _INTERNAL_CODES
        fix = TEMPLATE_FIX if internal else None
        refused = error.code in REFUSAL_CODES  # deliberate, whatever its text
        sdk = None if refused else _crash_report(text, readable, attempt)
        if sdk is not None:
            observed = f"JSON-RPC error {error.code}, {sdk}: {said}"
            crash = finding("unhandled_exception", "a result, or a deliberate error", observed)
            return _Sent("jsonrpc_error", [*leaked, _fixed(crash, fix)], said=said, fix=fix)
        sent = _Sent("jsonrpc_error", leaked, said=said, fix=fix)
        if not attempt.generated:
            observed = f"JSON-RPC error {error.code}: {said}"
            sent.findings.append(_fixed(finding("jsonrpc_error", "a result", observed), fix))
            sent.ends_round = True
        return sent
    kind, expected, observed = connection_fault(error)
    failed = finding(kind, expected, observed)
    if kind == "crash":
        return _Sent("none", [failed], broke=True, crashed=True)
    known = isinstance(error, lg.ProviderError)  # a transport's or protocol's own error
    return _Sent("none", [failed], ends_round=True, broke=known)


def _fixed(found: Finding, fix: str | None) -> Finding:
    return found if fix is None else replace(found, fix=fix)


def _crash_report(text: str, readable: _Readable, attempt: Attempt) -> str | None:
    """Whose crash report an error text is, for the subject ``attempt`` read or got."""
    prompt = readable.subject == "prompt"
    subject = readable.name if prompt else str(attempt.input)
    return read_crash(text, subject, prompt=prompt, made_up=attempt.generated)


def _leaks(message: str, data: Any, sent: Any, finding: Callable[..., Finding]) -> list[Finding]:
    """A ``leaked_error_detail`` finding if the error shows what it should not (not an echo)."""
    texts = [message]
    if data is not None:
        texts.append(data if isinstance(data, str) else json.dumps(data, default=repr))
    echoed = [sent] if isinstance(sent, str) else [str(value) for value in dict(sent).values()]
    for text in texts:
        leak = find_leak(text)
        if leak is not None and not any(leak.text in value for value in echoed):
            return [
                finding(
                    "leaked_error_detail",
                    "an error answer without stack traces or credentials",
                    leak.describe(),
                )
            ]
    return []


def _translated(error: BaseException) -> BaseException:
    return translate_error(error) if isinstance(error, Exception) else error


def _summary(error: ValidationError) -> str:
    first = error.errors(include_url=False, include_input=False)[0]
    location = ".".join(str(part) for part in first["loc"]) or "(root)"
    return f"{error.error_count()} invalid field(s), first at {location}: {first['msg']}"


def _finish(
    report: ToolReport,
    readable: _Readable,
    findings: list[Finding],
    refusal: _Sent,
    *,
    generated: bool,
) -> None:
    groups: dict[tuple[str, str | None], list[Finding]] = {}
    for found in findings:
        groups.setdefault(found.group, []).append(found)
    report.groups = [
        FindingGroup(min(found, key=lambda f: len(json.dumps(f.input))), len(found))
        for found in groups.values()
    ]
    if report.answers.success == 0 and not report.crashed and report.valid_calls:
        verb = "get" if readable.subject == "prompt" else "read"
        answers = report.answers
        text = (
            f"no {verb} of {report.valid_calls} succeeded ({answers.jsonrpc_error} JSON-RPC "
            f"errors, {report.valid_calls - answers.jsonrpc_error} without a usable answer)"
        )
        if refusal.said is not None:
            text += f"; the first answered {json.dumps(refusal.said, ensure_ascii=True)}"
        if generated:
            key = PROMPT_INPUTS if readable.subject == "prompt" else TEMPLATE_INPUTS
            text += (
                "; the values were littleghost's (the server's listings and completions first): "
                f"give values that work with --inputs ({json.dumps(key + readable.name)})"
            )
        report.groups.append(
            FindingGroup(
                Finding(
                    kind="unexercised",
                    valid=True,
                    keyword=None,
                    path=None,
                    input=None,
                    expected=f"at least one {verb} answered with success",
                    observed=text,
                    duration=0.0,
                    severity="warning",
                    fix=refusal.fix,
                ),
                1,
            )
        )
