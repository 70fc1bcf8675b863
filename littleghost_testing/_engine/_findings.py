"""What fuzzing found: plain data that the CLI, the JSON report and pytest all render."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from littleghost.mcp import _Spoken

__all__ = [
    "DISCOVERY",
    "INPUT_KINDS",
    "KINDS",
    "Answers",
    "Finding",
    "FindingGroup",
    "ServerReport",
    "Severity",
    "Subject",
    "ToolReport",
    "describe",
    "show",
    "unexercised",
]

Severity = Literal["violation", "warning"]
Subject = Literal["tool", "resource", "resource template", "prompt"]
"""What a report is about: a tool, or what ``check`` reads (a resource, a template, a prompt)."""

KINDS: dict[str, tuple[Severity, str]] = {
    "timeout": ("violation", "no answer within the call's timeout"),
    "crash": ("violation", "the connection closed during a call (the server died)"),
    "transport_error": ("violation", "the transport failed during a call"),
    "malformed_result": (
        "violation",
        "an answer that breaks the MCP protocol or cannot be parsed",
    ),
    "output_schema": ("violation", "structuredContent missing or breaking the outputSchema"),
    "jsonrpc_error": (
        "violation",
        "a valid input answered with a JSON-RPC error instead of a result",
    ),
    "unhandled_exception": (
        "violation",
        "a valid input answered with the server's report of an exception its tool did not "
        "handle (its SDK's crash shape), not a deliberate error",
    ),
    "schema_looser_than_tool": (
        "warning",
        "a valid input refused for a rule the inputSchema does not state (a deliberate "
        "exception, not a crash): names the missing constraint where the refusal does",
    ),
    "accepted_invalid": ("violation", "an input breaking the inputSchema answered with success"),
    "malformed_catalog": ("violation", "tools/list answered with a catalog that cannot be used"),
    "leaked_error_detail": (
        "violation",
        "an error answer showing a stack trace or a credential",
    ),
    "ignored_unknown_property": (
        "warning",
        "an unknown property, forbidden by additionalProperties: false, was ignored "
        "(a violation with strict)",
    ),
    "error_as_success": (
        "warning",
        'a success whose content reads as an error ({"success": false}, an "error" key, '
        "a crash report's text)",
    ),
    "unexercised": (
        "warning",
        "no valid input got a success answer (one that reads as an error, or answers as the "
        "refusals do, is none), so results were never checked",
    ),
    "malformed_contents": (
        "violation",
        "a resources/read or prompts/get answer that breaks the MCP types (a contents entry "
        "or a prompt message that does not parse, a blob that is not base64)",
    ),
}
"""Every finding kind: its default severity and a one-line description."""

DISCOVERY = "discovery"
"""The ``reason`` of a listing's own report (``(tools/list)``, ``(prompts/list)``...): its
findings are about the catalog, not about an item the server listed."""

INPUT_KINDS = frozenset({"accepted_invalid", "ignored_unknown_property"})
"""Kinds about the input the server failed to refuse: grouped per broken keyword and place."""

_ANY_ITEM = re.compile(r"\[\d+\]")
_ANY_KEY_KEYWORDS = frozenset({"additionalProperties", "unevaluatedProperties", "propertyNames"})


@dataclass(frozen=True, slots=True)
class Finding:
    """One call that broke the contract.

    ``valid`` says whether the input followed the inputSchema; ``keyword``
    and ``path`` name the constraint an invalid input breaks (``None`` for a
    valid one). ``input`` is JSON; ``duration`` is the call's seconds. ``fix``
    says how the server's code would answer right, where that is known.
    """

    kind: str
    valid: bool
    keyword: str | None
    path: str | None
    input: Any
    expected: str
    observed: str
    duration: float
    severity: Severity = "violation"
    fix: str | None = None

    @property
    def group(self) -> tuple[str, str | None]:
        """Distinct bugs stay distinct: a refusal missing for another keyword, or for the same
        keyword at another property, is another bug (array items count as one place)."""
        if self.kind not in INPUT_KINDS:
            return (self.kind, None)
        if self.keyword in _ANY_KEY_KEYWORDS:  # each unknown key names its own place
            return (self.kind, self.keyword)
        return (self.kind, f"{self.keyword} at {_ANY_ITEM.sub('[*]', self.path or '$')}")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "valid": self.valid,
            "keyword": self.keyword,
            "path": self.path,
            "input": self.input,
            "expected": self.expected,
            "observed": self.observed,
            "duration": round(self.duration, 6),
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class FindingGroup:
    """One distinct bug: every finding of one kind and keyword, shown by its smallest input."""

    example: Finding
    count: int

    def to_json(self) -> dict[str, Any]:
        return {**self.example.to_json(), "count": self.count}


@dataclass
class Answers:
    """How the server answered the valid inputs: success, ``isError``, JSON-RPC error.

    ``reads_as_error`` counts the successes whose content reads as an error
    (``error_as_success``), ``hollow`` the others that answer as a refusal does
    (``_hollow``): answered, but nothing was done with the input.
    """

    success: int = 0
    is_error: int = 0
    jsonrpc_error: int = 0
    reads_as_error: int = 0
    hollow: int = 0

    @property
    def worked(self) -> int:
        """Successes that are one: neither reading as an error nor hollow."""
        return self.success - self.reads_as_error - self.hollow

    def to_json(self) -> dict[str, int]:
        return {
            "success": self.success,
            "is_error": self.is_error,
            "jsonrpc_error": self.jsonrpc_error,
            "reads_as_error": self.reads_as_error,
            "hollow": self.hollow,
            "worked": self.worked,
        }


@dataclass
class ToolReport:
    """One tool: called or skipped (and why), how it answered, what broke.

    A resource, a resource template or a prompt is reported the same way
    (``subject`` says which): its reads or gets are its valid calls.
    """

    name: str
    called: bool = True
    reason: str = ""
    annotations: dict[str, Any] = field(default_factory=dict[str, Any])
    valid_calls: int = 0
    invalid_calls: int = 0
    answers: Answers = field(default_factory=Answers)
    groups: list[FindingGroup] = field(default_factory=list[FindingGroup])
    notes: list[str] = field(default_factory=list[str])
    elapsed: float = 0.0
    crashed: bool = False
    violations_so_far: int = 0
    """Violations recorded while the tool runs (for stop rules); ``violation_count`` after."""
    subject: Subject = "tool"

    @property
    def calls(self) -> int:
        return self.valid_calls + self.invalid_calls

    @property
    def unexercised(self) -> bool:
        """Called, yet no valid input was answered with a success that reads as one."""
        return self.called and self.answers.worked == 0 and not self.crashed

    @property
    def violation_count(self) -> int:
        """Calls that showed a violation (one bug found by many calls counts many times)."""
        return sum(group.count for group in self.groups if group.example.severity == "violation")

    @property
    def warning_count(self) -> int:
        """Calls that showed a warning."""
        return sum(group.count for group in self.groups if group.example.severity == "warning")

    @property
    def distinct_violations(self) -> int:
        """Distinct violations: one per kind and broken keyword, however many calls showed it."""
        return sum(1 for group in self.groups if group.example.severity == "violation")

    @property
    def distinct_warnings(self) -> int:
        return sum(1 for group in self.groups if group.example.severity == "warning")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "subject": self.subject,
            "called": self.called,
            "reason": self.reason,
            "annotations": self.annotations,
            "calls": self.calls,
            "valid_calls": self.valid_calls,
            "invalid_calls": self.invalid_calls,
            "answers": self.answers.to_json(),
            "unexercised": self.unexercised,
            "violation_count": self.violation_count,
            "warning_count": self.warning_count,
            "distinct_violations": self.distinct_violations,
            "distinct_warnings": self.distinct_warnings,
            "findings": [group.to_json() for group in self.groups],
            "notes": self.notes,
            "elapsed": round(self.elapsed, 6),
        }


@dataclass
class ServerReport:
    """A whole run: the target's label (never header or env values), options and tools."""

    target: str
    options: dict[str, Any] = field(default_factory=dict[str, Any])
    tools: list[ToolReport] = field(default_factory=list[ToolReport])
    interrupted: bool = False
    resources: list[ToolReport] = field(default_factory=list[ToolReport])
    """Resources and resource templates, read (``subject`` says which)."""
    prompts: list[ToolReport] = field(default_factory=list[ToolReport])
    notes: list[str] = field(default_factory=list[str])
    """About the run as a whole (a limit that left resources or prompts unread)."""
    protocol: _Spoken | None = None
    """The MCP protocol spoken, once connected (one that fell back to the handshake wins)."""

    @property
    def reports(self) -> list[ToolReport]:
        """Every tool's, resource's and prompt's report, in that order."""
        return [*self.tools, *self.resources, *self.prompts]

    @property
    def violation_count(self) -> int:
        return sum(report.violation_count for report in self.reports)

    @property
    def warning_count(self) -> int:
        return sum(report.warning_count for report in self.reports)

    @property
    def distinct_violations(self) -> int:
        return sum(report.distinct_violations for report in self.reports)

    @property
    def distinct_warnings(self) -> int:
        return sum(report.distinct_warnings for report in self.reports)

    @property
    def calls(self) -> int:
        """Tool calls sent (reads and gets are each report's ``calls``)."""
        return sum(tool.calls for tool in self.tools)

    @property
    def read(self) -> int:
        """How many resources, resource templates and prompts were read or got at all."""
        return sum(1 for report in [*self.resources, *self.prompts] if report.called)

    @property
    def listed(self) -> list[ToolReport]:
        """The tools the server listed: ``(tools/list)``, a broken catalog's finding, is none."""
        return [tool for tool in self.tools if tool.reason != DISCOVERY]

    @property
    def checked(self) -> int:
        """How many listed tools were called at all."""
        return sum(1 for tool in self.listed if tool.called)

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "protocol": None if self.protocol is None else self.protocol.to_json(),
            "passed": self.violation_count == 0,
            "interrupted": self.interrupted,
            "options": self.options,
            "violation_count": self.violation_count,
            "warning_count": self.warning_count,
            "distinct_violations": self.distinct_violations,
            "distinct_warnings": self.distinct_warnings,
            "tools": [tool.to_json() for tool in self.tools],
            "resources": [resource.to_json() for resource in self.resources],
            "prompts": [prompt.to_json() for prompt in self.prompts],
            "notes": self.notes,
        }


def unexercised(report: ToolReport, first_refusal: str | None) -> str:
    """What an ``unexercised`` tool's valid calls got, quoting the first refusal.

    ``--inputs`` is suggested only when it could help: a valid call was refused
    (isError or JSON-RPC error), or none could be sent at all; a tool whose
    calls all went unanswered needs time (its note says so), not other inputs.
    """
    answers, valid = report.answers, report.valid_calls
    refused = answers.is_error + answers.jsonrpc_error + answers.reads_as_error + answers.hollow
    as_errors = ""
    if answers.reads_as_error:
        as_errors = f", {answers.reads_as_error} successes that read as errors"
    if answers.hollow:
        as_errors += f", {answers.hollow} successes answered as a refusal is"
    text = (
        f"no valid call of {valid} succeeded ({answers.is_error} isError, "
        f"{answers.jsonrpc_error} JSON-RPC errors{as_errors}, {valid - refused} without an answer)"
    )
    if first_refusal is not None:
        text += f"; the first answered {json.dumps(first_refusal, ensure_ascii=True)}"
    if refused or not valid:
        text += "; give inputs that work with --inputs FILE"
    return text


def show(value: Any) -> str:
    """A value as compact JSON, control characters escaped (anything else as its repr)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    except (TypeError, ValueError):
        return repr(value)


def describe(error: BaseException) -> str:
    """An exception as ``Type('message')``: what a finding or check says was raised."""
    message = str(error)
    return f"{type(error).__name__}({message!r})" if message else type(error).__name__
