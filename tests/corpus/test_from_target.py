"""``from_target`` finds every planted bug of the corpus, on every SDK, on several seeds.

For each corpus server a pytest run of its own (a ``pytester`` subprocess) of the test
a user writes, ``@from_target(TARGET).parametrize()`` with ``case.check()``, once per
seed of ``SEEDS`` (``--hypothesis-seed``), each with no Hypothesis database, so every
run is a first run. The servers run as tests/corpus/test_planted_bugs.py runs them: the
Python-SDK ones in process (``module:attribute``), the others over stdio. What the user
sees is judged, by the manifest and corpus/judge.py's rules: a bug's item fails with a
finding of its planted kind when the manifest's severity for it is a violation, and
passes with a ``FuzzWarning`` naming it when it is a warning; a control's item passes
with no warning; any other kind on an item, in its failure or its warning, is a false
alarm. The run's own ``conftest.py`` writes each item's outcome and text, and its
``FuzzWarning``s, to a JSON file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from corpus.judge import (
    CONTROL,
    Verdict,
    item_key,
    judge,
    load_manifest,
    planted,
    planted_reads,
    server_target,
)

REPO = Path(__file__).resolve().parents[2]
SERVERS = ("sdk", "lowlevel", "fastmcp", "fastmcp3", "typescript")
SEEDS = (1, 2)
"""``--hypothesis-seed`` of each run (``test_planted_bugs.py`` runs ``check``'s own seed)."""
EXAMPLES = 20
"""``examples``: ``littleghost check``'s default, not Hypothesis's 100."""
HANG_TIMEOUT = 2
"""Seconds ``forecast`` gets before its hang counts as a timeout (as in test_planted_bugs)."""
SLOW_START_TIMEOUT = 60
"""``timeout`` for the FastMCP servers: importing fastmcp 2.x alone takes ~10 s when busy."""

CONFTEST = """
import json
from hypothesis import settings
from littleghost_testing import FuzzWarning

settings.register_profile("fresh", database=None)
settings.load_profile("fresh")
ITEMS = {}


def pytest_runtest_logreport(report):
    item = ITEMS.setdefault(report.nodeid, {"failed": False, "text": "", "warnings": []})
    if report.failed:
        item["failed"] = True
        item["text"] += report.longreprtext


def pytest_warning_recorded(warning_message, when, nodeid, location):
    if issubclass(warning_message.category, FuzzWarning):
        ITEMS.setdefault(nodeid, {"failed": False, "text": "", "warnings": []})
        ITEMS[nodeid]["warnings"].append(str(warning_message.message))


def pytest_sessionfinish(session):
    with open("items.json", "w", encoding="utf-8") as file:
        json.dump(ITEMS, file)
"""

TESTS = """
from littleghost_testing import from_target

corpus = from_target({target!r}, examples={examples}, {options})


@corpus.parametrize()
def test_corpus(case):
    case.check()
"""


@pytest.mark.parametrize("server", SERVERS)
def test_every_planted_bug_is_found_on_every_seed(
    server: str,
    request: pytest.FixtureRequest,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = planted(load_manifest(), server)
    reads = planted_reads(load_manifest(), server)
    options: dict[str, Any] = {}
    if server.startswith("fastmcp"):
        options["timeout"] = SLOW_START_TIMEOUT
    if any(row["tool"] == "forecast" for row in rows):
        options["tool_timeouts"] = {"forecast": HANG_TIMEOUT}
    target = server_target(server, request)
    if isinstance(target, list):
        options["cwd"] = str(REPO)
    arguments = ", ".join(f"{name}={value!r}" for name, value in options.items())
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # module:attribute imports tests.corpus
    pytester.makeconftest(CONFTEST)
    tests = TESTS.format(target=target, examples=EXAMPLES, options=arguments)
    pytester.makepyfile(test_corpus=tests)
    for seed in SEEDS:
        pytester.runpytest_subprocess("-p", "hypothesis", f"--hypothesis-seed={seed}")
        items = json.loads((pytester.path / "items.json").read_text(encoding="utf-8"))
        seen = {_item_id(nodeid) for nodeid in items}
        assert (seed, seen) == (seed, {_param_id(row) for row in [*rows, *reads]})
        verdict = Verdict()
        for row in [*rows, *reads]:
            item = items[f"test_corpus.py::test_corpus[{_param_id(row)}]"]
            verdict.add(_judged(row, item))
        assert (seed, verdict.missed) == (seed, [])
        assert (seed, verdict.false_alarms) == (seed, [])


def _param_id(row: dict[str, Any]) -> str:
    """A manifest row's pytest id: the tool's name, ``resource:URI`` or ``prompt:NAME``."""
    subject, name = item_key(row)
    if subject == "tool":
        return name
    return f"{'prompt' if subject == 'prompt' else 'resource'}:{name}"


def _item_id(nodeid: str) -> str:
    return nodeid.removeprefix("test_corpus.py::test_corpus[").removesuffix("]")


def _judged(row: dict[str, Any], item: dict[str, Any]) -> Verdict:
    """One item judged as corpus/judge.py judges a report; a bug of the wrong severity is missed.

    A violation must fail the item, a warning must not (it is a ``FuzzWarning``): the kinds
    are read from the finding lines (``NAME: KIND (SEVERITY)``) of the failure and warnings.
    """
    subject, name = item_key(row)
    text = "\n".join([item["text"], *item["warnings"]])
    line = re.compile(rf"^{re.escape(name)}: ([a-z_]+) \((?:violation|warning)\)", re.MULTILINE)
    findings = [{"kind": kind} for kind in dict.fromkeys(line.findall(text))]
    verdict = judge([row], {"tools": [{"subject": subject, "name": name, "findings": findings}]})
    if row["kind"] != CONTROL and item["failed"] != (row["severity"] == "violation"):
        verdict.missed.append(f"{row['server']}:{name} failed={item['failed']}")
    elif row["kind"] == CONTROL and (item["failed"] or item["warnings"]):
        said = "\n".join([item["text"], *item["warnings"]])
        verdict.false_alarms.append(f"{row['server']}:{name} failed or warned: {said}")
    return verdict
