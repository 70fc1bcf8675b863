"""From parsed options to a ``Target``, a log for the server's stderr, and one-line failures."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections import deque
from pathlib import Path
from typing import TextIO

import littleghost as lg

from .._engine import describe
from .._targets import Target, TargetError, from_config, parse_header, resolve

__all__ = ["ServerLog", "connection_failure", "target_of"]

#: Lines of the server's stderr shown when it dies.
TAIL_LINES = 10
#: Characters of one stderr line shown.
TAIL_LINE_CHARS = 300


def target_of(args: argparse.Namespace, command: list[str], target: str | None) -> Target:
    """The server the options name; raises ``TargetError``."""
    headers = dict(parse_header(text) for text in args.header or [])
    env = dict(args.env or [])
    if args.config is not None or args.server is not None:
        if args.config is None or args.server is None:
            raise TargetError("--config FILE and --server NAME go together")
        if target is not None or command or headers or env or args.cwd is not None:
            raise TargetError("--config names the server: give no TARGET, command or options")
        return from_config(args.config, args.server).speaking(args.protocol)
    resolved = resolve(target, command=command, headers=headers, env=env, cwd=args.cwd)
    return resolved.speaking(args.protocol)


class ServerLog:
    """The file a stdio server's stderr goes to, so it never mixes with our output."""

    def __init__(self, path: Path | None) -> None:
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
        """Its last lines, each cut to a readable length."""
        if self._file is not None:
            self._file.flush()
        try:
            with self.path.open(encoding="utf-8", errors="replace") as file:
                lines = deque(file, maxlen=TAIL_LINES)
        except OSError:
            return []
        return [line.rstrip("\n")[:TAIL_LINE_CHARS] for line in lines if line.strip()]

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
