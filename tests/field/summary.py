"""The field's expectations of the session, in one table at the end of the run.

A hook of the top conftest.py: under xdist only the controller prints the summary, and it
never loads the conftest files of the test folders.
"""

from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many expectations hold, each run's time, and each mismatch (every row with -v)."""
    rows = [
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        if isinstance(report, pytest.TestReport) and report.when == "call"
        for name, value in report.user_properties
        if name == "field"
    ]
    if not rows:
        return
    write = terminalreporter.write_line
    terminalreporter.section("published servers: hand-judged expectations")
    held = sum(row["holds"] for row in rows)
    runs = {row["server"]: row["seconds"] for row in rows}
    each = ", ".join(f"{server} {seconds:g} s" for server, seconds in sorted(runs.items()))
    write(f"{held} of {len(rows)} hold; check ran {each}")
    shown = rows if terminalreporter.verbosity > 0 else [row for row in rows if not row["holds"]]
    for row in sorted(shown, key=lambda row: (row["server"], row["expectation"])):
        verdict = "ok" if row["holds"] else "MISMATCH"
        known = f"  [{row['xfail']}]" if row["xfail"] else ""
        write(
            f"{verdict:8} {row['server']:10} {row['expectation']}: "
            f"expected {row['expected']}; observed {row['observed']}{known}"
        )
