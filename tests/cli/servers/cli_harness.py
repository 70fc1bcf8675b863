"""Running ``littleghost`` for the CLI tests: in-process, or as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from littleghost_testing.cli import main

HERE = Path(__file__).parent.parent
STDIO_SERVER = Path(__file__).with_name("cli_stdio_server.py")
SUBPROCESS_TIMEOUT = 60
# Small and quick: every test checks behaviour, not fuzzing depth.
FAST = ["--examples", "3", "--shrink-budget", "2"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def run_in_thread(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``run`` off the event loop, so a leak snapshot taken on the loop sees only the CLI."""
    code = await anyio.to_thread.run_sync(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cli_process(
    *argv: str, env: dict[str, str] | None = None, **options: Any
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-W", "ignore", "-m", "littleghost_testing.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=options.pop("cwd", HERE),
        env={**os.environ, **(env or {})},
        **options,
    )


def run_process(*argv: str, **options: Any) -> subprocess.CompletedProcess[str]:
    process = cli_process(*argv, **options)
    out, err = process.communicate(timeout=SUBPROCESS_TIMEOUT)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def stdio_command() -> list[str]:
    return ["--", sys.executable, str(STDIO_SERVER)]


def calls_of(path: Path) -> list[dict[str, Any]]:
    """What the stdio server recorded: one ``{"tool", "arguments"}`` per call it got."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """``os.environ`` with ``values`` for the duration (for ``${VAR}`` expansion in-process)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def reproduce_lines(out: str) -> list[str]:
    """The ``littleghost call ...`` commands printed, backslash continuations joined."""
    joined = out.replace(" \\\n    ", " ")
    return [
        line.split("reproduce: ", 1)[1] for line in joined.splitlines() if "reproduce: " in line
    ]
