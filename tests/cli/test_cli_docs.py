"""docs/cli.md against the code: every finding kind and every option is documented."""

from __future__ import annotations

import re
from pathlib import Path

from littleghost_testing._engine import KINDS
from littleghost_testing.cli._options import parser

CLI_DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _rows(heading: str) -> list[list[str]]:
    """The table rows (cells) of the section under ``## heading``."""
    section = CLI_DOC.read_text().split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| ---")
    ][1:]


def test_every_kind_is_documented_with_its_severity_and_an_example() -> None:
    rows = {row[0].strip("`"): row for row in _rows("What it finds")}
    assert list(rows) == list(KINDS)
    for kind, (severity, _) in KINDS.items():
        assert rows[kind][1].startswith(severity)
        assert rows[kind][3], f"{kind} has no example"


def test_every_option_is_documented() -> None:
    documented = " ".join(row[0] for row in _rows("Options"))
    _, commands = parser()
    options = {
        option
        for action in commands["check"]._actions
        for option in action.option_strings
        if option != "--help" and option != "-h"
    }
    assert options
    missing = {option for option in options if not re.search(rf"`{option}[ `]", documented)}
    assert missing == set()
    assert "`--version`" in documented
