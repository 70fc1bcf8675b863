"""``Agent``: instructions, tools and the loop that lets a model use them."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any, ClassVar, Protocol

import anyio
import anyio.lowlevel

from ._binding import Binding
from ._context import RunContext
from ._errors import (
    CancelledError,
    ConfigurationError,
    DeadlineExceededError,
    LittleGhostError,
    ProviderError,
    ToolError,
)
from ._model import Message, Model, ModelRequest, ModelResponse, ToolCall
from ._registry import ToolRegistry
from ._results import ExecutionResult
from ._run import Invocation, Run

__all__ = ["Agent", "RunWatcher", "ToolCallLimitError", "watch_runs"]

_logger = logging.getLogger("littleghost.agent")
# Models that ``Agent.override`` put in place in this task, by agent class.
_overrides: ContextVar[Mapping[type, Model]] = ContextVar("littleghost_overrides")
_NO_OVERRIDES: Mapping[type, Model] = MappingProxyType({})
_watchers_lock = threading.Lock()
_watchers: tuple[RunWatcher, ...] = ()


class ToolCallLimitError(LittleGhostError):
    """The model asked for more tool calls than ``max_tool_calls`` allows in one run."""


class Agent:
    """Subclass it with ``instructions`` and ``tools``; ``ask`` runs it.

    ``tools`` lists registry entries; a subclass's list adds to its bases'.
    """

    instructions: ClassVar[str | None] = None
    tools: ClassVar[Sequence[Any]] = ()
    max_tool_calls: ClassVar[int] = 50
    model: ClassVar[Model | None] = None

    @classmethod
    def tool_entries(cls) -> list[Any]:
        """Every ``tools`` list along the class hierarchy, base classes first."""
        return [
            list(klass.__dict__["tools"])
            for klass in reversed(cls.__mro__)
            if klass.__dict__.get("tools")
        ]

    @classmethod
    @contextmanager
    def override(cls, *, model: Model) -> Iterator[None]:
        """Use ``model`` for every run of this agent (and its subclasses) inside the block.

        It beats both ``model=`` and the class's ``model``, so a test can swap
        the model of an agent that application code runs. Task-local (a
        ``ContextVar``): it reaches sync ``ask`` and threads that run in a copy
        of the context (``anyio.to_thread`` does that), never other tasks.
        """
        if not callable(getattr(model, "respond", None)):
            raise TypeError(f"model must implement respond(request), not {type(model).__name__}")
        reset = _overrides.set({**_overrides.get(_NO_OVERRIDES), cls: model})
        try:
            yield
        finally:
            _overrides.reset(reset)

    @classmethod
    def _chosen_model(cls, model: Model | None) -> Model | None:
        overrides = _overrides.get(_NO_OVERRIDES)
        for klass in cls.__mro__:
            if klass in overrides:
                return overrides[klass]
        return cls.model if model is None else model

    @classmethod
    def ask(
        cls,
        prompt: str,
        *,
        model: Model | None = None,
        actor_id: Any = None,
        invocation_context: Mapping[str, Any] | None = None,
        context: RunContext | None = None,
        max_tool_calls: int | None = None,
    ) -> Run:
        """Run the agent to its final response, synchronously (on asyncio).

        ``invocation_context`` is the application's read-only mapping for this
        ask (``run.invocation.context``); ``context`` is the RunContext whose
        cancellation and deadline bound the run (a fresh one by default).
        """
        try:
            anyio.lowlevel.current_token()
        except anyio.NoEventLoopError:
            pass
        else:
            raise RuntimeError("Agent.ask() blocks; in async code use await Agent.ask_async()")
        call = functools.partial(
            cls.ask_async,
            prompt,
            model=model,
            actor_id=actor_id,
            invocation_context=invocation_context,
            context=context,
            max_tool_calls=max_tool_calls,
        )
        return anyio.run(call)

    @classmethod
    async def ask_async(
        cls,
        prompt: str,
        *,
        model: Model | None = None,
        actor_id: Any = None,
        invocation_context: Mapping[str, Any] | None = None,
        context: RunContext | None = None,
        max_tool_calls: int | None = None,
    ) -> Run:
        """Run the agent; the run's registry and registered resources close however it ends."""
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a str, not {type(prompt).__name__}")
        if context is not None and not isinstance(context, RunContext):
            raise TypeError(
                f"context must be a RunContext, not {type(context).__name__} "
                "(the application's mapping for this ask is invocation_context=)"
            )
        limit = cls.max_tool_calls if max_tool_calls is None else max_tool_calls
        if not isinstance(limit, int) or limit < 0:
            raise ConfigurationError(f"max_tool_calls must be a non-negative int, not {limit!r}")
        model = cls._chosen_model(model)
        if model is None:
            raise ConfigurationError(f"{cls.__name__} has no model: pass model= or set it")
        if not callable(getattr(model, "respond", None)):
            raise TypeError(f"model must implement respond(request), not {type(model).__name__}")
        run = Run(Invocation(actor_id=actor_id, context=invocation_context), context)
        binding = Binding(agent=cls(), run=run, model=model)
        _notify("run_started", cls, run)
        try:
            async with run, ToolRegistry(cls.tool_entries(), binding=binding) as registry:
                await _converse(cls.instructions, prompt, model, registry, run, limit)
        except BaseException as error:
            _notify("run_finished", run, error)
            raise
        _notify("run_finished", run, None)
        return run


class RunWatcher(Protocol):
    """Told when each agent run starts and ends (the testing kit's ``lg_runs`` is one)."""

    def run_started(self, agent: type[Agent], run: Run) -> object: ...

    def run_finished(self, run: Run, error: BaseException | None) -> object: ...


@contextmanager
def watch_runs(watcher: RunWatcher) -> Iterator[RunWatcher]:
    """Tell ``watcher`` about every agent run, in any thread, while the block runs.

    A watcher that raises is logged, never raised into the run.
    """
    global _watchers
    with _watchers_lock:
        _watchers = (*_watchers, watcher)
    try:
        yield watcher
    finally:
        with _watchers_lock:
            remaining = list(_watchers)
            remaining.remove(watcher)
            _watchers = tuple(remaining)


def _notify(event: str, *args: Any) -> None:
    for watcher in _watchers:
        try:
            getattr(watcher, event)(*args)
        except Exception:
            _logger.exception("run watcher %r failed in %s", watcher, event)


async def _converse(
    instructions: str | None,
    prompt: str,
    model: Model,
    registry: ToolRegistry,
    run: Run,
    limit: int,
) -> None:
    messages = [Message("user", prompt)]
    run.messages = tuple(messages)
    calls_made = 0
    while True:
        request = ModelRequest(instructions, tuple(messages), registry.specifications)
        with run.context.guard():
            response = await model.respond(request)
        if not isinstance(response, ModelResponse):
            raise ProviderError(f"The model returned {type(response).__name__}, not ModelResponse")
        if response.text is not None and not isinstance(response.text, str):
            raise ProviderError(f"The model's text is {type(response.text).__name__}, not str")
        for call in response.tool_calls:
            if not isinstance(call, ToolCall):
                raise ProviderError(f"The model asked for a {type(call).__name__}, not a ToolCall")
        messages.append(Message("assistant", response.text or "", response.tool_calls))
        run.messages = tuple(messages)
        if not response.tool_calls:
            run.response = response.text or ""
            return
        calls_made += len(response.tool_calls)
        if calls_made > limit:
            raise ToolCallLimitError(
                f"The model asked for {calls_made} tool calls; this run allows {limit} "
                "(raise max_tool_calls if that is expected)"
            )
        results = await _call_all(registry, response.tool_calls, run.context)
        for call, result in zip(response.tool_calls, results, strict=True):
            messages.append(
                Message("tool", result.content, tool_call_id=call.id, is_error=result.is_error)
            )
        run.messages = tuple(messages)


async def _call_all(
    registry: ToolRegistry, calls: Sequence[ToolCall], context: RunContext
) -> list[ExecutionResult]:
    """Run the calls concurrently; results keep the model's order."""
    if len(calls) == 1:  # nothing to run concurrently: no task group to pay for
        return [await _call_one(registry, calls[0], context)]
    results: list[ExecutionResult | None] = [None] * len(calls)
    failures: list[BaseException] = []

    async def one(index: int, call: ToolCall) -> None:
        try:
            results[index] = await _call_one(registry, call, context)
        except (CancelledError, DeadlineExceededError, Exception) as error:
            failures.append(error)
            group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(one, index, call)
    if failures:
        raise failures[0]
    return [result for result in results if result is not None]


async def _call_one(registry: ToolRegistry, call: ToolCall, context: RunContext) -> ExecutionResult:
    """Run one call; arguments the model got wrong are an error result for it to read."""
    if call.problem is None:
        return await registry.call(call.name, _thawed(call.arguments), context=context)
    if call.name not in registry:
        return await registry.call(call.name, {}, context=context)  # "Unknown tool: ..."
    message = f"Invalid tool input: {call.problem}"
    return ExecutionResult.failure(message, ToolError(message))


def _thawed(value: Any) -> Any:
    """A plain copy of frozen arguments: what ``execute``'s fast JSON check expects.

    Recursion is safe here: ``ToolCall`` refused anything deeper than ``max_depth``.
    """
    if isinstance(value, dict):
        return {key: _thawed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_thawed(item) for item in value]
    return value
