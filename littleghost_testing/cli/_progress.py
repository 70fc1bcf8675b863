"""What the user sees while ``check`` runs: a live display on a terminal, else one line per tool.

Progress goes to stderr, so stdout holds only the summary. The live display
(rich) shows the tools in flight, their call counts, the findings so far and
the elapsed time; it is redrawn a few times a second from the worker threads'
counters. ``NO_COLOR`` is honoured by rich itself.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.text import Text

from .._engine import ToolReport
from ._text import plural, visible

__all__ = ["Progress"]

#: Redraws per second of the live display.
REFRESH_PER_SECOND = 4


class Progress:
    """Thread-safe progress: ``started``, ``called`` and ``finished`` per tool."""

    def __init__(self, total: int, *, quiet: bool, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._quiet = quiet
        self._lock = threading.Lock()
        self._total = total
        self._done = 0
        self._findings = 0
        self._running: dict[str, int] = {}
        self._start = time.monotonic()
        self._live: Live | None = None
        if not quiet and self._stream.isatty():
            console = Console(file=self._stream, stderr=self._stream is sys.stderr)
            self._live = Live(
                get_renderable=self._render,
                console=console,
                refresh_per_second=REFRESH_PER_SECOND,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )

    def __enter__(self) -> Progress:
        if self._live is not None:
            self._live.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._live is not None:
            self._live.stop()

    def line(self, text: str) -> None:
        """A message that stays (printed above the live display); a server's text in it is
        made harmless to the terminal."""
        if self._quiet:
            return
        text = visible(text)
        if self._live is not None:
            self._live.console.print(Text(text))
        else:
            print(text, file=self._stream, flush=True)

    def started(self, name: str) -> None:
        with self._lock:
            self._running[name] = 0

    def called(self, name: str) -> None:
        with self._lock:
            if name in self._running:
                self._running[name] += 1

    def finished(self, report: ToolReport) -> None:
        with self._lock:
            self._running.pop(report.name, None)
            self._done += 1
            self._findings += report.distinct_violations + report.distinct_warnings
        counts = ", ".join(
            [
                plural(report.calls, "call"),
                plural(report.distinct_violations, "violation"),
                plural(report.distinct_warnings, "warning"),
            ]
        )
        self.line(f"  {report.name}: {counts} ({report.elapsed:.1f} s)")

    def _render(self) -> Text:
        with self._lock:
            elapsed = time.monotonic() - self._start
            text = Text(
                f"checking: {self._done}/{self._total} tools done, "
                f"{self._findings} findings, {elapsed:.0f} s"
            )
            for name, calls in self._running.items():
                text.append(f"\n  {visible(name)}: {calls} calls")
        return text
