"""``released``: an autouse fixture for hostile-case modules, asserting nothing leaked.

Import it into a test module (``from .released import released``) and every
test there, sync or async, fails if it leaves a child process, socket or
(non-pooled) thread behind. The snapshot is taken outside the event loop, so
tasks are checked by the tests that take their own ``lg_leaks`` snapshot.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from littleghost_testing import ResourceSnapshot

__all__ = ["released"]

_WITHIN = 5.0


@pytest.fixture(autouse=True)
def released(lg_leaks: Callable[..., ResourceSnapshot]) -> Iterator[None]:
    snapshot = lg_leaks()
    yield
    deadline = time.monotonic() + _WITHIN
    while (left := snapshot.leftovers()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not left, f"still held after {_WITHIN} s: {left}"
