"""Judge a ``littleghost check`` JSON report against the corpus manifest.

A planted bug is *found* when its tool has a finding of the manifest's kind.
A *false alarm* is a finding on a control tool, or a finding of another kind
on a bug tool (each distinct finding counts once). Shared by the suite's
test and ``bench/kill_rate.py``, so both judge alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST = Path(__file__).with_name("manifest.json")
CONTROL = "none"
"""The manifest's kind for a control tool: one that must get no finding."""


def load_manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def planted(manifest: Mapping[str, Any], server: str) -> list[dict[str, Any]]:
    """The manifest's rows for one server, controls included."""
    return [row for row in manifest["tools"] if row["server"] == server]


@dataclass
class Verdict:
    """What one run found on one or more servers, judged by the manifest."""

    found: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)

    @property
    def bugs(self) -> int:
        return len(self.found) + len(self.missed)

    def add(self, other: Verdict) -> None:
        self.found += other.found
        self.missed += other.missed
        self.false_alarms += other.false_alarms


def judge(rows: Iterable[Mapping[str, Any]], report: Mapping[str, Any]) -> Verdict:
    """Judge one server's report; a tool missing from the report counts as missed."""
    tools = {tool["name"]: tool for tool in report["tools"]}
    verdict = Verdict()
    for row in rows:
        name = f"{row['server']}:{row['tool']}"
        findings = tools.get(row["tool"], {}).get("findings", [])
        kinds = [finding["kind"] for finding in findings]
        if row["kind"] != CONTROL:
            (verdict.found if row["kind"] in kinds else verdict.missed).append(name)
        verdict.false_alarms += [f"{name} {kind}" for kind in kinds if kind != row["kind"]]
    return verdict
