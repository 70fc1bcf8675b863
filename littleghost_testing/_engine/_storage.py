"""Keeping Hypothesis' caches out of the user's folder while the engine runs.

Hypothesis writes ``.hypothesis/`` (a unicode table, the constants of local
modules) in the current directory even without an example database. The
engine points it at a cache folder of its own for the duration of a run, and
puts it back, so a pytest session around it keeps its own setting.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .._compat import home_directory, set_home_directory

__all__ = ["CACHE_DIRECTORY", "hypothesis_home"]

CACHE_DIRECTORY = Path(tempfile.gettempdir()) / "littleghost-hypothesis"
"""Where Hypothesis keeps its caches during a run: reused across runs, never in the cwd."""

_lock = threading.Lock()
_depth = 0
_previous: Path | None = None


@contextmanager
def hypothesis_home() -> Iterator[None]:
    """Hypothesis' home is ``CACHE_DIRECTORY`` inside; nested and threaded uses share it."""
    global _depth, _previous
    with _lock:
        if _depth == 0:
            _previous = home_directory()
            set_home_directory(CACHE_DIRECTORY)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                set_home_directory(_previous)
