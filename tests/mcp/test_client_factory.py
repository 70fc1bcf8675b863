"""``littleghost.mcp.client``: one bounded client for every transport, with or without a Toolset.

Headers and the 401/403 hook are exercised end to end by the CLI's tests
(tests/cli/test_cli_connect.py), which connect only through this factory.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp.client.stdio import StdioServerParameters

import littleghost as lg
import littleghost.mcp
from littleghost.mcp import LimitExceeded, Toolset
from littleghost.mcp._stdio import MAX_STDERR_LINE_CHARS
from littleghost_testing.leaks import ResourceSnapshot
from tests.hostile.servers.clients import REPO, http_server

pytestmark = pytest.mark.anyio

RAW_STDIO = [sys.executable, "-m", "tests.hostile.servers.raw_stdio"]


class Small(Toolset):
    max_result_bytes = 4096


def stdio(behavior: str, size: int = 0, *, before: str = "") -> list[str]:
    """The raw stdio server; ``before`` is Python it runs first (to write to stderr)."""
    if not before:
        return [*RAW_STDIO, behavior, str(size)]
    script = (
        f"import runpy, sys; {before}; sys.argv = ['raw_stdio', {behavior!r}, '{size}']; "
        "runpy.run_module('tests.hostile.servers.raw_stdio', run_name='__main__')"
    )
    return [sys.executable, "-c", script]


async def call_probe(client: mcp.Client) -> Any:
    """The result of one ``probe`` call, or what it raised (inside the client's task group)."""
    with anyio.fail_after(10):
        async with client:
            try:
                return await client.call_tool("probe", {})
            except Exception as error:
                return error


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_bare_client_is_read_within_its_limits(lg_leaks: Any, transport: str) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    if transport == "stdio":
        made = littleghost.mcp.client(stdio("huge", 1 << 20), cwd=REPO, limits=Small)
        failure = await call_probe(made)
    else:
        with http_server("huge", 1 << 20) as url:
            failure = await call_probe(littleghost.mcp.client(url, limits=Small))
    assert isinstance(failure, LimitExceeded), failure
    assert str(failure).startswith("MCP server exceeded max_result_bytes (4096)")
    assert (failure.limit, failure.value) == ("max_result_bytes", 4096)
    await baseline.assert_released()


async def test_a_toolset_applies_its_own_limits_to_a_factory_client(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()

    class Huge(Small):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return littleghost.mcp.client(stdio("huge", 1 << 20), cwd=REPO)  # default limits

    with anyio.fail_after(10):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await Huge.tools(binding)
            result = await probe(binding).execute({})
    assert isinstance(result.error, LimitExceeded)
    assert result.error.value == 4096
    await baseline.assert_released()


async def test_stderr_reaches_a_callback_line_by_line(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    long = MAX_STDERR_LINE_CHARS + 10
    before = f"sys.stderr.write('one\\ntwo\\n' + 'x' * {long} + '\\n'); sys.stderr.flush()"
    lines: list[str] = []
    made = littleghost.mcp.client(stdio("ok", before=before), cwd=REPO, stderr=lines.append)
    result = await call_probe(made)
    assert result.content[0].text == "ok"
    assert lines == ["one", "two", "x" * MAX_STDERR_LINE_CHARS, "x" * 10]
    await baseline.assert_released()


async def test_stderr_goes_to_a_file(lg_leaks: Any, tmp_path: Path) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    before = "sys.stderr.write('to the log\\n'); sys.stderr.flush()"
    with (tmp_path / "server.log").open("w") as log:
        made = littleghost.mcp.client(stdio("ok", before=before), cwd=REPO, stderr=log)
        await call_probe(made)
    assert (tmp_path / "server.log").read_text() == "to the log\n"
    await baseline.assert_released()


async def test_env_is_added_to_the_default_environment(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    before = "import os; sys.stderr.write(os.environ['GREETING'] + '\\n')"
    parameters = StdioServerParameters(command=sys.executable, args=stdio("ok", before=before)[1:])
    lines: list[str] = []
    made = littleghost.mcp.client(
        parameters, env={"GREETING": "hello"}, cwd=REPO, stderr=lines.append
    )
    await call_probe(made)
    assert lines == ["hello"]
    await baseline.assert_released()


async def test_on_response_sees_each_http_response(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    statuses: list[int] = []
    with http_server("ok") as url:
        made = littleghost.mcp.client(
            url, headers={"X-Trace": "1"}, on_response=lambda r: statuses.append(r.status_code)
        )
        await call_probe(made)
    assert statuses and set(statuses) <= {200, 202}
    await baseline.assert_released()


@pytest.mark.parametrize(
    ("server", "options", "problem"),
    [
        (["server"], {"headers": {"A": "b"}}, "headers and on_response are for"),
        ("http://127.0.0.1:1/mcp", {"env": {"A": "b"}}, "env, cwd and stderr are for"),
        ("ftp://example.com", {}, "is not an http:// or https:// URL"),
        ([], {}, "a stdio command needs at least the program"),
    ],
)
async def test_options_that_do_not_fit_the_server_are_refused(
    server: Any, options: dict[str, Any], problem: str
) -> None:
    with pytest.raises((TypeError, ValueError), match=problem):
        littleghost.mcp.client(server, **options)
