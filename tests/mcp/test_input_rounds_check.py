"""``littleghost check`` on tools that ask for input (SEP-2322): the kit never consents.

An elicitation gets the kit's decline, which the server answers like any
call; sampling is not offered, so a tool that needs it ends in
``InputRefused``: no answer to judge, no fault of the server's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from littleghost_testing.cli import main

FAST = ["--examples", "3", "--shrink-budget", "2"]


def test_check_declines_what_tools_ask_and_blames_the_server_for_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "report.json"
    code = main(
        [
            "check",
            "mcp_servers.rounds:server",
            "--allow-side-effects",
            *("--include", "greet", "--include", "haiku", "--no-resources", "--no-prompts"),
            *FAST,
            "--json",
            str(path),
        ]
    )
    out = capsys.readouterr().out
    tools = {tool["name"]: tool for tool in json.loads(path.read_text())["tools"]}
    greet, haiku = tools["greet"], tools["haiku"]
    # greet asked for a name, was told no, and answered the call: a success to check.
    assert greet["findings"] == [] and greet["answers"]["success"] == greet["valid_calls"] > 0
    # haiku needs sampling, which the kit does not give: only "unexercised", saying why.
    [unexercised] = haiku["findings"]
    assert unexercised["kind"] == "unexercised"
    assert unexercised["observed"] == (
        f"no valid call of {haiku['valid_calls']} succeeded (0 isError, 0 JSON-RPC errors, "
        f"{haiku['valid_calls']} without an answer); the first answered "
        '"MCP tool haiku asked for a model completion (sampling/createMessage), '
        'which the client refused: Sampling not supported"'
    )
    assert code == 0, out  # a warning alone does not fail the check
