"""What ``littleghost check`` found, per tool: plain data for the table, JSON and JUnit."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Finding", "ServerReport", "ToolReport", "show"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One call that broke the contract: its ``kind``, the input, expected versus observed."""

    kind: str
    input: Any
    expected: str
    observed: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "input": self.input,
            "expected": self.expected,
            "observed": self.observed,
        }


@dataclass
class ToolReport:
    """One tool: how many calls were made, what broke, and why some inputs were not tried."""

    name: str
    examples: int = 0
    violations: list[Finding] = field(default_factory=list[Finding])
    notes: list[str] = field(default_factory=list[str])
    crashed: bool = False

    def grouped(self) -> list[tuple[Finding, int]]:
        """One finding per kind -- the one with the smallest input -- and how often it occurred."""
        groups: dict[str, list[Finding]] = {}
        for finding in self.violations:
            groups.setdefault(finding.kind, []).append(finding)
        return [
            (min(findings, key=lambda finding: len(show(finding.input))), len(findings))
            for findings in groups.values()
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "examples": self.examples,
            "violation_count": len(self.violations),
            "violations": [
                {**finding.to_json(), "count": count} for finding, count in self.grouped()
            ],
            "notes": self.notes,
        }


@dataclass
class ServerReport:
    target: str
    examples_per_tool: int
    seed: int | None
    timeout: float
    tools: list[ToolReport] = field(default_factory=list[ToolReport])

    @property
    def violation_count(self) -> int:
        return sum(len(tool.violations) for tool in self.tools)

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "passed": self.violation_count == 0,
            "examples_per_tool": self.examples_per_tool,
            "seed": self.seed,
            "timeout": self.timeout,
            "examples": sum(tool.examples for tool in self.tools),
            "violation_count": self.violation_count,
            "tools": [tool.to_json() for tool in self.tools],
        }


def show(value: Any) -> str:
    """An input as compact JSON (anything else as its repr)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)
