"""Writing a ``ServerReport``: the plan, the summary table, the JSON report, the JUnit XML file.

Resources and prompts follow the tools, in tables of their own.

Everything is plain text written as is (never through a console that wraps
lines), so a printed input or ``littleghost call`` command pastes back intact.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from .._engine import (
    DISCOVERY,
    Finding,
    FindingGroup,
    PlannedTool,
    ReadPlan,
    ServerReport,
    ToolReport,
)
from ._text import command_line, json_text, plural, visible, xml_text

__all__ = ["reproduce", "write_json", "write_junit", "write_plan", "write_read_plan", "write_table"]

#: Characters of an input, expected or observed text shown in the table (the JSON has all).
SHOWN_CHARS = 2000


Reproduce = Callable[[str, Any, str], str]
"""``(name, input, command) -> 'littleghost COMMAND ...'``: ``call`` a tool with an input,
``read`` a URI, ``get`` a prompt with its arguments."""

# A JUnit testcase's class per subject, and what its requests are called.
_CLASSNAMES = {
    "tool": "littleghost.check",
    "resource": "littleghost.check.resources",
    "resource template": "littleghost.check.resources",
    "prompt": "littleghost.check.prompts",
}
_SUBJECTS = ("resource", "resource template", "prompt")
_REQUESTS = {"tool": "call", "resource": "read", "resource template": "read", "prompt": "get"}


def reproduce(connect_words: Callable[..., list[str]]) -> Reproduce:
    """``(name, input, command) -> 'littleghost call ...'`` for the target whose words are
    given: ``call TOOL INPUT``, ``read URI`` or ``get PROMPT ARGUMENTS``."""

    def line(name: str, value: Any, command: str = "call") -> str:
        middle = [str(value)] if command == "read" else [name, json_text(value)]
        words = ["littleghost", command, *connect_words(*middle)]
        # Continuation lines start at each connection option and at the stdio command.
        end = words.index("--") + 1 if "--" in words else len(words)
        groups = [index for index, word in enumerate(words[:end]) if word.startswith("-")]
        return command_line(words, groups=groups)

    return line


def write_plan(target: str, planned: Sequence[PlannedTool], out: TextIO) -> None:
    """``--dry-run``: each tool, its annotations, and whether it would be called."""
    out.write(f"plan for {target}: {sum(tool.called for tool in planned)} of ")
    out.write(f"{len(planned)} tools would be called\n")
    width = max([len("tool"), *(len(visible(tool.name)) for tool in planned)])
    for tool in planned:
        verdict = "call" if tool.called else "skip"
        out.write(f"{visible(tool.name):<{width}}  {verdict}  {visible(tool.reason)}\n")
        if tool.annotations:
            out.write(f"{'':<{width}}        annotations: {json_text(tool.annotations)}\n")


def write_read_plan(reads: ReadPlan, out: TextIO) -> None:
    """``--dry-run``: each resource URI, each template's URIs, each prompt's argument counts."""
    count = {subject: sum(read.subject == subject for read in reads.reads) for subject in _SUBJECTS}
    out.write(
        f"\nwould read {plural(count['resource'], 'resource')}, "
        f"{plural(count['resource template'], 'resource template')} "
        f"and get {plural(count['prompt'], 'prompt')}{':' if reads.reads else ''}\n"
    )
    for read in reads.reads:
        out.write(
            f"{read.subject} {visible(read.name)}: {_planned_requests(read.subject, read.inputs)}\n"
        )
    for listing in reads.listings:
        for group in listing.groups:
            out.write(
                f"{visible(listing.name)}: listing failed: {visible(group.example.observed)}\n"
            )
    for note in reads.notes:
        out.write(f"note: {visible(note)}\n")


def _planned_requests(subject: str, inputs: Sequence[Any]) -> str:
    """``read help://a, help://b`` or ``get 3 times with 1 argument, 3 times with 2 arguments``."""
    if subject != "prompt":
        return "read " + ", ".join(visible(str(uri)) for uri in inputs)
    counts: dict[int, int] = {}
    for arguments in inputs:
        counts[len(arguments)] = counts.get(len(arguments), 0) + 1
    sets = [f"{plural(times, 'time')} with {plural(n, 'argument')}" for n, times in counts.items()]
    return "get " + ", ".join(sets)


def write_table(
    report: ServerReport, out: TextIO, reproduce_line: Reproduce, *, verbose: bool = False
) -> None:
    """One row per tool, then every distinct finding with its command, the notes and
    the protocol spoken, then a total."""
    width = max([len("tool"), *(len(visible(tool.name)) for tool in report.tools)])
    if report.tools or not (report.resources or report.prompts):
        out.write(
            f"{'tool':<{width}}  {'calls':>5}  {'ok/isError/rpc':>14}  "
            f"{'violations':>10}  {'warnings':>8}  {'time':>7}\n"
        )
    for tool in report.tools:
        name = visible(tool.name)
        if not tool.called:
            out.write(f"{name:<{width}}  skipped: {visible(tool.reason)}\n")
            continue
        answers = tool.answers
        counts = f"{answers.worked}/{answers.is_error}/{answers.jsonrpc_error}"
        out.write(
            f"{name:<{width}}  {tool.calls:>5}  {counts:>14}  "
            f"{tool.distinct_violations:>10}  {tool.distinct_warnings:>8}  {tool.elapsed:>6.1f}s\n"
        )
    _write_read_rows(report.resources, "resource", "reads", out)
    _write_read_rows(report.prompts, "prompt", "gets", out)
    for tool in report.reports:
        for line in details(tool, reproduce_line, verbose=verbose):
            out.write(line + "\n")
    if report.notes or report.protocol is not None:
        out.write("\n")
    for note in report.notes:
        out.write(f"note: {visible(note)}\n")
    if report.protocol is not None:
        out.write(f"protocol: {visible(str(report.protocol))}\n")
    out.write("\n" + summary_line(report) + "\n")
    if report.interrupted or "stopped" in report.options:
        out.write(f"stopped early: {report.options.get('stopped', 'interrupted')}\n")


def _write_read_rows(reports: Sequence[ToolReport], title: str, verb: str, out: TextIO) -> None:
    """Resources (or prompts) below the tools: one row each, as tools have."""
    if not reports:
        return
    width = max([len(title), *(len(visible(report.name)) for report in reports)])
    out.write(
        f"\n{title:<{width}}  {verb:>5}  {'ok/rpc':>14}  "
        f"{'violations':>10}  {'warnings':>8}  {'time':>7}\n"
    )
    for report in reports:
        name = visible(report.name)
        if not report.called:
            out.write(f"{name:<{width}}  skipped: {visible(report.reason)}\n")
            continue
        counts = f"{report.answers.success}/{report.answers.jsonrpc_error}"
        out.write(
            f"{name:<{width}}  {report.calls:>5}  {counts:>14}  {report.distinct_violations:>10}  "
            f"{report.distinct_warnings:>8}  {report.elapsed:>6.1f}s\n"
        )


def summary_line(report: ServerReport) -> str:
    """Distinct findings, then the calls they came from: ``2 violations, 1 warning in 21 calls``."""
    tools, checked = len(report.listed), report.checked
    if report.violation_count:
        verdict = "FAILED"
    elif checked == 0 and tools:  # what was read does not make up for tools never called
        verdict = f"nothing checked: 0 of {plural(tools, 'tool')} called"
    elif checked == 0 and report.read == 0:
        verdict = "nothing checked"
    else:
        verdict = "passed"
    if report.interrupted:
        verdict += " (interrupted: partial results)"
    subjects = f"{plural(tools, 'tool')} ({checked} checked, {tools - checked} skipped)"
    requests = plural(report.calls, "call")
    for reports, noun, done, verb in (
        (report.resources, "resource", "read", "read"),
        (report.prompts, "prompt", "got", "get"),
    ):
        listed = [item for item in reports if item.reason != DISCOVERY]
        if reports:
            answered = sum(1 for item in listed if item.answers.success)
            subjects += f", {plural(len(listed), noun)} ({answered} {done})"
            requests += f", {plural(sum(item.calls for item in reports), verb)}"
    return (
        f"{subjects}: {plural(report.distinct_violations, 'violation')}, "
        f"{plural(report.distinct_warnings, 'warning')} in {requests}: {verdict}"
    )


def details(tool: ToolReport, reproduce_line: Reproduce, *, verbose: bool = False) -> list[str]:
    """Each distinct finding of ``tool``: what was sent, expected, observed, how to repeat it."""
    lines: list[str] = []
    for group in tool.groups:
        lines += ["", *_finding(tool, group, reproduce_line)]
    if (
        tool.unexercised
        and tool.calls
        and not any(group.example.kind == "unexercised" for group in tool.groups)
    ):
        lines += [
            "",
            f"{visible(tool.name)}: unexercised (warning): no valid input got a success answer; "
            "give inputs that work with --inputs FILE",
        ]
    if verbose or tool.called:
        lines += [f"{visible(tool.name)}: note: {visible(note)}" for note in tool.notes]
    return lines


def _finding(tool: ToolReport, group: FindingGroup, reproduce_line: Reproduce) -> list[str]:
    finding, name = group.example, visible(tool.name)
    if finding.input is None:  # about the tool as a whole (unexercised, a broken catalog)
        line = f"{name}: {finding.kind} ({finding.severity}): {_cut(visible(finding.observed))}"
        return [line, *_fix(finding)]
    broken = ""
    if finding.keyword is not None:
        where = f" at {visible(finding.path)}" if finding.path else ""
        broken = f", breaks {visible(repr(finding.keyword))}{where}"
    validity = "valid input" if finding.valid else "invalid input"
    noun = _REQUESTS[tool.subject]
    lines = [
        f"{name}: {finding.kind} ({finding.severity}){broken}: "
        f"{group.count} of {plural(tool.calls, noun)}",
    ]
    if tool.subject == "prompt":
        lines.append(f"  arguments: {_cut(json_text(finding.input))}")
    elif tool.subject != "tool":
        lines.append(f"  uri:       {_cut(visible(str(finding.input)))}")
    else:
        lines.append(f"  input:     {_cut(json_text(finding.input))} ({validity})")
    lines += [
        f"  expected:  {_cut(visible(finding.expected))}",
        f"  observed:  {_cut(visible(finding.observed))}",
        f"  took:      {finding.duration:.3f} s",
        *_fix(finding),
    ]
    if tool.subject != "tool" or isinstance(finding.input, dict):
        command = _REQUESTS[tool.subject]  # the command that repeats it has its name
        lines.append(f"  reproduce: {reproduce_line(tool.name, finding.input, command)}")
    return lines


def _fix(finding: Finding) -> list[str]:
    return [] if finding.fix is None else [f"  fix:       {_cut(visible(finding.fix))}"]


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def write_json(report: ServerReport, path: Path) -> None:
    path.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False, default=repr))


def write_junit(report: ServerReport, path: Path, reproduce_line: Reproduce) -> None:
    """One testcase per tool: violations make a ``<failure>``, a skipped tool is ``<skipped>``."""
    cases = report.reports
    tests = len(cases)
    failed = sum(1 for tool in cases if tool.violation_count)
    skipped = sum(1 for tool in cases if not tool.called)
    suites = ET.Element("testsuites", tests=str(tests), failures=str(failed))
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=xml_text(f"littleghost check {report.target}"),
        tests=str(tests),
        failures=str(failed),
        errors="0",
        skipped=str(skipped),
    )
    for tool in cases:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_CLASSNAMES[tool.subject],
            name=xml_text(tool.name),
            time=f"{tool.elapsed:.3f}",
        )
        text = xml_text("\n".join(details(tool, reproduce_line)).strip())
        if not tool.called:
            ET.SubElement(case, "skipped", message=xml_text(tool.reason))
        elif tool.violation_count:
            failure = ET.SubElement(
                case,
                "failure",
                message=(
                    f"{plural(tool.distinct_violations, 'contract violation')} "
                    f"in {plural(tool.calls, _REQUESTS[tool.subject])}"
                ),
                type="ContractViolation",
            )
            failure.text = text
        elif text:
            ET.SubElement(case, "system-out").text = text
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
