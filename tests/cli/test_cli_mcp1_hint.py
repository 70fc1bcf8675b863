"""A stdio server that needs mcp 1.x gets a one-line hint under its stderr tail, from every
command that connects."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from servers.cli_harness import run_process, stdio_command

from littleghost.mcp import CatalogLock

MCP1_SERVER = Path(__file__).parent / "servers" / "mcp1_server.py"


@pytest.mark.parametrize(
    ("arguments", "sign"),
    [
        ([], "'Server' object has no attribute 'list_resources'"),
        (["import"], "ModuleNotFoundError: No module named 'mcp.server.fastmcp'"),
    ],
)
@pytest.mark.parametrize("command", ["check", "call", "lock", "diff", "lint"])
def test_a_server_written_for_mcp1_gets_the_hint_to_install_mcp_below_2(
    command: str, arguments: list[str], sign: str, tmp_path: Path
) -> None:
    words = {
        "call": ["call", "any", "{}"],
        "lock": ["lock", "-o", str(tmp_path / "new.lock.json")],
        "diff": ["diff", "--lock", str(tmp_path / "mcp.lock.json")],
    }.get(command, [command])
    CatalogLock.from_tools([]).write(tmp_path / "mcp.lock.json")  # diff reads it first
    done = run_process(*words, "--", sys.executable, str(MCP1_SERVER), *arguments)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    hint = f"  hint: the server needs mcp 1.x ({sign}): install it with 'mcp<2' in its environment"
    assert lines[-2:-1] == [hint], done.stderr
    assert lines[-1].startswith("littleghost: error: cannot connect to ")


def test_a_server_that_dies_for_another_reason_gets_no_hint() -> None:
    done = run_process("check", *stdio_command(), env={"CLI_SERVER_TOKEN": ""})
    assert done.returncode == 2
    assert "  server stderr: fatal: CLI_SERVER_TOKEN is not set" in done.stderr.splitlines()
    assert "hint:" not in done.stderr
