"""Hostile model input to ``Tool.execute`` (issue 7, items 1 to 5).

Every case ends in an invalid-input or error result, never a crash, a hang or
an exception out of ``execute``. Cases that could crash the interpreter or
exhaust memory run in a child process under ``run_limited``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import pytest

import littleghost as lg
from littleghost_testing import ResourceSnapshot

from .sandbox import run_limited

pytestmark = pytest.mark.anyio

RECURSIVE_SCHEMA = {
    "$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    "type": "object",
    "properties": {"tree": {"$ref": "#/$defs/node"}},
}


class Tree(lg.Tool):
    description = "Accepts a tree of nested arrays."
    input_schema = RECURSIVE_SCHEMA

    def call(self, input: Any) -> Any:
        return "called"


def nested(depth: int, leaf: Any = None) -> Any:
    value: Any = [] if leaf is None else leaf
    for _ in range(depth - 1 if leaf is None else depth):
        value = [value]
    return value


# The process must survive: a native validator recursing over this input on a
# 256 KiB thread stack crashed the interpreter (SIGSEGV) before the depth bound.
DEEP_INPUT_IN_A_SMALL_THREAD = """
import threading, anyio, littleghost as lg
from tests.hostile.test_model_input import Tree, nested

outcome = []
async def main():
    for depth in ({depths}):
        result = await Tree().execute({{"tree": nested(depth)}})
        outcome.append((depth, result.status, result.content))

threading.stack_size(256 * 1024)
thread = threading.Thread(target=lambda: anyio.run(main, backend={backend!r}))
thread.start()
thread.join()
for depth, status, content in outcome:
    print(depth, status, content)
"""


async def run_snippet(code: str, *, memory_mb: int = 512, seconds: float = 60) -> Any:
    return await anyio.to_thread.run_sync(
        lambda: run_limited(code, memory_mb=memory_mb, seconds=seconds)
    )


async def test_deep_input_against_a_recursive_schema_never_crashes(
    anyio_backend: str, lg_leaks: Callable[..., ResourceSnapshot]
) -> None:
    snapshot = lg_leaks()
    code = DEEP_INPUT_IN_A_SMALL_THREAD.format(
        depths="63, 65, 1_000, 30_000", backend=anyio_backend
    )
    completed = await run_snippet(code)
    assert completed.returncode == 0, completed.stderr[-2000:]
    lines = completed.stdout.splitlines()
    assert lines[0] == "63 success called"
    for line, depth in zip(lines[1:], (65, 1_000, 30_000), strict=True):
        assert line == (f"{depth} error Invalid tool input: $ is nested deeper than 64 levels")
    await snapshot.assert_released()
