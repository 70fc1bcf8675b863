"""Answers the SDK alone would accept but JSON-RPC forbids (issue 19, point 8).

A raw server answers ``tools/call`` with both ``result`` and ``error``, or
with the request's integer id as a string (``"1"`` for 1): over stdio, over
Streamable HTTP as a JSON body, and over Streamable HTTP as an event stream
(where the SDK itself would overwrite the string id with the request's). Either
is a ``MalformedMessage`` that closes the connection, for a ``Toolset``, for
``littleghost check`` (a ``malformed_result`` finding), ``littleghost call``
and ``from_target`` alike.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest

import littleghost as lg
from littleghost.mcp import MalformedMessage, Toolset
from littleghost.mcp._http import EventReader
from littleghost_testing import from_target
from littleghost_testing.cli._main import main
from littleghost_testing.leaks import ResourceSnapshot
from tests.hostile.servers.clients import client_factory, http_server

BREACHES = {
    "both": "MCP server sent an answer with both 'result' and 'error'; connection closed",
    "string-id": "a string, though every request id sent was an integer; connection closed",
}

TRANSPORTS = ["stdio", "http", "sse"]
"""``http`` answers with a JSON body, ``sse`` with a ``text/event-stream``."""

CLI_OPTIONS = ["--allow-side-effects", "--examples", "1", "-q"]


def server_behavior(transport: str, behavior: str) -> tuple[str, str]:
    """The hostile server's transport and behavior (``raw_http`` streams ``sse-`` behaviors)."""
    if transport == "sse":
        return "http", f"sse-{behavior}"
    return transport, behavior


@contextmanager
def target(transport: str, behavior: str) -> Iterator[str | list[str]]:
    """Where the kit finds the hostile server: a URL, or a stdio command."""
    transport, behavior = server_behavior(transport, behavior)
    if transport == "http":
        with http_server(behavior) as url:
            yield url
    else:
        yield [sys.executable, "-m", "tests.hostile.servers.raw_stdio", behavior, "0"]


def cli(command: str, where: str | list[str], *words: str) -> list[str]:
    if isinstance(where, str):
        return [command, where, *words]
    return [command, *words, "--", *where]


async def call_twice(transport: str, behavior: str) -> list[lg.ExecutionResult]:
    with client_factory(*server_behavior(transport, behavior)) as make_client:
        with anyio.fail_after(10):

            class Hostile(Toolset):
                def client(self, binding: lg.Binding) -> Any:
                    return make_client()

            async with lg.Run() as run:
                binding = lg.Binding(run=run)
                [probe] = await Hostile.tools(binding)
                return [await probe(binding).execute({}) for _ in range(2)]


@pytest.mark.anyio
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("behavior", BREACHES)
async def test_a_toolset_call_fails_with_a_malformed_message(
    lg_leaks: Any, transport: str, behavior: str
) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    for result in await call_twice(transport, behavior):
        assert isinstance(result.error, MalformedMessage), result.error
        assert isinstance(result.error, lg.ProtocolError)
        assert result.error.connection_closed
        assert str(result.error).endswith(BREACHES[behavior])
        assert result.content == "Tool failed (MalformedMessage)"
    await baseline.assert_released()


@pytest.mark.anyio
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_honest_answer_still_passes(lg_leaks: Any, transport: str) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    for result in await call_twice(transport, "ok"):
        assert result.error is None, result.error
        assert result.content == "ok"
    await baseline.assert_released()


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("behavior", BREACHES)
def test_check_reports_a_malformed_result(
    transport: str, behavior: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with target(transport, behavior) as where:
        assert main(cli("check", where, *CLI_OPTIONS)) == 1
    out = capsys.readouterr().out
    assert "probe: malformed_result (violation)" in out, out
    assert "observed:  MCP server " in out and BREACHES[behavior] in out, out


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("behavior", BREACHES)
def test_call_fails_with_one_line(
    transport: str, behavior: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with target(transport, behavior) as where:
        assert main(cli("call", where, "probe", "{}")) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("littleghost: error: probe: the answer breaks the protocol: MCP "), line
    assert line.endswith(BREACHES[behavior]), line


@pytest.mark.parametrize("transport", ["http", "sse"])
@pytest.mark.parametrize("behavior", BREACHES)
def test_from_target_fails_the_tool(transport: str, behavior: str) -> None:
    with target(transport, behavior) as where:
        server = from_target(where, allow_side_effects=True, examples=1, timeout=10)
        try:
            [param] = server.parametrize().args[1]
            with pytest.raises(pytest.fail.Exception) as failed:
                param.values[0].check()
        finally:
            server.close()
    message = str(failed.value)
    assert "malformed_result" in message, message
    assert BREACHES[behavior] in message, message


def events(*chunks: bytes) -> list[bytes]:
    reader = EventReader()
    return [data for chunk in chunks for data in reader.feed(chunk)]


def test_events_are_framed_as_the_sse_specification_frames_them() -> None:
    assert events(b"data: a\n\n", b"data:b\r\n\r\n", b"data: c\r\rdata: d\n\n") == [
        b"a",
        b"b",
        b"c",
        b"d",
    ]
    # A CRLF split between chunks is one line end, not a line end and a blank line.
    assert events(b"data: a\r", b"\ndata: b\r", b"\n\r\n") == [b"a\nb"]
    # Comments and other fields are not data; events of another type are not messages.
    assert events(b": ping\nid: 7\nretry: 10\ndata: a\n\n") == [b"a"]
    assert events(b"event: other\ndata: a\n\nevent: message\ndata: b\n\n") == [b"b"]
    # Only "data:"'s first space is stripped; an event with no data is nothing.
    assert events(b"data:  a\n\n\n\nid: 1\n\n") == [b" a"]


def test_an_event_reader_counts_the_bytes_of_the_event_being_read() -> None:
    reader = EventReader()
    assert reader.feed(b"data: 1234") == []
    assert reader.size == 10
    assert reader.feed(b"56\n\ndata: 7") == [b"123456"]
    assert reader.size == len(b"data: 7")
