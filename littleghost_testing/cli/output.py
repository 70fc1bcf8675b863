"""Writing a ``ServerReport``: the summary table, the JSON report, the JUnit XML file."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TextIO

from .findings import ServerReport, ToolReport, show

__all__ = ["write_json", "write_junit", "write_table"]


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
        name=f"littleghost check {report.target}",
        tests=str(len(report.tools)),
        failures=str(failed),
        errors="0",
        skipped="0",
    )
    for tool in report.tools:
        case = ET.SubElement(suite, "testcase", classname="littleghost.check", name=tool.name)
        if tool.violations:
            failure = ET.SubElement(
                case,
                "failure",
                message=f"{len(tool.violations)} contract violations in {tool.examples} calls",
                type="ContractViolation",
            )
            failure.text = "\n".join(_details(tool)).strip()
        elif tool.notes:
            ET.SubElement(case, "system-out").text = "\n".join(tool.notes)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
