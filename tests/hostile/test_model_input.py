"""Hostile model input to ``Tool.execute`` (issue 7, items 1 to 5).

Every case ends in an invalid-input or error result, never a crash, a hang or
an exception out of ``execute``. Cases that could crash the interpreter or
exhaust memory run in a child process under ``run_limited``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest

import littleghost as lg
from littleghost_testing import ResourceSnapshot

from .released import released
from .sandbox import run_limited

pytestmark = pytest.mark.anyio
__all__ = ["released"]  # autouse: no test leaves a process, socket or thread

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


@pytest.mark.parametrize("levels", [500, 5_000])
def test_a_schema_nested_hundreds_of_levels_is_a_configuration_error(levels: int) -> None:
    schema: Any = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    with pytest.raises(lg.ConfigurationError, match="nested deeper than 128 levels"):
        type("Deep", (lg.Tool,), {"description": "d", "input_schema": schema, "call": Tree.call})


def test_a_cyclic_schema_is_a_configuration_error() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    with pytest.raises(lg.ConfigurationError, match=r"a cycle"):
        type("Cyclic", (lg.Tool,), {"description": "d", "input_schema": schema, "call": Tree.call})


class Anything(lg.Tool):
    description = "Accepts any object."
    input_schema = {"type": "object"}

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def call(self, input: Any) -> Any:
        self.calls += 1
        return "called"


async def test_cyclic_input_is_an_invalid_input_result() -> None:
    tool = Anything()
    loop: dict[str, Any] = {"name": "x"}
    loop["x"] = loop
    result = await tool.execute(loop)
    assert result.content == "Invalid tool input: $.x refers back to $ (a cycle)"
    inner: list[Any] = [1]
    inner.append({"deeper": inner})
    result = await tool.execute({"list": inner})
    assert result.content == "Invalid tool input: $.list[1].deeper refers back to $.list (a cycle)"
    assert tool.calls == 0


async def test_a_wide_cycle_is_found_without_walking_its_expansion() -> None:
    wide: dict[str, Any] = {}
    for index in range(2_000):
        wide[f"k{index}"] = wide  # level n of the unrolled value would hold 2000**n entries
    started = time.monotonic()
    result = await Anything().execute(wide)
    assert result.content == "Invalid tool input: $.k0 refers back to $ (a cycle)"
    assert time.monotonic() - started < 5


async def test_shared_values_that_form_no_cycle_are_valid() -> None:
    shared = {"a": [1, 2]}
    tool = Anything()
    result = await tool.execute({"first": shared, "second": shared, "list": [shared, shared]})
    assert result.content == "called"
    deep: Any = []
    for _ in range(40):
        deep = [deep]
    shallow_then_deep = {
        "short": deep,
        "long": [[[[[[[[[[[[[[[[[[[[[[[[[deep]]]]]]]]]]]]]]]]]]]]]]]]],
    }
    result = await tool.execute(shallow_then_deep)
    assert result.content == "Invalid tool input: $ is nested deeper than 64 levels"


async def test_shared_values_that_expand_past_the_bound_are_invalid() -> None:
    doubling: Any = [1]
    for _ in range(60):
        doubling = [doubling, doubling]  # 61 containers, 2**60 values once unrolled
    result = await Tree().execute({"tree": doubling})
    assert result.content == (
        "Invalid tool input: $ repeats shared values until it holds over 10,000,000 values"
    )


class StrRaises(lg.ToolError):
    def __str__(self) -> str:
        raise RuntimeError("secret: postgres://admin:hunter2@db")


class IterRaises(dict[str, Any]):
    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("secret: hunter2")

    def keys(self) -> Any:
        raise RuntimeError("secret: hunter2")


async def test_a_tool_error_whose_str_raises_is_a_sanitized_result() -> None:
    class Failing(lg.Tool):
        description = "Raises an unprintable ToolError."

        async def call(self, input: Any) -> Any:
            raise StrRaises()

    result = await Failing().execute({})
    assert result.is_error and result.content == "Tool failed (StrRaises)"
    assert isinstance(result.error, StrRaises)


async def test_input_whose_iteration_raises_is_an_invalid_input_result() -> None:
    tool = Anything()
    for hostile in (IterRaises(a=1), {"nested": [IterRaises(b=2)]}):
        result = await tool.execute(hostile)
        assert result.is_error
        assert result.content == "Invalid tool input: $ cannot be read as JSON (RuntimeError)"
        assert "hunter2" not in result.content
    assert tool.calls == 0


class Names(lg.Tool):
    description = "Takes names."
    input_schema = {
        "type": "object",
        "properties": {
            "names": {"type": "array", "items": {"type": "string"}},
            "tags": {"type": "array", "contains": {"const": "urgent"}},
            "one": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "ids": {"type": "array", "contains": {"type": "integer"}, "maxContains": 1},
            "mode": {"enum": [f"mode-{index}-{'x' * 40}" for index in range(100)]},
        },
        "additionalProperties": False,
    }

    def call(self, input: Any) -> Any:
        return "called"


# A few KiB: at most MAX_LISTED_VIOLATIONS short violations.
REPORT_BOUND = 4096


async def test_a_million_wrong_items_give_a_short_report_quickly() -> None:
    started = time.perf_counter()
    result = await Names().execute({"names": [0] * 1_000_000})
    elapsed = time.perf_counter() - started
    assert result.content == "Invalid tool input: $.names[0] must be string; and possibly more"
    assert elapsed < 2  # ~15 ms on a quiet machine; bench/hostile.py measures it


async def test_a_few_violations_are_listed_then_counted() -> None:
    result = await Names().execute({"names": list(range(500)), "extra": 1})
    listed = result.content.removeprefix("Invalid tool input: ").split("; ")
    assert listed[:8] == [f"$.names[{index}] must be string" for index in range(8)]
    assert listed[8:] == ["and 493 more"]  # 500 names and one unexpected property
    assert len(result.content) < REPORT_BOUND


@pytest.mark.parametrize(
    ("input", "expected"),
    [
        ({"tags": ["x"] * 100_000}, "$.tags must contain an item that matches 'contains'"),
        ({"one": list(range(100_000))}, "$.one must match at least one of the anyOf schemas"),
        ({"ids": [1, 1]}, "$.ids must contain fewer items that match 'contains' (maxContains)"),
        ({"tags": ["x" * 1_000_000]}, "$.tags must contain an item that matches 'contains'"),
        ({"x" * 100_000: 1}, '$["xxxx'),
    ],
    ids=["contains", "anyOf", "maxContains", "long-string", "long-key"],
)
async def test_messages_quote_excerpts_not_the_input(input: Any, expected: str) -> None:
    result = await Names().execute(input)
    assert result.content.startswith(f"Invalid tool input: {expected}")
    assert len(result.content) < REPORT_BOUND


async def test_a_huge_enum_is_excerpted() -> None:
    result = await Names().execute({"mode": "warp"})
    assert result.content.startswith('Invalid tool input: $.mode must be one of ["mode-0-')
    assert result.content.endswith("…")
    assert len(result.content) < 200


MANY_WRONG_ITEMS = """
import anyio
from tests.hostile.test_model_input import Names

async def main():
    result = await Names().execute({{"names": [0] * {count}}})
    print(len(result.content), result.content)

anyio.run(main, backend={backend!r})
"""


async def test_ten_million_wrong_items_stay_within_memory(
    anyio_backend: str, lg_leaks: Callable[..., ResourceSnapshot]
) -> None:
    snapshot = lg_leaks()
    code = MANY_WRONG_ITEMS.format(count=10_000_000, backend=anyio_backend)
    completed = await run_snippet(code, memory_mb=640, seconds=60)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip().endswith("$.names[0] must be string; and possibly more")
    await snapshot.assert_released()


async def test_max_input_depth_is_a_class_attribute_to_raise_or_lower() -> None:
    class Shallow(Tree):
        max_input_depth = 3

    class Deep(Tree):
        max_input_depth = 500

    assert (await Shallow().execute({"tree": nested(2)})).content == "called"
    assert (await Shallow().execute({"tree": nested(3)})).content == (
        "Invalid tool input: $ is nested deeper than 3 levels"
    )
    assert (await Deep().execute({"tree": nested(400)})).content == "called"
    for bad in (0, -1, 2.5, "64", True):
        with pytest.raises(lg.ConfigurationError, match="max_input_depth"):
            type("Bad", (Tree,), {"max_input_depth": bad})
