"""Judge a ``littleghost check`` JSON report against the corpus manifest.

A planted bug is *found* when its tool (or resource, resource template or
prompt: a *read*) has a finding of the manifest's kind. A *false alarm* is a
finding on a control, or a finding of another kind on a bug's item (each
distinct finding counts once), bar the kinds its row lists as ``also``: a
listed resource is read once, so a bug there leaves it ``unexercised`` too,
as does a tool whose every answer reads as an error.
Shared by the suite's test and
``bench/kill_rate.py``, so both judge alike.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

MANIFEST = Path(__file__).with_name("manifest.json")
CONTROL = "none"
"""The manifest's kind for a control: a tool or read that must get no finding."""


def load_manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def planted(manifest: Mapping[str, Any], server: str) -> list[dict[str, Any]]:
    """The manifest's tool rows for one server, controls included."""
    return [row for row in manifest["tools"] if row["server"] == server]


def planted_reads(manifest: Mapping[str, Any], server: str) -> list[dict[str, Any]]:
    """The manifest's read rows (resources, templates, prompts) for one server, controls too."""
    return [row for row in manifest["reads"] if row["server"] == server]


def item_key(row: Mapping[str, Any]) -> tuple[str, str]:
    """A manifest row's or a report item's ``(subject, name)``: ``("tool", NAME)`` for a tool."""
    if "tool" in row:
        return ("tool", row["tool"])
    return (row.get("subject", "tool"), row["name"])


def report_items(report: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """Every tool, resource, resource template and prompt of a report, by ``item_key``."""
    items = [*report["tools"], *report.get("resources", []), *report.get("prompts", [])]
    return {item_key(item): item for item in items}


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
    """Judge one server's report; an item missing from the report counts as missed."""
    items = report_items(report)
    verdict = Verdict()
    for row in rows:
        name = f"{row['server']}:{item_key(row)[1]}"
        findings = items.get(item_key(row), {}).get("findings", [])
        kinds = [finding["kind"] for finding in findings]
        if row["kind"] != CONTROL:
            (verdict.found if row["kind"] in kinds else verdict.missed).append(name)
        expected = {row["kind"], *row.get("also", [])}
        verdict.false_alarms += [f"{name} {kind}" for kind in kinds if kind not in expected]
    return verdict


def server_target(server: str, request: pytest.FixtureRequest) -> str | list[str]:
    """A corpus server's ``module:attribute``, or its stdio command with the interpreters
    and modules the suite installs (``tests/conftest.py``'s fixtures, once a session)."""
    spec = load_manifest()["servers"][server]
    if spec["module"] is not None:
        return spec["module"]
    names = {"{python}": sys.executable}
    if server == "fastmcp":
        names["{fastmcp_python}"] = request.getfixturevalue("fastmcp_python")
    if server == "fastmcp3":
        names["{fastmcp3_python}"] = request.getfixturevalue("fastmcp3_python")
    if server == "typescript":
        request.getfixturevalue("typescript_modules")  # npm install, once
    return [names.get(word, word) for word in spec["command"]]
