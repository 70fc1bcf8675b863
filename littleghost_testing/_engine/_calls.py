"""One call of one tool, and what its answer means.

Calls go through the generated littleghost tool's ``call`` (no local
validation, so an invalid input reaches the server as is), with the same
bounds, result conversion and error translation as in an agent.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import mcp_types as types

import littleghost as lg
from littleghost.mcp import (
    ConnectionClosed,
    InputRefused,
    JSONRPCError,
    MalformedMessage,
    OutputSchemaError,
    Toolset,
)

from ._choices import chosen_words, reads_as_chosen
from ._constraints import looser_schema
from ._crashes import MAX_EXAMINED_CHARS, MAX_PARSED_CHARS, reads_as_error, unhandled_exception
from ._faults import FaultWatch, TransportFaults
from ._findings import KINDS, Finding, Severity, describe, show
from ._leaks import find_leak
from ._planning import server_name

__all__ = [
    "DECLINE",
    "FAULT_GRACE_SECONDS",
    "UNKNOWN_PROPERTY_KEYWORDS",
    "Answer",
    "Outcome",
    "Probe",
    "call_once",
    "judged_value",
]

FAULT_GRACE_SECONDS = 1.0
"""After an unparseable message, how long a call may still answer before it counts as malformed."""

UNKNOWN_PROPERTY_KEYWORDS = frozenset({"additionalProperties", "unevaluatedProperties"})
"""Keywords whose only fault is an unknown property: ignoring it is a warning unless strict."""

MAX_SHOWN_CHARS = 200

DECLINE = types.ElicitResult(action="decline")
"""The kit's answer to every elicitation: it offers elicitation only to decline it.

Sampling and roots are not offered: a tool that asks for them on 2025-11-25
gets the SDK's refusal, and on 2026-07-28 its call ends in ``InputRefused``.
"""
"""How much of an answer a finding quotes."""

Answer = Literal["success", "is_error", "jsonrpc_error", "none"]


@dataclass(frozen=True, slots=True)
class Probe:
    """What is sent, and what the engine knows about it."""

    input: Any
    valid: bool
    keyword: str | None = None
    path: str | None = None


@dataclass
class Outcome:
    """How the server answered one call, and the findings it makes.

    ``said`` is the text of an error answer (``isError``, JSON-RPC, or a success that
    reads as an error), bounded. ``text`` is any answer's text, up to
    ``MAX_EXAMINED_CHARS`` and one more (a longer one is cut), to compare answers
    with (``_hollow``); ``refused`` says the answer was a refusal.
    """

    answer: Answer
    duration: float
    findings: list[Finding] = field(default_factory=list[Finding])
    crashed: bool = False
    timed_out: bool = False
    said: str | None = None
    text: str | None = None
    refused: bool = False


@dataclass
class _Sent:
    value: Any = None
    error: Exception | None = None
    done: bool = False
    fault: str | None = None


async def call_once(
    tool: lg.Tool,
    probe: Probe,
    *,
    seconds: float,
    strict: bool = False,
    faults: TransportFaults | None = None,
) -> Outcome:
    """Send ``probe.input`` once and classify the answer; never raises for the server's faults."""
    started = time.monotonic()
    sent = await _send(tool, probe.input, seconds, faults)
    duration = time.monotonic() - started
    judge = _Judge(probe, duration, strict, tool)
    if not sent.done:
        if sent.fault is not None:
            return judge.outcome(
                "none",
                judge.finding(
                    "malformed_result",
                    "an answer the MCP SDK can parse",
                    f"an unparseable message ({sent.fault}) and no answer",
                ),
            )
        outcome = judge.outcome(
            "none", judge.finding("timeout", f"an answer within {seconds:g} s", "no answer")
        )
        outcome.timed_out = True
        return outcome
    if sent.error is None:
        return judge.success(sent.value)
    return judge.failure(sent.error)


async def _send(
    tool: lg.Tool, arguments: Any, seconds: float, faults: TransportFaults | None
) -> _Sent:
    """One call, in the calling task: bounded by ``seconds``, ended early by a fault."""
    sent = _Sent()
    scope = anyio.CancelScope(deadline=anyio.current_time() + seconds)
    watch = FaultWatch(scope, FAULT_GRACE_SECONDS)
    watching = contextlib.nullcontext() if faults is None else faults.watching(watch)
    with scope, watching:
        try:
            sent.value = await tool.call(arguments)
        except Exception as error:
            sent.error = error
        sent.done = True
    sent.fault = watch.fault
    return sent


class _Judge:
    """Turns one answer into an ``Outcome`` for ``probe``."""

    def __init__(self, probe: Probe, duration: float, strict: bool, tool: lg.Tool) -> None:
        self.probe = probe
        self.duration = duration
        self.strict = strict
        self.tool_name = server_name(tool)
        self.schema = tool.input_schema
        self.in_process = getattr(tool, "mcp_tool", None) is None

    def finding(
        self, kind: str, expected: str, observed: str, severity: Severity | None = None
    ) -> Finding:
        return Finding(
            kind=kind,
            valid=self.probe.valid,
            keyword=self.probe.keyword,
            path=self.probe.path,
            input=self.probe.input,
            expected=expected,
            observed=observed,
            duration=self.duration,
            severity=severity or KINDS[kind][0],
        )

    def outcome(self, answer: Answer, *findings: Finding) -> Outcome:
        return Outcome(answer, self.duration, list(findings))

    def success(self, value: Any) -> Outcome:
        value = value.value if isinstance(value, lg.Result) else value
        text = _text(value)
        shown = show(value)[:MAX_SHOWN_CHARS]
        why = reads_as_error(value, self.tool_name)
        if why is not None:
            chosen = chosen_words(self.schema, self.probe.input)
            why = None if reads_as_chosen(value, chosen, self.tool_name) else why
        if self.probe.valid:
            if why is None:
                return self.answered(self.outcome("success"), text, refused=False)
            outcome = self.outcome(
                "success",
                self.finding("error_as_success", "a success that reads as one", f"{why}: {shown}"),
            )
            outcome.said = shown  # the refusal an ``unexercised`` warning quotes
            return self.answered(outcome, text, refused=True)
        if why is not None:
            # A refusal in the server's own words, flagged or not: nothing was accepted.
            return self.answered(self.outcome("success"), text, refused=True)
        expected = (
            f"a refusal (isError or a JSON-RPC error): the input breaks "
            f"{self.probe.keyword!r} at {self.probe.path}"
        )
        if self.probe.keyword in UNKNOWN_PROPERTY_KEYWORDS:
            severity: Severity = "violation" if self.strict else "warning"
            return self.outcome(
                "success",
                self.finding("ignored_unknown_property", expected, f"a success: {shown}", severity),
            )
        return self.outcome(
            "success", self.finding("accepted_invalid", expected, f"a success: {shown}")
        )

    def failure(self, error: Exception) -> Outcome:
        if isinstance(error, InputRefused):
            # The kit refused the input the tool asked for (sampling, roots): the
            # server did nothing wrong, and gave no answer to judge.
            outcome = self.outcome("none")
            outcome.said = str(error)[:MAX_SHOWN_CHARS]
            return outcome
        if isinstance(error, lg.ToolError):
            if not isinstance(error, JSONRPCError):
                text = str(error)
                leaked = self.leaks(text, None)
                return self.refused("is_error", text, leaked, *self.is_error(text, bool(leaked)))
            # An unhandled-exception message is hidden from models (``ServerError``);
            # the engine judges what the server really sent.
            text = error.server_message
            leaked = self.leaks(text, error.data)
            if not self.probe.valid:
                return self.refused("jsonrpc_error", text, leaked)
            shown = "withheld: it leaks" if leaked else text[:MAX_SHOWN_CHARS]
            said = f"JSON-RPC error {error.code}: {shown}"
            rpc = self.finding("jsonrpc_error", "a result (isError at most)", said)
            outcome = self.outcome("jsonrpc_error", rpc, *leaked)
            outcome.said = said
            return self.answered(outcome, text, refused=True)
        if isinstance(error, lg.ProtocolError):
            message = str(error)
            kind = "output_schema" if isinstance(error, OutputSchemaError) else "malformed_result"
            outcome = self.outcome(
                "none", self.finding(kind, "a result that follows the protocol", message)
            )
            # The client gave up on the connection: every later call would fail too.
            outcome.crashed = isinstance(error, MalformedMessage) and error.connection_closed
            return outcome
        if isinstance(error, lg.ProviderError):
            message = str(error)
            if isinstance(error, ConnectionClosed):
                outcome = self.outcome(
                    "none",
                    self.finding("crash", "an answer over a working connection", message),
                )
                outcome.crashed = True
                return outcome
            return self.outcome(
                "none",
                self.finding("transport_error", "an answer over a working connection", message),
            )
        if self.in_process and self.probe.valid:  # the Tool's own exception, not a server's
            return self.outcome(
                "none",
                self.finding(
                    "unhandled_exception", "a result (an error result at most)", describe(error)
                ),
            )
        return self.outcome(
            "none",
            self.finding("malformed_result", "a result littleghost can convert", describe(error)),
        )

    def refused(
        self, answer: Answer, text: str, leaked: list[Finding], *findings: Finding
    ) -> Outcome:
        """An error answer: its findings, and its text to quote if nothing ever succeeds."""
        outcome = self.outcome(answer, *findings, *leaked)
        outcome.said = "withheld: it leaks" if leaked else text[:MAX_SHOWN_CHARS]
        return self.answered(outcome, text, refused=True)

    def answered(self, outcome: Outcome, text: str, *, refused: bool) -> Outcome:
        """``outcome`` with the answer's text to compare (a cut one is never alike)."""
        outcome.text = text[: MAX_EXAMINED_CHARS + 1]
        outcome.refused = refused
        return outcome

    def is_error(self, text: str, leaked: bool) -> list[Finding]:
        """A valid input's isError text: a crash's report (``unhandled_exception``), or a
        refusal of a rule the schema does not state (``schema_looser_than_tool``, never
        quoting a ``leaked`` text)."""
        if not self.probe.valid:
            return []
        sdk = unhandled_exception(text, self.tool_name)
        if sdk is not None:
            return [
                self.finding(
                    "unhandled_exception",
                    "a result, or a deliberate error (isError with the tool's own message)",
                    f"{sdk}: {text[:MAX_SHOWN_CHARS]!r}",
                )
            ]
        looser = looser_schema(text, self.tool_name, self.schema, self.probe.input)
        if looser is None or leaked:
            return []
        return [
            self.finding(
                "schema_looser_than_tool",
                "an inputSchema stating every rule the tool enforces",
                looser[: MAX_SHOWN_CHARS * 2],
            )
        ]

    def leaks(self, message: str, data: Any) -> list[Finding]:
        """A ``leaked_error_detail`` finding if the error text shows what it should not."""
        texts = [message]
        if data is not None:
            texts.append(data if isinstance(data, str) else json.dumps(data, default=repr))
        sent = list(_strings(self.probe.input))
        for text in texts:
            leak = find_leak(text)
            if leak is not None and not any(leak.text in value for value in sent):
                return [
                    self.finding(
                        "leaked_error_detail",
                        "an error answer without stack traces or credentials",
                        leak.describe(),
                    )
                ]
        return []


def judged_value(value: Any, result: types.CallToolResult, tool_name: str) -> Any:
    """What the engine judges of a success: its default value (the structured content,
    if any), unless only its text content reads as an error, then that text.

    A server may put its refusal in the text a model reads and leave structured
    content that looks fine; ``JudgedToolset.map_result`` returns this.
    """
    if result.structured_content is None or reads_as_error(value, tool_name) is not None:
        return value
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    text = "\n".join(texts)
    if len(text) <= MAX_PARSED_CHARS and reads_as_error(text, tool_name) is not None:
        return text
    return value


class JudgedToolset(Toolset):
    """A ``Toolset`` whose successes are what the engine judges (``judged_value``): the
    base of the kit's own toolsets, so ``check`` and ``from_target`` judge alike."""

    def map_result(
        self,
        value: Any,
        *,
        result: types.CallToolResult,
        mcp_tool: types.Tool,
        arguments: dict[str, Any],
        binding: lg.Binding,
    ) -> Any:
        return judged_value(value, result, mcp_tool.name)


def _text(value: Any) -> str:
    """A success's text to compare, unwrapped from ``{"result": ...}`` (the SDKs' wrapping)
    and from any other one-key object that holds a text (filesystem's ``{"content": text}``
    beside the same text): its lines are the answer's entries (``_hollow.py``)."""
    if isinstance(value, dict) and len(value) == 1 and "result" in value:
        value = value["result"]
    if isinstance(value, dict) and len(value) == 1:
        (only,) = value.values()
        value = only if isinstance(only, str) else value
    return value if isinstance(value, str) else show(value)


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value, keys included: a leak echoing the input is no leak."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
