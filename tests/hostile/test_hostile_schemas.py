"""Tool schemas that reference what is not there, from a real stdio server: ``check`` names each.

A dangling ``$ref``, a ``$ref`` to a remote URL and a ``$dynamicRef`` to no anchor make a
schema invalid: that tool is a ``malformed_catalog`` finding and the others are checked.
Schemas that compile but have no finite instance get a note naming why no input was
made. Valid schemas with an odd corner (an unused definition with a dangling reference,
a branch nothing satisfies) are checked like any other.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from littleghost_testing._engine._tool_run import MAX_NOTE_CHARS
from littleghost_testing.strategies import from_schema

from .released import released
from .servers.clients import REPO
from .servers.schemas import CHECKED

__all__ = ["released"]  # autouse: no test leaves a process, socket or thread

CHECK_SECONDS = 120  # a hang fails the test instead of the suite


def test_check_names_each_broken_schema_and_checks_the_others(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    with socket.create_server(("127.0.0.1", 0)) as remote:  # where one schema points
        remote.setblocking(False)
        url = f"http://127.0.0.1:{remote.getsockname()[1]}/schema.json"
        server = [sys.executable, "-m", "tests.hostile.servers.schemas", url]
        argv = ["check", "--examples", "3", "--shrink-budget", "1", "--json", str(report)]
        done = subprocess.run(
            [sys.executable, "-m", "littleghost_testing.cli", *argv, "--cwd", REPO, "--", *server],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=CHECK_SECONDS,
        )
        try:
            remote.accept()[0].close()
            fetched = True
        except BlockingIOError:
            fetched = False
    assert not fetched, "check fetched a schema from the network"
    assert "Traceback" not in done.stderr, done.stderr
    assert "left out" not in done.stderr, done.stderr  # said once, as a finding, not logged too
    assert done.returncode == 1, done.stdout  # the malformed catalog's violations
    tools = {tool["name"]: tool for tool in json.loads(report.read_text())["tools"]}

    catalog = [finding["observed"] for finding in tools.pop("(tools/list)")["findings"]]
    assert [observed.split("'")[1] for observed in catalog] == [
        "dangling",
        "remote",
        "dynamic_nowhere",
    ]
    assert "Pointer '/$defs/missing' does not exist" in catalog[0]
    assert f"cannot fetch {url}" in catalog[1]
    assert "Anchor 'nowhere' does not exist" in catalog[2]

    for name in CHECKED:
        tool = tools.pop(name)
        assert tool["answers"]["success"] > 0 and tool["invalid_calls"] > 0, tool
        assert (tool["violation_count"], tool["warning_count"], tool["notes"]) == (0, 0, []), tool

    assert tools["endless"]["notes"][0] == (
        "no valid inputs: $ref # recurses without a finite instance"
    )
    assert tools["loop"]["notes"][0] == (
        "no valid inputs: required property 'x' can never be valid: "
        "$ref '#/$defs/a' refers to itself"
    )
    # Generation gives up from inside (MAX_EXPANSIONS); the note keeps that cause, and the
    # tool is called with {}, which its schema admits.
    expansive = tools.pop("expansive")
    assert (expansive["valid_calls"], expansive["answers"]["success"]) == (1, 1)
    assert (expansive["findings"], expansive["unexercised"]) == ([], False)
    refusal, sent, _ = expansive["notes"]  # and the same for invalid inputs
    assert refusal.startswith("no valid inputs: property 'reporting_pipeline_settings' cannot")
    assert refusal.endswith("$refs are expanded (MAX_EXPANSIONS): too costly to generate")
    assert len(refusal) == MAX_NOTE_CHARS and "…" in refusal
    assert sent == "the one valid input sent: {}, which the schema admits"
    for tool in tools.values():
        assert (tool["calls"], [finding["kind"] for finding in tool["findings"]]) == (
            0,
            ["unexercised"],
        )


@settings(max_examples=10)
@given(value=st.deferred(lambda: from_schema(CHECKED["hidden"])))
def test_a_dangling_ref_in_an_unused_definition_does_not_stop_generation(value: Any) -> None:
    assert isinstance(value["note"], str)
