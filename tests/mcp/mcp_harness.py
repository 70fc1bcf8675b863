"""Transport targets: the same catalog server in-process, over stdio, over HTTP."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import anyio
import mcp
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp_servers.catalog import build_server, http_app

from littleghost_testing.fake_server._http import HttpServer

REPO = Path(__file__).resolve().parents[2]
TRANSPORTS = ["memory", "stdio", "http"]


@dataclass
class Target:
    """How to reach one catalog server, and what its handlers recorded."""

    transport: str
    legacy: bool
    make_client: Callable[[], mcp.Client]
    read_events: Callable[[], list[str]]
    clients: list[mcp.Client] = field(default_factory=list)

    def client(self) -> mcp.Client:
        made = self.make_client()
        self.clients.append(made)
        return made

    async def wait_for(self, event: str) -> None:
        """Poll what the server recorded (another process may have written it)."""
        with anyio.fail_after(5):
            while event not in self.read_events():  # noqa: ASYNC110 - polls a file
                await anyio.sleep(0.005)


class _Recorder:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: list[str] = []

    def __call__(self, event: str) -> None:
        with self._lock:
            self._events.append(event)

    def read(self) -> list[str]:
        with self._lock:
            return list(self._events)

    def clear(self) -> None:
        with self._lock:
            self._events.clear()


@dataclass
class _Http:
    modern_url: str
    legacy_url: str
    recorder: _Recorder


@pytest.fixture(scope="session")
def http_servers() -> Iterator[_Http]:
    recorder = _Recorder()
    modern = partial(http_app, record=recorder)
    legacy = partial(http_app, legacy=True, record=recorder)
    with (
        HttpServer(modern, name="littleghost-test-http-modern") as modern_server,
        HttpServer(legacy, name="littleghost-test-http-legacy") as legacy_server,
    ):
        yield _Http(f"{modern_server.url}/mcp", f"{legacy_server.url}/mcp", recorder)


def make_target(
    transport: str, legacy: bool, tmp_path: Path, request: pytest.FixtureRequest
) -> Target:
    if transport == "memory":
        recorder = _Recorder()
        server = build_server(record=recorder)
        mode = "legacy" if legacy else "auto"
        return Target(transport, legacy, lambda: mcp.Client(server, mode=mode), recorder.read)
    if transport == "stdio":
        events = tmp_path / "events.txt"
        events.touch()
        parameters = StdioServerParameters(
            command=sys.executable,
            args=["-m", "tests.mcp.mcp_servers.catalog"],
            env={
                "LG_TEST_EVENTS": str(events),
                "LG_TEST_LEGACY": "1" if legacy else "0",
                "PYTHONPATH": str(REPO),
            },
            cwd=REPO,
        )
        return Target(
            transport,
            legacy,
            lambda: mcp.Client(parameters),
            lambda: events.read_text().splitlines(),
        )
    http: _Http = request.getfixturevalue("http_servers")
    http.recorder.clear()
    url = http.legacy_url if legacy else http.modern_url
    return Target(transport, legacy, lambda: mcp.Client(url), http.recorder.read)


@pytest.fixture(params=TRANSPORTS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Target:
    return make_target(request.param, False, tmp_path, request)


@pytest.fixture(
    params=[(t, legacy) for t in TRANSPORTS for legacy in (False, True)],
    ids=lambda p: f"{p[0]}-{'2025-11-25' if p[1] else '2026-07-28'}",
)
def any_target(request: pytest.FixtureRequest, tmp_path: Path) -> Target:
    transport, legacy = request.param
    return make_target(transport, legacy, tmp_path, request)
