"""``littleghost check`` on published MCP servers, held to expectations judged by hand.

``tests/field/manifest.json`` pins each server (PyPI or npm), says how it is started
and on what scratch state, and lists what a true verdict on it holds, each with why
(the server's source line): the exit code, the tools really exercised, the findings
that must appear (true bugs, true warnings, hollow tools flagged ``unexercised``),
the false alarms that must not, that nothing else is reported, and that the scratch
state is unchanged. Each expectation is its own test, so one that today's ``check``
misses carries its own ``xfail(strict=True)`` mark naming the issue point that fixes
it; the terminal summary prints every expectation of the session in one table
(``summary.py``, a hook of ``tests/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from corpus.judge import report_items

from field.servers import checked, load_manifest


def _title(row: dict[str, Any]) -> str:
    if row["expect"] in ("finding", "no_finding"):
        return f"{row['expect']} {row['item']} {row['kind']}"
    return row["expect"]


def _params() -> list[Any]:
    params = []
    for name, spec in load_manifest()["servers"].items():
        for index, row in enumerate(spec["expect"]):
            marks = []
            if "xfail" in row:
                marks.append(pytest.mark.xfail(strict=True, reason=row["xfail"]))
            label = f"{name}-{index}-{_title(row)}".replace(" ", "-")
            params.append(pytest.param(name, row, id=label, marks=marks))
    return params


@pytest.mark.parametrize(("server", "row"), _params())
def test_published_server_verdict(
    server: str,
    row: dict[str, Any],
    request: pytest.FixtureRequest,
    record_property: Callable[[str, object], None],
) -> None:
    """One hand-judged expectation of one published server, against its one ``check`` run."""
    outcome = checked(request, server)
    expected, observed, holds = judge(row, load_manifest()["servers"][server]["expect"], outcome)
    record_property(
        "field",
        {
            "server": server,
            "seconds": outcome["seconds"],
            "expectation": _title(row),
            "expected": expected,
            "observed": observed,
            "holds": holds,
            "xfail": row.get("xfail", ""),
        },
    )
    assert outcome["report"] is not None, f"no report: exit {outcome['exit']}: {outcome['stderr']}"
    assert holds, (
        f"{server}: {_title(row)}: expected {expected}, observed {observed} ({row['why']})"
    )


def judge(
    row: dict[str, Any], rows: list[dict[str, Any]], outcome: dict[str, Any]
) -> tuple[str, str, bool]:
    """What ``row`` (one of its server's ``rows``) expects, what the run shows, whether they agree.

    ``nothing_else`` holds when every finding is named by a ``finding`` or ``no_finding``
    row of the server: a false alarm nobody judged yet breaks it.
    """
    expect = row["expect"]
    if expect == "exit":
        return str(row["code"]), str(outcome["exit"]), outcome["exit"] == row["code"]
    if expect == "unchanged":
        changed = outcome["changed"]
        return "no file changed", ", ".join(changed) or "none", not changed
    report = outcome["report"]
    if report is None:
        return _wanted(row), "no report", False
    findings = {
        key: [finding["kind"] for finding in item["findings"]]
        for key, item in report_items(report).items()
    }
    if expect == "exercised":
        tools = sorted(
            tool["name"]
            for tool in report["tools"]
            if tool["answers"]["success"] and "unexercised" not in findings[("tool", tool["name"])]
        )
        return _wanted(row), ", ".join(tools) or "none", tools == sorted(row["tools"])
    if expect == "nothing_else":
        listed = {(_key(other), other["kind"]) for other in rows if "kind" in other}
        extra = sorted(
            f"{name} {kind}"
            for (subject, name), kinds in findings.items()
            for kind in kinds
            if ((subject, name), kind) not in listed
        )
        return "nothing", ", ".join(extra) or "nothing", not extra
    kinds = findings.get(_key(row), [])
    present = row["kind"] in kinds
    observed = ", ".join(kinds) or "no finding"
    return _wanted(row), observed, present == (expect == "finding")


def _key(row: dict[str, Any]) -> tuple[str, str]:
    return (row.get("subject", "tool"), row["item"])


def _wanted(row: dict[str, Any]) -> str:
    expect = row["expect"]
    if expect == "exercised":
        return ", ".join(sorted(row["tools"])) or "none"
    if expect == "no_finding":
        return f"no {row['kind']}"
    return row["kind"]
