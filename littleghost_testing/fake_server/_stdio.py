"""Stdio: the fake server in a child process, importing the same ``module:attribute``.

The child re-runs the module, so it has the same tools; the parent publishes
its script (faults and pagination) to a file the child rereads before every
tools request, so faults changed later still apply, and the child appends
its records to a file the parent follows. The child gets the parent's
``sys.path`` so it can import whatever the parent could.

Both files live in a temporary folder of the connection's own, made when it
connects and removed once its child has exited, however the connection ended
(an error, a cancellation): a server that is never closed leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from ._records import Records
from ._script import Script
from ._serving import Serving, serve_streams

if TYPE_CHECKING:
    from littleghost.mcp import _TransportStreams as TransportStreams

__all__ = [
    "CRASH_EXIT_CODE",
    "RECORDS_ENV",
    "SCRIPT_ENV",
    "Children",
    "child_parameters",
    "import_target",
    "run_stdio",
]

SCRIPT_ENV = "LITTLEGHOST_FAKE_SCRIPT"
RECORDS_ENV = "LITTLEGHOST_FAKE_RECORDS"
CRASH_EXIT_CODE = 70
"""The exit status of a child that crashed on purpose (``EX_SOFTWARE``)."""


def child_parameters(target: str, script: Path, records: Path) -> StdioServerParameters:
    """How to start a child serving ``target``, following ``script``, recording into ``records``."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "littleghost_testing.fake_server", target],
        env={
            "PYTHONPATH": os.pathsep.join(path for path in sys.path if path),
            SCRIPT_ENV: str(script),
            RECORDS_ENV: str(records),
        },
        cwd=os.getcwd(),
    )


class Children:
    """A server's stdio connections: each one's folder, kept in step with the script."""

    def __init__(self, script: Script, records: Records) -> None:
        self._script = script
        self._records = records
        self._folders: set[Path] = set()

    @contextlib.asynccontextmanager
    async def connect(self, target: str) -> AsyncIterator[TransportStreams]:
        """A child serving ``target``, its files in a folder that goes when the child has."""
        folder = Path(tempfile.mkdtemp(prefix="littleghost-fake-"))
        script, records = folder / "script.json", folder / "records.jsonl"
        try:
            self._script.publish(script)
            self._records.follow(records)
            self._folders.add(folder)
            async with stdio_client(child_parameters(target, script, records)) as streams:
                yield streams
        finally:  # the SDK's stdio client has stopped the child by now, even when cancelled
            self._folders.discard(folder)
            self._records.unfollow(records)
            shutil.rmtree(folder, ignore_errors=True)

    def publish(self) -> None:
        """Write the script where every connected child reads it."""
        for folder in list(self._folders):
            # A connection closing on another thread may have just removed its folder.
            with contextlib.suppress(FileNotFoundError):
                self._script.publish(folder / "script.json")


def import_target(target: str) -> object:
    """The object named by ``module:attribute``."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"expected module:attribute, got {target!r}")
    return getattr(importlib.import_module(module_name), attribute)


def run_stdio(server: Server[Any]) -> None:
    """Child side: serve ``server`` over stdin/stdout until the parent closes stdin."""
    anyio.run(_serve, server)


async def _serve(server: Server[Any]) -> None:
    # The SDK serves the wire from a private copy of stdout and diverts fd 1 to
    # stderr; a copy taken first still reaches the client, for raw bytes.
    wire = os.dup(sys.stdout.fileno())
    raw = functools.partial(_raw, wire)
    async with stdio_server() as (read_stream, write_stream):
        await serve_streams(server, read_stream, write_stream, Serving(_crash, raw))


async def _raw(wire: int, data: bytes) -> None:
    """One line of raw bytes on the wire, past the SDK's writer (which flushes each message)."""
    os.write(wire, data + b"\n")


async def _crash() -> None:
    os._exit(CRASH_EXIT_CODE)
