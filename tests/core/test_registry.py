"""ToolRegistry (docs/tools.md): entries, names, lifecycle, closing and the exclusive lock.

Unhappy paths first: what the registry refuses, what it closes when something
fails, and what it guarantees under cancellation. Then the happy paths.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import anyio.lowlevel
import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio

# A lifecycle log: ("init" | "close", tool_name, id(instance)), in the order it happened.
Log = list[tuple[str, str, int]]


def make_tool(
    name: str,
    log: Log | None = None,
    *,
    close: str = "sync",
    close_error: Exception | None = None,
    description: str | None = "A probe.",
    exclusive: bool = False,
    available_if: Callable[[lg.Binding], bool] | None = None,
) -> type[lg.Tool]:
    """A Tool subclass named ``name`` that records its construction and closing in ``log``."""
    events: Log = [] if log is None else log

    def __init__(self: lg.Tool, binding: lg.Binding | None = None) -> None:
        lg.Tool.__init__(self, binding)
        events.append(("init", self.tool_name, id(self)))

    def close_sync(self: lg.Tool) -> None:
        events.append(("close", self.tool_name, id(self)))
        if close_error is not None:
            raise close_error

    async def close_async(self: lg.Tool) -> None:
        await anyio.sleep(0.01)  # a real await: only a shielded close gets past it when cancelled
        events.append(("close", self.tool_name, id(self)))
        if close_error is not None:
            raise close_error

    async def call(self: lg.Tool, input: Any) -> Any:
        return self.tool_name

    namespace: dict[str, Any] = {
        "tool_name": name,
        "description": description,
        "exclusive": exclusive,
        "available_if": None if available_if is None else staticmethod(available_if),
        "__init__": __init__,
        "close": close_async if close == "async" else close_sync,
        "call": call,
    }
    return type(f"Probe_{len(name)}", (lg.Tool,), namespace)


def inits(log: Log) -> list[int]:
    return [ident for kind, _, ident in log if kind == "init"]


def closes(log: Log) -> list[int]:
    return [ident for kind, _, ident in log if kind == "close"]


def closed_names(log: Log) -> list[str]:
    return [name for kind, name, _ in log if kind == "close"]


def assert_all_closed_once_in_reverse(log: Log) -> None:
    """Every instance built was closed exactly once, newest first."""
    assert closes(log) == list(reversed(inits(log)))


class Provider:
    """An object with ``tools(binding)``: sync or async, returning more entries."""

    def __init__(self, entries: Any, *, asynchronous: bool = False) -> None:
        self.entries = entries
        self.asynchronous = asynchronous
        self.bindings: list[lg.Binding] = []

    def tools(self, binding: lg.Binding) -> Any:
        self.bindings.append(binding)
        if not self.asynchronous:
            return self.entries

        async def produce() -> Any:
            await anyio.lowlevel.checkpoint()
            return self.entries

        return produce()


class Mystery:
    def __repr__(self) -> str:
        return "<Mystery entry>"


# -- entries the registry refuses -----------------------------------------------


@pytest.mark.parametrize(
    "entry",
    [
        "ticket_status",
        42,
        3.5,
        True,
        b"bytes",
        {"name": "ticket_status"},
        {1, 2},
        Mystery(),
        lambda: None,
        int,
    ],
    ids=lambda entry: type(entry).__name__,
)
async def test_unsupported_entry_is_a_configuration_error_naming_it(entry: Any) -> None:
    registry = lg.ToolRegistry([entry])
    with pytest.raises(lg.ConfigurationError, match=re.escape(repr(entry))):
        await registry.open()


async def test_unsupported_entry_deep_in_lists_and_providers_is_named() -> None:
    log: Log = []
    entries = [make_tool("a", log), [(None, Provider([[Provider([Mystery()])]]))]]
    with pytest.raises(lg.ConfigurationError, match="<Mystery entry>"):
        async with lg.ToolRegistry(entries):
            pytest.fail("the registry must not open")
    assert_all_closed_once_in_reverse(log)
    assert len(inits(log)) == 1


@pytest.mark.parametrize(
    "name",
    [
        "a" * 65,
        "two words",
        " leading",
        "",
        "naïve",
        "tool😀",
        "\uff54\uff4f\uff4f\uff4c",  # fullwidth "tool"
        "٣",  # an Arabic-Indic digit: not [0-9]
        "dot.name",
        "slash/name",
        "colon:name",
        "trailing\n",
        "new\nline",
        "tab\t",
    ],
)
async def test_invalid_tool_name_is_a_configuration_error(name: str) -> None:
    log: Log = []
    entries = [make_tool("first", log), make_tool(name, log)]
    with pytest.raises(lg.ConfigurationError, match=re.escape(repr(name))):
        async with lg.ToolRegistry(entries):
            pytest.fail("the registry must not open")
    # Both instances were built; both are closed, the bad one first.
    assert len(inits(log)) == 2
    assert_all_closed_once_in_reverse(log)


@pytest.mark.parametrize("name", ["a" * 64, "a", "Z", "0", "-", "_", "A-Z_a-z_0-9", "get-ticket_2"])
async def test_valid_tool_names_are_accepted(name: str) -> None:
    async with lg.ToolRegistry([make_tool(name)]) as registry:
        assert registry.names == (name,)
        assert (await registry.call(name, {})).value == name


@pytest.mark.parametrize("description", [None, "", "   \n"])
async def test_a_description_is_required(description: str | None) -> None:
    log: Log = []
    with pytest.raises(lg.ConfigurationError, match=r"\bmute\b.*description"):
        async with lg.ToolRegistry(
            [make_tool("ok", log), make_tool("mute", log, description=description)]
        ):
            pytest.fail("the registry must not open")
    assert_all_closed_once_in_reverse(log)


async def test_name_collision_between_classes_has_the_exact_message() -> None:
    log: Log = []
    entries = [make_tool("dup", log), make_tool("other", log), make_tool("dup", log)]
    with pytest.raises(lg.ConfigurationError) as caught:
        async with lg.ToolRegistry(entries):
            pytest.fail("the registry must not open")
    assert str(caught.value) == "Tool name collision: dup"
    assert len(inits(log)) == 3
    assert_all_closed_once_in_reverse(log)


async def test_name_collision_between_two_instances_of_one_class() -> None:
    log: Log = []
    Dup = make_tool("dup", log)
    first, second = Dup(), Dup()
    with pytest.raises(lg.ConfigurationError) as caught:
        async with lg.ToolRegistry([first, Provider([second], asynchronous=True)]):
            pytest.fail("the registry must not open")
    assert str(caught.value) == "Tool name collision: dup"
    assert closes(log) == [id(second), id(first)]


async def test_the_same_instance_twice_is_one_tool_closed_once() -> None:
    log: Log = []
    tool = make_tool("once", log)()
    async with lg.ToolRegistry([tool, [tool], Provider([tool])]) as registry:
        assert registry.names == ("once",)
        assert registry["once"] is tool
    assert closes(log) == [id(tool)]


# -- failures while resolving entries ---------------------------------------------


class ProviderFailure(Exception):
    pass


class RaisingProvider:
    def __init__(self, error: BaseException, *, asynchronous: bool) -> None:
        self.error = error
        self.asynchronous = asynchronous

    def tools(self, binding: lg.Binding) -> Any:
        if not self.asynchronous:
            raise self.error

        async def fail() -> Any:
            await anyio.lowlevel.checkpoint()
            raise self.error

        return fail()


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_a_raising_provider_closes_what_was_built_and_re_raises_the_original(
    asynchronous: bool,
) -> None:
    log: Log = []
    error = ProviderFailure("the directory is down")
    entries = [
        make_tool("a", log),
        make_tool("b", log, close="async"),
        RaisingProvider(error, asynchronous=asynchronous),
        make_tool("never", log),
    ]
    registry = lg.ToolRegistry(entries)
    with pytest.raises(ProviderFailure) as caught:
        async with registry:
            pytest.fail("the registry must not open")
    assert caught.value is error
    assert closed_names(log) == ["b", "a"]
    assert_all_closed_once_in_reverse(log)
    # The failed registry is closed: it refuses to be used.
    with pytest.raises(lg.ConfigurationError):
        await registry.call("a", {})


async def test_a_failure_while_resolving_with_a_failing_close_keeps_the_original_error() -> None:
    log: Log = []
    error = ProviderFailure("provider broke")
    entries = [
        make_tool("a", log),
        make_tool("b", log, close_error=OSError("b would not close")),
        RaisingProvider(error, asynchronous=True),
    ]
    with pytest.raises(ProviderFailure) as caught:
        async with lg.ToolRegistry(entries):
            pytest.fail("the registry must not open")
    assert caught.value is error
    assert any("b would not close" in note for note in caught.value.__notes__)
    assert closed_names(log) == ["b", "a"]  # the failing close did not stop the next one


async def test_cancellation_while_resolving_closes_what_was_built() -> None:
    log: Log = []

    class SlowProvider:
        async def tools(self, binding: lg.Binding) -> Any:
            await anyio.sleep(10)
            return []

    entries = [
        make_tool("a", log, close="async"),
        make_tool("b", log, close="async"),
        SlowProvider(),
        make_tool("never", log),
    ]
    started = time.monotonic()
    with anyio.move_on_after(0.05) as scope:
        async with lg.ToolRegistry(entries):
            pytest.fail("the registry must not open")
    assert scope.cancelled_caught
    assert time.monotonic() - started < 5
    # The async closes awaited inside a cancelled scope and still completed.
    assert closed_names(log) == ["b", "a"]
    assert_all_closed_once_in_reverse(log)


async def test_nesting_too_deep_is_a_configuration_error() -> None:
    entry: Any = make_tool("deep")
    for _ in range(100):
        entry = [entry]
    with pytest.raises(lg.ConfigurationError, match="nest"):
        async with lg.ToolRegistry(entry):
            pytest.fail("the registry must not open")


async def test_a_provider_that_returns_itself_is_refused_not_an_endless_loop() -> None:
    class Mirror:
        def tools(self, binding: lg.Binding) -> Any:
            return self

    with anyio.fail_after(5), pytest.raises(lg.ConfigurationError):
        async with lg.ToolRegistry([Mirror()]):
            pytest.fail("the registry must not open")


# -- lookup and calls outside the contract ----------------------------------------


async def test_looking_up_an_unknown_name_raises_tool_error() -> None:
    async with lg.ToolRegistry([make_tool("known")]) as registry:
        with pytest.raises(lg.ToolError) as caught:
            registry["unknown"]
        assert str(caught.value) == "Unknown tool: unknown"
        with pytest.raises(lg.ToolError, match=r"^Unknown tool: \['not', 'hashable'\]$"):
            registry[["not", "hashable"]]  # type: ignore[arg-type]


async def test_call_unknown_name_is_an_error_result() -> None:
    async with lg.ToolRegistry([make_tool("known")]) as registry:
        result = await registry.call("unknown", {"any": "thing"})
    assert result.is_error and not result.is_success
    assert result.status == "error"
    assert result.content == "Unknown tool: unknown"
    assert isinstance(result.error, lg.ToolError)
    assert result.value is None


async def test_using_a_registry_before_open_is_a_configuration_error() -> None:
    registry = lg.ToolRegistry([make_tool("early")])
    with pytest.raises(lg.ConfigurationError):
        await registry.call("early", {})
    with pytest.raises(lg.ConfigurationError):
        await registry.register(make_tool("late"))
    assert registry.names == ()


async def test_using_a_registry_after_close_is_a_configuration_error() -> None:
    log: Log = []
    registry = lg.ToolRegistry([make_tool("gone", log)])
    async with registry:
        pass
    with pytest.raises(lg.ConfigurationError):
        await registry.call("gone", {})
    with pytest.raises(lg.ConfigurationError):
        await registry.register(make_tool("late", log))
    with pytest.raises(lg.ConfigurationError):
        await registry.open()
    with pytest.raises(lg.ToolError):
        registry["gone"]
    assert registry.names == ()
    assert closed_names(log) == ["gone"]  # "late" was never built


async def test_opening_twice_is_a_configuration_error() -> None:
    async with lg.ToolRegistry([make_tool("one")]) as registry:
        with pytest.raises(lg.ConfigurationError):
            await registry.open()
        assert registry.names == ("one",)


# -- closing ------------------------------------------------------------------------


async def test_close_failures_are_collected_in_close_order_after_trying_every_close() -> None:
    log: Log = []
    first_error = ValueError("a failed")
    third_error = RuntimeError("c failed")
    entries = [
        make_tool("a", log, close_error=first_error),
        make_tool("b", log, close="async"),
        make_tool("c", log, close="async", close_error=third_error),
        make_tool("d", log),
    ]
    with pytest.raises(lg.CleanupError) as caught:
        async with lg.ToolRegistry(entries):
            pass
    assert caught.value.errors == (third_error, first_error)
    assert "a failed" in str(caught.value) and "c failed" in str(caught.value)
    assert closed_names(log) == ["d", "c", "b", "a"]


async def test_closing_is_once_in_reverse_order_with_sync_and_async_close() -> None:
    log: Log = []
    instance = make_tool("given", log, close="async")()
    entries = [
        make_tool("a", log),
        Provider([make_tool("b", log, close="async")], asynchronous=True),
        instance,
        [make_tool("c", log)],
    ]
    registry = lg.ToolRegistry(entries)
    async with registry:
        pass
    await registry.aclose()  # a second close is a no-op
    assert closed_names(log) == ["c", "given", "b", "a"]
    assert sorted(closes(log)) == sorted(inits(log))  # each instance exactly once


async def test_an_exception_in_the_block_still_closes_every_tool() -> None:
    log: Log = []
    with pytest.raises(KeyError):
        async with lg.ToolRegistry([make_tool("a", log), make_tool("b", log, close="async")]):
            raise KeyError("body")
    assert closed_names(log) == ["b", "a"]


async def test_closing_while_the_surrounding_scope_is_cancelled_closes_everything() -> None:
    log: Log = []
    entries = [
        make_tool("a", log, close="async"),
        make_tool("b", log),
        make_tool("c", log, close="async"),
    ]
    with anyio.CancelScope() as scope:
        async with lg.ToolRegistry(entries):
            scope.cancel()
            await anyio.sleep(10)
    assert scope.cancelled_caught
    assert closed_names(log) == ["c", "b", "a"]


async def test_aclose_called_in_a_cancelled_scope_closes_everything() -> None:
    log: Log = []
    registry = lg.ToolRegistry(
        [make_tool("a", log, close="async"), make_tool("b", log, close="async")]
    )
    await registry.open()
    with anyio.CancelScope() as scope:
        scope.cancel()
        await registry.aclose()
    assert closed_names(log) == ["b", "a"]


# -- register and replace -------------------------------------------------------------


async def test_register_collision_has_the_exact_message_and_keeps_the_original() -> None:
    log: Log = []
    async with lg.ToolRegistry([make_tool("dup", log)]) as registry:
        original = registry["dup"]
        with pytest.raises(lg.ConfigurationError) as caught:
            await registry.register(make_tool("dup", log))
        assert str(caught.value) == "Tool name collision: dup"
        assert registry["dup"] is original
        assert registry.names == ("dup",)
        assert closes(log) == []
    assert_all_closed_once_in_reverse(log)  # the refused instance is not leaked


async def test_register_replace_swaps_the_tool_and_closes_the_replaced_once() -> None:
    log: Log = []
    Old, New = make_tool("swap", log, close="async"), make_tool("swap", log)
    async with lg.ToolRegistry(
        [make_tool("before", log), Old, make_tool("after", log)]
    ) as registry:
        old = registry["swap"]
        await registry.register(New, replace=True)
        new = registry["swap"]
        assert isinstance(new, New) and new is not old
        assert closes(log) == [id(old)]  # closed right away
        assert registry.names == ("before", "swap", "after")  # same position
        assert (await registry.call("swap", {})).value == "swap"
    # The replaced instance is not closed a second time; the new one is closed once.
    assert closes(log).count(id(old)) == 1
    assert closes(log).count(id(new)) == 1
    assert sorted(closes(log)) == sorted(inits(log))


async def test_register_replace_with_the_same_instance_does_not_close_it() -> None:
    log: Log = []
    tool = make_tool("same", log)()
    async with lg.ToolRegistry([tool]) as registry:
        await registry.register(tool, replace=True)
        assert registry["same"] is tool
        assert closes(log) == []
    assert closes(log) == [id(tool)]


async def test_register_replace_closes_the_replaced_even_when_cancelled() -> None:
    log: Log = []
    async with lg.ToolRegistry([make_tool("swap", log, close="async")]) as registry:
        old = registry["swap"]
        with anyio.CancelScope() as scope:
            scope.cancel()
            await registry.register(make_tool("swap", log), replace=True)
        assert closes(log) == [id(old)]
    assert sorted(closes(log)) == sorted(inits(log))


async def test_register_replace_close_failure_is_a_cleanup_error_and_the_swap_stands() -> None:
    log: Log = []
    error = OSError("old would not close")
    async with lg.ToolRegistry([make_tool("swap", log, close_error=error)]) as registry:
        old = registry["swap"]
        with pytest.raises(lg.CleanupError) as caught:
            await registry.register(make_tool("swap", log, close="async"), replace=True)
        assert caught.value.errors == (error,)
        assert registry["swap"] is not old
    assert closes(log).count(id(old)) == 1
    assert sorted(closes(log)) == sorted(inits(log))


async def test_register_adds_entries_at_the_end() -> None:
    log: Log = []
    async with lg.ToolRegistry([make_tool("a", log)]) as registry:
        await registry.register(
            [make_tool("b", log), Provider([make_tool("c", log)], asynchronous=True)]
        )
        await registry.register(make_tool("d", log), replace=True)  # nothing to replace
        assert registry.names == ("a", "b", "c", "d")
    assert closed_names(log) == ["d", "c", "b", "a"]


# -- entries the registry accepts ---------------------------------------------------------


async def test_unavailable_tool_class_is_never_constructed() -> None:
    log: Log = []
    seen: list[lg.Binding] = []

    def never(binding: lg.Binding) -> bool:
        seen.append(binding)
        return False

    binding = lg.Binding(workspace="/tmp/ws")
    async with lg.ToolRegistry(
        [make_tool("hidden", log, available_if=never)], binding=binding
    ) as registry:
        assert registry.names == ()
        assert "hidden" not in registry
    assert log == []
    assert seen == [binding]


async def test_available_tool_class_is_constructed_with_the_binding() -> None:
    log: Log = []
    binding = lg.Binding(workspace="/tmp/ws", model="m")
    Gated = make_tool("gated", log, available_if=lambda b: b.workspace == "/tmp/ws")
    Plain = make_tool("plain", log)
    async with lg.ToolRegistry([Gated, Plain], binding=binding) as registry:
        assert registry.names == ("gated", "plain")
        assert registry["gated"].binding is binding
        assert registry["plain"].workspace == "/tmp/ws"
        assert registry.binding is binding
    async with lg.ToolRegistry([Gated, Plain]) as registry:
        assert registry.names == ("plain",)  # the default Binding has no workspace
        assert registry["plain"].binding == lg.Binding()


async def test_instances_are_kept_as_they_are_and_owned() -> None:
    log: Log = []
    own_binding = lg.Binding(agent="theirs")
    tool = make_tool("mine", log)(binding=own_binding)
    async with lg.ToolRegistry([tool], binding=lg.Binding(agent="registry")) as registry:
        assert registry["mine"] is tool
        assert tool.agent == "theirs"
    assert closes(log) == [id(tool)]


async def test_lists_tuples_none_and_providers_resolve_in_order() -> None:
    log: Log = []
    binding = lg.Binding(runtime="rt")
    inner = Provider([make_tool("e", log), None], asynchronous=True)
    outer = Provider((make_tool("d", log), inner))
    sync_provider = Provider(make_tool("f", log))
    empty = Provider(None, asynchronous=True)
    entries = [
        None,
        make_tool("a", log),
        [[make_tool("b", log)], (None, make_tool("c", log))],
        outer,
        [],
        (),
        sync_provider,
        empty,
    ]
    async with lg.ToolRegistry(entries, binding=binding) as registry:
        assert registry.names == ("a", "b", "c", "d", "e", "f")
        assert len(registry) == 6
        assert [tool.tool_name for tool in registry] == list(registry.names)
        assert "d" in registry and "zz" not in registry
        assert registry.specifications == tuple(
            registry[name].specification() for name in registry.names
        )
        assert [spec["name"] for spec in registry.specifications] == list(registry.names)
        assert all(tool.binding is binding for tool in registry)
    assert outer.bindings == inner.bindings == sync_provider.bindings == [binding]
    assert closed_names(log) == ["f", "e", "d", "c", "b", "a"]


async def test_specifications_are_frozen_and_json_ready() -> None:
    import json

    class Lookup(lg.Tool):
        tool_name = "lookup"
        description = "Look something up."
        input_schema = {"type": "object", "properties": {"q": {"type": "string"}}}

        def call(self, input: Any) -> Any:
            return input["q"]

    async with lg.ToolRegistry([Lookup]) as registry:
        (spec,) = registry.specifications
        assert spec == {
            "name": "lookup",
            "description": "Look something up.",
            "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
        json.dumps(spec)
        with pytest.raises(TypeError):
            spec["name"] = "other"  # type: ignore[index]
        with pytest.raises(TypeError):
            spec["input_schema"]["properties"]["q"]["type"] = "integer"  # type: ignore[index]
        result = await registry.call("lookup", {"q": "x"}, context=lg.RunContext())
        assert result.value == "x"
        invalid = await registry.call("lookup", {"q": 1})
        assert invalid.is_error and invalid.content.startswith("Invalid tool input: ")


# -- the exclusive lock ---------------------------------------------------------------------


class Overlap:
    """Counts how many exclusive and shared calls are running at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.exclusive = 0
        self.shared = 0
        self.max_exclusive = 0
        self.max_shared = 0
        self.shared_during_exclusive = 0
        self.intervals: list[tuple[float, float]] = []

    def enter(self, exclusive: bool) -> float:
        with self.lock:
            if exclusive:
                self.exclusive += 1
                self.max_exclusive = max(self.max_exclusive, self.exclusive)
            else:
                self.shared += 1
                self.max_shared = max(self.max_shared, self.shared)
            if self.exclusive and self.shared:
                self.shared_during_exclusive += 1
        return time.perf_counter()

    def exit(self, exclusive: bool, started: float) -> None:
        with self.lock:
            if exclusive:
                self.exclusive -= 1
                self.intervals.append((started, time.perf_counter()))
            else:
                self.shared -= 1


def overlap_tools(overlap: Overlap) -> list[type[lg.Tool]]:
    class ExclusiveAsync(lg.Tool):
        description = "Exclusive, async."
        exclusive = True

        async def call(self, input: Any) -> Any:
            started = overlap.enter(True)
            await anyio.sleep(0.003)
            overlap.exit(True, started)
            return input["i"]

    class ExclusiveSync(lg.Tool):
        description = "Exclusive, in a worker thread."
        exclusive = True

        def call(self, input: Any) -> Any:
            started = overlap.enter(True)
            time.sleep(0.003)
            overlap.exit(True, started)
            return input["i"]

    class SharedAsync(lg.Tool):
        description = "Not exclusive, async."

        async def call(self, input: Any) -> Any:
            started = overlap.enter(False)
            await anyio.sleep(0.02)
            overlap.exit(False, started)
            return input["i"]

    class SharedSync(lg.Tool):
        description = "Not exclusive, in a worker thread."

        def call(self, input: Any) -> Any:
            started = overlap.enter(False)
            time.sleep(0.02)
            overlap.exit(False, started)
            return input["i"]

    return [ExclusiveAsync, ExclusiveSync, SharedAsync, SharedSync]


async def test_exclusive_tools_never_overlap_while_others_run_concurrently() -> None:
    overlap = Overlap()
    tools = overlap_tools(overlap)
    names = ["exclusive_async", "shared_async", "exclusive_sync", "shared_sync"]
    results: dict[int, lg.ExecutionResult] = {}

    async with lg.ToolRegistry(tools) as registry:
        assert sorted(registry.names) == sorted(names)

        async def one(i: int) -> None:
            context = lg.RunContext() if i % 3 else None  # with and without a context
            results[i] = await registry.call(names[i % 4], {"i": i}, context=context)

        with anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                for i in range(50):
                    group.start_soon(one, i)

    assert sorted(results) == list(range(50))
    assert all(result.is_success and result.value == i for i, result in results.items())
    assert overlap.max_exclusive == 1
    assert overlap.max_shared > 1
    assert overlap.shared_during_exclusive > 0  # the lock is only for exclusive tools
    intervals = sorted(overlap.intervals)
    assert len(intervals) == 25
    for (_, end), (start, _) in itertools.pairwise(intervals):
        assert end <= start


def holder_and_waiter() -> tuple[type[lg.Tool], type[lg.Tool], anyio.Event, anyio.Event]:
    entered, release = anyio.Event(), anyio.Event()

    class Holder(lg.Tool):
        description = "Holds the exclusive lock until released."
        exclusive = True

        async def call(self, input: Any) -> Any:
            entered.set()
            await release.wait()
            return "held"

    class Waiter(lg.Tool):
        description = "Needs the exclusive lock."
        exclusive = True

        async def call(self, input: Any) -> Any:
            return "ran"

    return Holder, Waiter, entered, release


@pytest.mark.parametrize("stop", ["cancel", "deadline"])
async def test_a_stopped_context_while_waiting_for_the_lock_raises_and_leaves_it_free(
    stop: str,
) -> None:
    Holder, Waiter, entered, release = holder_and_waiter()
    held: list[lg.ExecutionResult] = []
    async with lg.ToolRegistry([Holder, Waiter]) as registry:
        async with anyio.create_task_group() as group:

            async def hold() -> None:
                held.append(await registry.call("holder", {}))

            group.start_soon(hold)
            await entered.wait()

            if stop == "cancel":
                context = lg.RunContext()
                stopped_at = time.monotonic() + 0.05

                async def cancel_soon() -> None:
                    await anyio.sleep(0.05)
                    context.cancellation.cancel("user pressed stop")

                group.start_soon(cancel_soon)
                expected: type[BaseException] = lg.CancelledError
            else:
                context = lg.RunContext.with_timeout(0.05)
                assert context.deadline is not None
                stopped_at = context.deadline
                expected = lg.DeadlineExceededError

            with anyio.fail_after(5), pytest.raises(expected) as caught:
                await registry.call("waiter", {}, context=context)
            assert time.monotonic() - stopped_at < 0.2
            if stop == "cancel":
                assert "user pressed stop" in str(caught.value)
            release.set()

        assert [result.value for result in held] == ["held"]
        # The waiter never took the lock: a later exclusive call proceeds.
        with anyio.fail_after(2):
            assert (await registry.call("waiter", {})).value == "ran"
            assert (await registry.call("holder", {}, context=lg.RunContext())).is_success


async def test_an_already_cancelled_context_never_waits_for_the_lock() -> None:
    Holder, Waiter, entered, release = holder_and_waiter()
    context = lg.RunContext()
    context.cancellation.cancel()
    async with lg.ToolRegistry([Holder, Waiter]) as registry:
        async with anyio.create_task_group() as group:
            group.start_soon(registry.call, "holder", {})
            await entered.wait()
            with anyio.fail_after(1), pytest.raises(lg.CancelledError):
                await registry.call("waiter", {}, context=context)
            release.set()
        assert (await registry.call("waiter", {})).value == "ran"


async def test_native_cancellation_while_waiting_for_the_lock_leaves_it_free() -> None:
    Holder, Waiter, entered, release = holder_and_waiter()
    async with lg.ToolRegistry([Holder, Waiter]) as registry:
        async with anyio.create_task_group() as group:
            group.start_soon(registry.call, "holder", {})
            await entered.wait()
            with anyio.move_on_after(0.05) as scope:
                await registry.call("waiter", {})
            assert scope.cancelled_caught
            release.set()
        with anyio.fail_after(2):
            assert (await registry.call("waiter", {})).value == "ran"


async def test_a_failing_exclusive_tool_releases_the_lock() -> None:
    class Boom(lg.Tool):
        description = "Fails while holding the lock."
        exclusive = True

        async def call(self, input: Any) -> Any:
            raise lg.ToolError("boom")

    class After(lg.Tool):
        description = "Needs the lock afterwards."
        exclusive = True

        def call(self, input: Any) -> Any:
            return "after"

    async with lg.ToolRegistry([Boom, After]) as registry:
        failed = await registry.call("boom", {}, context=lg.RunContext())
        assert failed.is_error and failed.content == "boom"
        invalid = await registry.call("boom", "not an object")
        assert invalid.is_error and invalid.content.startswith("Invalid tool input: ")
        with anyio.fail_after(2):
            assert (await registry.call("after", {})).value == "after"
