"""From parsed options to a ``Target``, a log for the server's stderr, and one-line failures."""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

import littleghost as lg

from .._engine import describe
from .._targets import Target, TargetError, from_config, parse_header, resolve
from ._text import visible

__all__ = ["ServerLog", "connection_failure", "mcp1_hint", "show_tail", "target_of"]

#: Lines of the server's stderr shown when it dies.
TAIL_LINES = 10
#: Characters of one stderr line shown.
TAIL_LINE_CHARS = 300

# What a server written for mcp 1.x prints when it starts under mcp 2.x: the low-level
# ``Server``'s decorators and ``mcp.server.fastmcp`` are gone, other names moved.
_MCP1_SIGNS = re.compile(
    r"'Server' object has no attribute '\w+'"
    r"|ImportError: cannot import name '\w+' from 'mcp[\w.]*'"
    r"|ModuleNotFoundError: No module named 'mcp\.[\w.]+'"
)


def target_of(args: argparse.Namespace, command: list[str], target: str | None) -> Target:
    """The server the options name; raises ``TargetError``."""
    headers = dict(parse_header(text) for text in args.header or [])
    env = dict(args.env or [])
    if args.config is not None or args.server is not None:
        if args.config is None or args.server is None:
            raise TargetError("--config FILE and --server NAME go together")
        if target is not None or command or headers or env or args.cwd is not None:
            raise TargetError("--config names the server: give no TARGET, command or options")
        config = from_config(args.config, args.server, inherit_tmpdir=args.inherit_tmpdir)
        return config.speaking(args.protocol)
    resolved = resolve(
        target,
        command=command,
        headers=headers,
        env=env,
        cwd=args.cwd,
        inherit_tmpdir=args.inherit_tmpdir,
    )
    return resolved.speaking(args.protocol)


class ServerLog:
    """The file a stdio server's stderr goes to, so it never mixes with our output.

    The file holds what the server wrote; what of it we show is ``redact``-ed
    (``Target.redact``: the server may log the secrets it was given).
    """

    def __init__(self, path: Path | None, redact: Callable[[str], str] = str) -> None:
        self._redact = redact
        self._temporary = path is None
        if path is None:
            descriptor, name = tempfile.mkstemp(prefix="littleghost-server-", suffix=".log")
            os.close(descriptor)
            path = Path(name)
        self.path = path
        self._file: TextIO | None = None

    def file(self) -> TextIO:
        """The log, opened for appending on first use (every connection shares it)."""
        if self._file is None:
            try:
                self._file = self.path.open("a", encoding="utf-8")
            except OSError as error:
                raise TargetError(
                    f"cannot write the server log {self.path}: {error.strerror}"
                ) from None
        return self._file

    def tail(self) -> list[str]:
        """Its last lines, redacted, each cut to a readable length."""
        if self._file is not None:
            self._file.flush()
        try:
            with self.path.open(encoding="utf-8", errors="replace") as file:
                lines = deque(file, maxlen=TAIL_LINES)
        except OSError:
            return []
        shown = (self._redact(line.rstrip("\n")) for line in lines if line.strip())
        return [line[:TAIL_LINE_CHARS] for line in shown]

    def close(self) -> None:
        """Close it; a temporary log the server never wrote to is deleted."""
        file, self._file = self._file, None
        if file is not None:
            file.close()
        if self._temporary and self.empty():
            self.path.unlink(missing_ok=True)

    def empty(self) -> bool:
        try:
            return self.path.stat().st_size == 0
        except OSError:
            return True


def mcp1_hint(lines: Iterable[str]) -> str | None:
    """A one-line hint when a server's stderr shows it needs mcp 1.x (``mcp<2``)."""
    for line in lines:
        sign = _MCP1_SIGNS.search(line)
        if sign is not None:
            return (
                f"hint: the server needs mcp 1.x ({sign.group()}): "
                "install it with 'mcp<2' in its environment"
            )
    return None


def show_tail(log: ServerLog | None) -> None:
    """The server's last stderr lines on our stderr, and the mcp 1.x hint they call for."""
    if log is None:
        return
    tail = log.tail()
    for line in tail:
        print(f"  server stderr: {visible(line)}", file=sys.stderr)
    hint = mcp1_hint(tail)
    if hint is not None:
        print(f"  {visible(hint)}", file=sys.stderr)


def connection_failure(target: Target, error: BaseException, timeout: float) -> str:
    """One line saying why connecting to ``target``, or listing its catalog, failed."""
    status = target.refused_status
    if status is not None:
        return (
            f"{target.label} refused the credentials (HTTP {status}): "
            "check --header (or the headers of --config)"
        )
    if isinstance(error, lg.DeadlineExceededError | TimeoutError):
        return f"cannot connect to {target.label}: no answer within {timeout:g} s (--timeout)"
    text = str(error) if isinstance(error, lg.LittleGhostError) else describe(error)
    if isinstance(error, lg.ProtocolError | lg.ToolError):  # it answered: the connection worked
        return f"cannot list the catalog of {target.label}: {text}"
    return f"cannot connect to {target.label}: {text}"
