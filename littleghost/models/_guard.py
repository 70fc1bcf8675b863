"""The request guard: real model providers refuse to run while it is closed.

The testing kit's pytest plugin closes it for every test, so a test cannot
reach a paid, slow, non-deterministic model by accident; a test marked
``@pytest.mark.allow_model_requests`` opens it. Outside pytest it is open.
It is process-wide (not task-local) so that it also covers runs that
application code starts in other threads or event loops.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .._errors import LittleGhostError

__all__ = [
    "ModelRequestsBlockedError",
    "allow_model_requests",
    "check_model_requests_allowed",
    "model_requests_allowed",
]

_lock = threading.Lock()
_allowed = True


class ModelRequestsBlockedError(LittleGhostError):
    """A real model provider was asked to send a request while the guard is closed."""


def model_requests_allowed() -> bool:
    """Whether real model providers may send requests now."""
    return _allowed


@contextmanager
def allow_model_requests(allowed: bool = True) -> Iterator[None]:
    """Open (or, with ``False``, close) the guard inside the block; then restore it."""
    global _allowed
    if not isinstance(allowed, bool):
        raise TypeError(f"allowed must be a bool, not {type(allowed).__name__}")
    with _lock:
        previous, _allowed = _allowed, allowed
    try:
        yield
    finally:
        with _lock:
            _allowed = previous


def check_model_requests_allowed(provider: str) -> None:
    """Call before every real request; ``ModelRequestsBlockedError`` when the guard is closed."""
    if not _allowed:
        raise ModelRequestsBlockedError(
            f"Real model requests are blocked here ({provider}): use ScriptedModel or "
            "AutoModel in tests, or mark the test @pytest.mark.allow_model_requests"
        )
