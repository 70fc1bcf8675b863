"""Run and Invocation (docs/tools.md): owned resources, closing, and read-only application context.

Unhappy paths first: what ``register`` refuses, how closing fails, and what a
tool cannot change. Then how a Binding gives tools ``run.invocation``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import anyio
import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio


class Resource:
    """Something with a sync or async ``close()`` that records when it was closed."""

    def __init__(
        self,
        name: str,
        closed: list[str],
        *,
        asynchronous: bool = False,
        error: Exception | None = None,
    ) -> None:
        self.name = name
        self.closed = closed
        self.asynchronous = asynchronous
        self.error = error

    def close(self) -> Any:
        if not self.asynchronous:
            self._record()
            return None

        async def close_async() -> None:
            await anyio.sleep(0.01)  # only a shielded close gets past this when cancelled
            self._record()

        return close_async()

    def _record(self) -> None:
        self.closed.append(self.name)
        if self.error is not None:
            raise self.error


# -- register refuses ---------------------------------------------------------------


class NotClosable:
    close = "not callable"


@pytest.mark.parametrize(
    "resource", [object(), 42, "text", None, {"close": lambda: None}, NotClosable()]
)
def test_register_without_a_close_method_is_a_type_error(resource: Any) -> None:
    run = lg.Run()
    with pytest.raises(TypeError, match=r"has no aclose\(\) or close\(\) method"):
        run.register(resource)


class AsyncOnly:
    """A resource with the Python async close, ``aclose()``, and no ``close()``."""

    def __init__(self, closed: list[str]) -> None:
        self.closed = closed

    async def aclose(self) -> None:
        self.closed.append("aclose")


async def test_a_run_closes_aclose_resources_and_a_tool_registry_it_owns() -> None:
    closed: list[str] = []
    log: list[str] = []

    class Owned(lg.Tool):
        description = "Records its close."

        def call(self, input: Any) -> str:
            return "ok"

        def close(self) -> None:
            log.append(self.tool_name)

    async with lg.Run() as run:
        run.register(AsyncOnly(closed))
        registry = run.register(lg.ToolRegistry([Owned]))
        await registry.open()
    assert closed == ["aclose"]
    assert log == ["owned"]


async def test_register_after_close_is_a_configuration_error() -> None:
    closed: list[str] = []
    run = lg.Run()
    await run.aclose()
    assert run.closed
    late = Resource("late", closed)
    with pytest.raises(lg.ConfigurationError):
        run.register(late)
    await run.aclose()
    assert closed == []  # refused, so never owned and never closed


async def test_register_after_leaving_the_block_is_a_configuration_error() -> None:
    async with lg.Run() as run:
        pass
    with pytest.raises(lg.ConfigurationError):
        run.register(Resource("late", []))


# -- closing ---------------------------------------------------------------------------


async def test_close_failures_become_one_cleanup_error_after_every_close_is_tried() -> None:
    closed: list[str] = []
    first = ValueError("first failed")
    third = OSError("third failed")
    run = lg.Run()
    run.register(Resource("first", closed, error=first))
    run.register(Resource("second", closed, asynchronous=True))
    run.register(Resource("third", closed, asynchronous=True, error=third))
    run.register(Resource("fourth", closed))
    with pytest.raises(lg.CleanupError) as caught:
        await run.aclose()
    assert caught.value.errors == (third, first)  # close order
    assert "first failed" in str(caught.value) and "third failed" in str(caught.value)
    assert closed == ["fourth", "third", "second", "first"]
    await run.aclose()  # already closed: nothing is closed twice, nothing raised again
    assert closed == ["fourth", "third", "second", "first"]


async def test_async_with_raises_the_cleanup_error() -> None:
    closed: list[str] = []
    error = RuntimeError("socket stuck")
    with pytest.raises(lg.CleanupError) as caught:
        async with lg.Run() as run:
            run.register(Resource("socket", closed, asynchronous=True, error=error))
    assert caught.value.errors == (error,)
    assert closed == ["socket"]


async def test_an_exception_in_the_block_still_closes_everything() -> None:
    closed: list[str] = []
    with pytest.raises(KeyError):
        async with lg.Run() as run:
            run.register(Resource("a", closed))
            run.register(Resource("b", closed, asynchronous=True))
            raise KeyError("body")
    assert closed == ["b", "a"]


async def test_closing_in_a_cancelled_scope_still_closes_everything() -> None:
    closed: list[str] = []
    with anyio.CancelScope() as scope:
        async with lg.Run() as run:
            run.register(Resource("a", closed, asynchronous=True))
            run.register(Resource("b", closed))
            run.register(Resource("c", closed, asynchronous=True))
            scope.cancel()
            await anyio.sleep(10)
    assert scope.cancelled_caught
    assert closed == ["c", "b", "a"]


async def test_closes_in_reverse_order_once_each() -> None:
    closed: list[str] = []
    shared = Resource("shared", closed, asynchronous=True)
    async with lg.Run() as run:
        assert run.register(Resource("a", closed)) is not None
        assert run.register(shared) is shared  # register returns the resource
        run.register(Resource("b", closed, asynchronous=True))
        run.register(shared)  # registered twice, closed once
        assert not run.closed
        assert closed == []
    assert run.closed
    assert closed == ["shared", "b", "a"]
    await run.aclose()
    assert closed == ["shared", "b", "a"]


# -- Invocation: the application's values, read-only -------------------------------------


def test_invocation_rejects_a_non_mapping_context() -> None:
    for bad in (["account_id", 1], "account_id=1", 42):
        with pytest.raises(TypeError):
            lg.Invocation(actor_id="u1", context=bad)  # type: ignore[arg-type]


def test_invocation_is_frozen() -> None:
    invocation = lg.Invocation(actor_id="u1", context={"account_id": "acc-1"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        invocation.actor_id = "attacker"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        invocation.context = {}  # type: ignore[misc]


CONTEXT = {
    "account_id": "acc-1",
    "roles": ["support", "billing"],
    "limits": {"refund": 100, "regions": ["eu", {"code": "de"}]},
    "scopes": {"read", "write"},
}


def mutations(context: Any) -> list[tuple[str, Any]]:
    """Every way tool code might try to change the context, at every depth."""
    return [
        ("setitem", lambda: context.__setitem__("account_id", "acc-2")),
        ("new key", lambda: context.__setitem__("admin", True)),
        ("delitem", lambda: context.__delitem__("account_id")),
        ("update", lambda: context.update(account_id="acc-2")),
        ("pop", lambda: context.pop("account_id")),
        ("popitem", lambda: context.popitem()),
        ("clear", lambda: context.clear()),
        ("setdefault", lambda: context.setdefault("admin", True)),
        ("ior", lambda: context.__ior__({"admin": True})),
        ("list append", lambda: context["roles"].append("admin")),
        ("list setitem", lambda: context["roles"].__setitem__(0, "admin")),
        ("list extend", lambda: context["roles"].extend(["admin"])),
        ("list insert", lambda: context["roles"].insert(0, "admin")),
        ("list iadd", lambda: context["roles"].__iadd__(["admin"])),
        ("list imul", lambda: context["roles"].__imul__(2)),
        ("list remove", lambda: context["roles"].remove("support")),
        ("list pop", lambda: context["roles"].pop()),
        ("list delitem", lambda: context["roles"].__delitem__(0)),
        ("list sort", lambda: context["roles"].sort()),
        ("list reverse", lambda: context["roles"].reverse()),
        ("list clear", lambda: context["roles"].clear()),
        ("nested setitem", lambda: context["limits"].__setitem__("refund", 10**9)),
        ("deep list append", lambda: context["limits"]["regions"].append("us")),
        ("deepest setitem", lambda: context["limits"]["regions"][1].__setitem__("code", "us")),
        ("set add", lambda: context["scopes"].add("admin")),
        ("set update", lambda: context["scopes"].update({"admin"})),
        ("set ior", lambda: context["scopes"].__ior__({"admin"})),
        ("set discard", lambda: context["scopes"].discard("read")),
    ]


@pytest.mark.parametrize("name", [name for name, _ in mutations({})])
def test_invocation_context_is_deeply_read_only(name: str) -> None:
    invocation = lg.Invocation(actor_id="u1", context=copy.deepcopy(CONTEXT))
    (mutate,) = [mutate for label, mutate in mutations(invocation.context) if label == name]
    with pytest.raises((TypeError, AttributeError)):
        mutate()
    assert invocation.context == CONTEXT


def test_invocation_context_reads_like_the_plain_mapping() -> None:
    plain = copy.deepcopy(CONTEXT)
    invocation = lg.Invocation(actor_id=7, context=plain)
    assert invocation.actor_id == 7
    assert invocation.context == CONTEXT
    assert invocation.context["limits"]["regions"][1]["code"] == "de"
    assert "read" in invocation.context["scopes"]
    without_sets = {key: value for key, value in invocation.context.items() if key != "scopes"}
    assert json.loads(json.dumps(without_sets)) == {
        k: v for k, v in CONTEXT.items() if k != "scopes"
    }
    # Copies handed to trusted code are still read-only.
    assert copy.deepcopy(invocation.context) == CONTEXT
    with pytest.raises(TypeError):
        copy.copy(invocation.context)["account_id"] = "acc-2"


def test_invocation_context_is_a_snapshot_of_the_application_value() -> None:
    plain = copy.deepcopy(CONTEXT)
    invocation = lg.Invocation(actor_id="u1", context=plain)
    plain["account_id"] = "acc-2"
    plain["roles"].append("admin")
    plain["limits"]["refund"] = 10**9
    plain["scopes"].add("admin")
    assert invocation.context == CONTEXT


def test_invocation_defaults() -> None:
    assert lg.Invocation().actor_id is None
    assert lg.Invocation().context == {}
    assert lg.Invocation(actor_id="u1", context=None).context == {}
    with pytest.raises(TypeError):
        lg.Invocation(context=None).context["x"] = 1  # type: ignore[index]


def test_run_defaults() -> None:
    run = lg.Run()
    assert run.invocation == lg.Invocation()
    assert isinstance(run.context, lg.RunContext)
    assert run.context is not lg.Run().context  # a fresh RunContext per run
    assert not run.closed
    context = lg.RunContext(state={"step": 1})
    invocation = lg.Invocation(actor_id="u1")
    run = lg.Run(invocation=invocation, context=context)
    assert run.invocation is invocation
    assert run.context is context


# -- Binding(run=run): tools see run.invocation -------------------------------------------


class WhoAmI(lg.Tool):
    description = "Report who the run is for."

    async def call(self, input: Any) -> Any:
        invocation = self.run.invocation
        return {
            "actor": invocation.actor_id,
            "account": invocation.context["account_id"],
            "same_run_context": self.run.context is self.context,
        }


class Escalate(lg.Tool):
    description = "Try to change the application's context."

    def call(self, input: Any) -> Any:
        self.run.invocation.context["account_id"] = input["account_id"]
        return "changed"


async def test_a_tool_cannot_change_the_invocation_it_reads() -> None:
    invocation = lg.Invocation(actor_id="u1", context={"account_id": "acc-1"})
    async with lg.Run(invocation=invocation) as run:
        tool = Escalate(binding=lg.Binding(run=run))
        result = await tool.execute({"account_id": "acc-evil"}, context=run.context)
    assert result.is_error
    assert isinstance(result.error, TypeError)
    assert run.invocation.context == {"account_id": "acc-1"}


async def test_binding_run_gives_tools_the_invocation() -> None:
    invocation = lg.Invocation(actor_id="user-481", context={"account_id": "acc-9"})
    async with lg.Run(invocation=invocation) as run:
        binding = lg.Binding(run=run)
        (direct,) = binding.build(WhoAmI)
        assert direct.run is run
        result = await direct.execute({}, context=run.context)
        assert result.is_success
        assert result.value == {"actor": "user-481", "account": "acc-9", "same_run_context": True}

        async with lg.ToolRegistry([WhoAmI], binding=binding) as registry:
            via_registry = await registry.call(
                "who_am_i", {"actor_id": "spoofed"}, context=run.context
            )
        assert via_registry.value["actor"] == "user-481"  # the model's input changes nothing
        assert (
            via_registry.content == '{"actor":"user-481","account":"acc-9","same_run_context":true}'
        )


def test_resources_lists_what_the_run_will_close_until_it_closes():
    class Resource:
        def close(self):
            pass

    run = lg.Run()
    first, second = run.register(Resource()), run.register(Resource())
    assert run.resources == (first, second)

    anyio.run(run.aclose)

    assert run.resources == ()
