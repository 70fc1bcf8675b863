"""Writing a ``ServerReport``: the summary table, the JSON report, the JUnit XML file."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TextIO

from .findings import ServerReport, ToolReport, show

__all__ = ["write_json", "write_junit", "write_table"]

# What XML 1.0 cannot carry (control characters, surrogates, U+FFFE and U+FFFF):
# fuzzed inputs may hold any of them, and ElementTree would write them verbatim.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def write_table(report: ServerReport, out: TextIO) -> None:
    """One row per tool, then each kind of violation with its smallest input, then a total."""
    width = max([len("tool"), *(len(tool.name) for tool in report.tools)])
    out.write(f"{'tool':<{width}}  {'examples':>8}  {'violations':>10}\n")
    for tool in report.tools:
        out.write(f"{tool.name:<{width}}  {tool.examples:>8}  {len(tool.violations):>10}\n")
    for tool in report.tools:
        for line in _details(tool):
            out.write(line + "\n")
    examples = sum(tool.examples for tool in report.tools)
    verdict = "no violations" if report.violation_count == 0 else "FAILED"
    out.write(
        f"\n{len(report.tools)} tools, {examples} examples, "
        f"{report.violation_count} violations: {verdict}\n"
    )


def _details(tool: ToolReport) -> list[str]:
    lines: list[str] = []
    for finding, count in tool.grouped():
        lines += [
            "",
            f"{tool.name}: {finding.kind} ({count} of {tool.examples} calls)",
            f"  input:    {show(finding.input)[:500]}",
            f"  expected: {finding.expected}",
            f"  observed: {finding.observed}",
        ]
    lines += [f"{tool.name}: note: {note}" for note in tool.notes]
    return lines


def write_json(report: ServerReport, path: Path) -> None:
    path.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False, default=repr))


def write_junit(report: ServerReport, path: Path) -> None:
    """One testsuite, one testcase per tool; a tool's violations become its ``<failure>``."""
    failed = sum(1 for tool in report.tools if tool.violations)
    suites = ET.Element("testsuites", tests=str(len(report.tools)), failures=str(failed))
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=_xml_text(f"littleghost check {report.target}"),
        tests=str(len(report.tools)),
        failures=str(failed),
        errors="0",
        skipped="0",
    )
    for tool in report.tools:
        case = ET.SubElement(
            suite, "testcase", classname="littleghost.check", name=_xml_text(tool.name)
        )
        if tool.violations:
            failure = ET.SubElement(
                case,
                "failure",
                message=f"{len(tool.violations)} contract violations in {tool.examples} calls",
                type="ContractViolation",
            )
            failure.text = _xml_text("\n".join(_details(tool)).strip())
        elif tool.notes:
            ET.SubElement(case, "system-out").text = _xml_text("\n".join(tool.notes))
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def _xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids written as a ``\\uXXXX`` escape."""
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
