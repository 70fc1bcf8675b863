"""Answers the SDK alone would accept but JSON-RPC forbids (issue 19, point 8).

A raw stdio server answers ``tools/call`` with both ``result`` and ``error``,
or with the request's integer id as a string (``"1"`` for 1). Either is a
``MalformedMessage`` that closes the connection, for a ``Toolset`` and for
``littleghost check`` (a ``malformed_result`` finding) alike.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

import littleghost as lg
from littleghost.mcp import MalformedMessage, Toolset
from littleghost_testing.cli._main import main
from littleghost_testing.leaks import ResourceSnapshot
from tests.hostile.servers.clients import client_factory

BREACHES = {
    "both": "MCP server sent an answer with both 'result' and 'error'; connection closed",
    "string-id": "a string, though every request id sent was an integer; connection closed",
}


@pytest.mark.anyio
@pytest.mark.parametrize("behavior", BREACHES)
async def test_a_toolset_call_fails_with_a_malformed_message(lg_leaks: Any, behavior: str) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with client_factory("stdio", behavior) as make_client, anyio.fail_after(10):

        class Breaching(Toolset):
            def client(self, binding: lg.Binding) -> Any:
                return make_client()

        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await Breaching.tools(binding)
            first = await probe(binding).execute({})
            second = await probe(binding).execute({})
    for result in (first, second):
        assert isinstance(result.error, MalformedMessage), result.error
        assert isinstance(result.error, lg.ProtocolError)
        assert result.error.connection_closed
        assert str(result.error).endswith(BREACHES[behavior])
    await baseline.assert_released()


@pytest.mark.anyio
async def test_an_honest_answer_still_passes(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with client_factory("stdio", "ok") as make_client, anyio.fail_after(10):

        class Honest(Toolset):
            def client(self, binding: lg.Binding) -> Any:
                return make_client()

        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await Honest.tools(binding)
            assert (await probe(binding).execute({})).content == "ok"
    await baseline.assert_released()


@pytest.mark.parametrize("behavior", BREACHES)
def test_check_reports_a_malformed_result(
    behavior: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [sys.executable, "-m", "tests.hostile.servers.raw_stdio", behavior, "0"]
    argv = ["check", "--allow-side-effects", "--examples", "1", "-q", "--", *command]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "probe: malformed_result (violation)" in out, out
    assert "observed:  MCP server " in out and BREACHES[behavior] in out, out
