"""The protocol a command speaks, and the one client identity every command presents.

Issue 29, points 5 and 6, against a real stdio server (``servers/negotiating.py``):
one that answers ``server/discover`` with 2026-07-28 and ``tools/list``
statelessly, then refuses every other request until the initialize handshake,
and then every request without the stateless ``_meta`` (kglite 0.21.2 does
this); one that knows only the handshake; and one that
lists a tool only to a client that can elicit (server-everything does this).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Literal

import mcp
import pytest
from servers.cli_harness import run

import littleghost as lg
import littleghost.mcp
from littleghost.mcp import CatalogLock, JSONRPCError, Toolset
from littleghost_testing import from_target, write_lock

NEGOTIATING = Path(__file__).parent / "servers" / "negotiating.py"
FALLBACK = (
    "protocol: 2025-11-25 (initialize handshake), "
    "after the server refused a stateless request: initialize is required"
)
KEEPS_META = "; every request also carries the stateless _meta, which the server wants"


def server(behavior: str) -> list[str]:
    return [sys.executable, str(NEGOTIATING), behavior]


# -- 29.5: a stateless session refused falls back to the handshake ---------------------


def test_check_falls_back_to_the_handshake_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, err = run(capsys, "check", "--json", str(report), "--", *server("kglite"))
    assert code == 0, out + err
    assert FALLBACK + KEEPS_META in out.splitlines()
    assert "jsonrpc_error" not in out and "--inputs" not in out
    written = json.loads(report.read_text())
    assert written["protocol"] == {
        "version": "2025-11-25",
        "stateless": False,
        "refusal": "initialize is required",
        "stateless_meta": True,
    }
    assert [tool["answers"]["jsonrpc_error"] for tool in written["tools"]] == [0]


def test_control_a_server_content_with_the_handshake_gets_no_stateless_meta(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, err = run(capsys, "check", "--json", str(report), "--", *server("initialize-first"))
    assert code == 0, out + err
    assert FALLBACK in out.splitlines()
    assert json.loads(report.read_text())["protocol"]["stateless_meta"] is False


def test_a_server_that_takes_stateless_calls_is_spoken_to_statelessly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, err = run(capsys, "check", "--json", str(report), "--", *server("by-capability"))
    assert code == 0, out + err
    assert "protocol: 2026-07-28 (stateless)" in out.splitlines()
    assert json.loads(report.read_text())["protocol"] == {
        "version": "2026-07-28",
        "stateless": True,
        "refusal": None,
        "stateless_meta": False,
    }


def test_a_refused_handshake_leaves_the_refusal_as_the_answer_and_the_session_stateless(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, err = run(capsys, "check", "--json", str(report), "--", *server("refuses-both"))
    assert code == 1, out + err
    written = json.loads(report.read_text())
    assert written["protocol"] == {
        "version": "2026-07-28",
        "stateless": True,
        "refusal": None,
        "stateless_meta": False,
    }
    [echo] = written["tools"]
    assert echo["answers"]["success"] == 0 and echo["answers"]["jsonrpc_error"] > 0
    [readme] = written["resources"]
    assert readme["answers"]["success"] == 1  # read statelessly after the refused handshake
    assert "initialize is required" in out


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_lock_and_lint_list_the_catalog_of_a_server_that_wants_the_handshake(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, protocol: str
) -> None:
    path = tmp_path / "kglite.lock"
    argv = ["--protocol", protocol, "--", *server("kglite")]
    code, out, err = run(capsys, "lock", "-o", str(path), *argv)
    assert (code, err) == (0, ""), err
    assert "1 tool, 1 resource" in out
    assert set(CatalogLock.load(path).tools) == {"echo"}
    code, out, err = run(capsys, "lint", *argv)
    assert (code, err) == (0, ""), err
    code, out, err = run(capsys, "diff", "--lock", str(path), *argv)
    assert (code, err) == (0, ""), err


def test_stateless_only_is_refused_by_name_never_as_a_connection_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(
        capsys, "lock", "-o", str(tmp_path / "a.lock"), "--protocol", "stateless", "--",
        *server("kglite"),
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert err.startswith("littleghost: error: cannot list the catalog of ")
    assert err.endswith(": initialize is required\n")


def test_stateless_against_a_handshake_only_server_says_what_it_lacks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "check", "--protocol", "stateless", "--", *server("legacy"))
    assert (code, out) == (2, "")
    assert "does not offer a stateless session" in err and len(err.splitlines()) == 1
    code, out, err = run(capsys, "check", "--protocol", "legacy", "--", *server("legacy"))
    assert code == 0, out + err
    assert "protocol: 2025-11-25 (initialize handshake)" in out.splitlines()


def test_a_repro_line_keeps_the_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "call", "--protocol", "stateless", "echo", "{}", "--", *server("kglite")
    )
    assert code == 1
    assert json.loads(out)["error"] == {"code": -32600, "message": "initialize is required"}
    code, out, _ = run(capsys, "call", "echo", "{}", "--", *server("kglite"))
    assert code == 0
    assert json.loads(out)["result"]["content"][0]["text"] == "handshake 2025-11-25"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("chosen", "answer"),
    [(None, "handshake 2025-11-25"), ("legacy", "handshake 2025-11-25"), ("stateless", None)],
)
async def test_a_toolset_negotiates_by_its_protocol(
    chosen: Literal["legacy", "stateless"] | None, answer: str | None
) -> None:
    class Kglite(Toolset):
        protocol = chosen

        def client(self, binding: lg.Binding) -> mcp.Client:
            return littleghost.mcp.client(server("kglite"))

    async with lg.Run() as run_:
        binding = lg.Binding(run=run_)
        [echo] = await Kglite.tools(binding)
        result = await echo(binding).execute({})
    if answer is None:
        assert isinstance(result.error, JSONRPCError)
        assert str(result.error) == "initialize is required"
    else:
        assert result.value == answer


# -- 29.6: one client identity ------------------------------------------------------------


def test_lock_and_check_see_the_same_catalog(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "everything.lock"
    code, out, err = run(capsys, "lock", "-o", str(path), "--", *server("by-capability"))
    assert code == 0, err
    assert set(CatalogLock.load(path).tools) == {"echo", "ask"}
    code, out, err = run(capsys, "check", "--lock", str(path), "--", *server("by-capability"))
    assert code == 0, out + err
    assert "0 changes (0 breaking, 0 suspicious, 0 compatible): matches the lock" in out
    rows = [line.split()[0] for line in out.splitlines() if line.startswith(("echo ", "ask "))]
    assert rows == ["echo", "ask"]  # both called: check sees what the lock records


def test_from_target_and_write_lock_present_the_same_client(tmp_path: Path) -> None:
    catalog = write_lock(server("by-capability"), tmp_path / "written.lock")
    assert set(catalog.tools) == {"echo", "ask"}
    fuzzed = from_target(server("by-capability"))
    try:
        marker = fuzzed.parametrize()
        assert [param.id for param in marker.args[1]][:2] == ["echo", "ask"]
    finally:
        fuzzed.close()


@pytest.mark.anyio
async def test_control_a_client_that_cannot_elicit_is_listed_one_tool() -> None:
    class Plain(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return littleghost.mcp.client(server("by-capability"))

    async with lg.Run() as run_:
        tools = await Plain.tools(lg.Binding(run=run_))
    assert [tool.tool_name for tool in tools] == ["echo"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_made_with_mode_legacy_keeps_it(mode: Literal["legacy", "auto"]) -> None:
    class Made(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return littleghost.mcp.client(server("refuses-both"), mode=mode)

    async with lg.Run() as run_:
        if mode == "auto":  # the control: stateless, the handshake never tried
            assert [tool.tool_name for tool in await Made.tools(lg.Binding(run=run_))] == ["echo"]
            return
        with pytest.raises(lg.LittleGhostError, match="initialize is not accepted"):
            await Made.tools(lg.Binding(run=run_))  # the handshake first, as asked
