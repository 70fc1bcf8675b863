"""``Agent``: instructions, tools and the loop that lets a model use them."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import anyio
import anyio.lowlevel

from .binding import Binding
from .context import RunContext
from .errors import (
    CancelledError,
    ConfigurationError,
    DeadlineExceededError,
    LittleGhostError,
    ProviderError,
)
from .model import Message, Model, ModelRequest, ModelResponse, ToolCall
from .registry import ToolRegistry
from .results import ExecutionResult
from .run import Invocation, Run

__all__ = ["Agent", "ToolCallLimitError"]


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
    def ask(
        cls,
        prompt: str,
        *,
        model: Model | None = None,
        actor_id: Any = None,
        context: Mapping[str, Any] | None = None,
        run_context: RunContext | None = None,
        max_tool_calls: int | None = None,
    ) -> Run:
        """Run the agent to its final response, synchronously (on asyncio)."""
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
            context=context,
            run_context=run_context,
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
        context: Mapping[str, Any] | None = None,
        run_context: RunContext | None = None,
        max_tool_calls: int | None = None,
    ) -> Run:
        """Run the agent; the run's registry and registered resources close however it ends."""
        limit = cls.max_tool_calls if max_tool_calls is None else max_tool_calls
        if not isinstance(limit, int) or limit < 0:
            raise ConfigurationError(f"max_tool_calls must be a non-negative int, not {limit!r}")
        model = cls.model if model is None else model
        if model is None:
            raise ConfigurationError(f"{cls.__name__} has no model: pass model= or set it")
        if not callable(getattr(model, "respond", None)):
            raise TypeError(f"model must implement respond(request), not {type(model).__name__}")
        run = Run(Invocation(actor_id=actor_id, context=context), run_context)
        binding = Binding(agent=cls(), run=run, model=model)
        async with run, ToolRegistry(cls.tool_entries(), binding=binding) as registry:
            await _converse(cls.instructions, prompt, model, registry, run, limit)
        return run


async def _converse(
    instructions: str | None,
    prompt: str,
    model: Model,
    registry: ToolRegistry,
    run: Run,
    limit: int,
) -> None:
    messages = [Message("user", prompt)]
    calls_made = 0
    while True:
        request = ModelRequest(instructions, tuple(messages), registry.specifications)
        with run.context.guard():
            response = await model.respond(request)
        if not isinstance(response, ModelResponse):
            raise ProviderError(f"The model returned {type(response).__name__}, not ModelResponse")
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
            messages.append(Message("tool", result.content, tool_call_id=call.id))


async def _call_all(
    registry: ToolRegistry, calls: Sequence[ToolCall], context: RunContext
) -> list[ExecutionResult]:
    """Run the calls concurrently; results keep the model's order."""
    results: list[ExecutionResult | None] = [None] * len(calls)
    failures: list[BaseException] = []

    async def one(index: int, call: ToolCall) -> None:
        try:
            results[index] = await registry.call(call.name, dict(call.arguments), context=context)
        except (CancelledError, DeadlineExceededError, Exception) as error:
            failures.append(error)
            group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(one, index, call)
    if failures:
        raise failures[0]
    return [result for result in results if result is not None]
