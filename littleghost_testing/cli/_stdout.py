"""Writing to a stdout whose reader may leave early: ``littleghost call ... | head``."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["reader_may_leave"]


@contextlib.contextmanager
def reader_may_leave() -> Iterator[None]:
    """Write to stdout in the block; a reader that left ends the output quietly.

    Past a ``BrokenPipeError``, stdout points to the null device, so neither a
    later write nor the flush at exit raises (or prints a traceback) again.
    """
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
