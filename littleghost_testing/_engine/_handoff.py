"""Prompt handoffs between the engine's thread and the event loop thread that makes its calls.

The engine generates the next input in its own thread while the event loop
thread sends the call before it and reads the answer. Both need the
interpreter lock, and CPython hands the lock from a busy thread to a waiting
one only after ``sys.getswitchinterval()`` (5 ms unless changed): longer
than a whole call to a fast server. So the call would wait for the next input
to be generated, then the generation for the answer, and generating ahead
would hide nothing. While a tool is fuzzed the interval is
``SWITCH_INTERVAL``, then set back.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["SWITCH_INTERVAL", "prompt_handoffs"]

SWITCH_INTERVAL = 0.0002
"""Seconds a busy thread keeps the interpreter lock from one waiting for it, while fuzzing."""

_lock = threading.Lock()
_users = 0
_previous = 0.0


@contextmanager
def prompt_handoffs() -> Iterator[None]:
    """Within, threads take turns every ``SWITCH_INTERVAL`` (at most; never longer than before).

    Nested and concurrent uses (one per worker thread) share the setting; the
    last to leave restores the interval found by the first.
    """
    global _users, _previous
    with _lock:
        if _users == 0:
            _previous = sys.getswitchinterval()
            sys.setswitchinterval(min(_previous, SWITCH_INTERVAL))
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                sys.setswitchinterval(_previous)
