"""``ScriptedModel``: a model that answers from a script, for testing agents and tools."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import littleghost as lg

__all__ = ["ScriptedModel", "Step"]

Step = (
    lg.ModelResponse
    | str
    | Callable[[lg.ModelRequest], lg.ModelResponse | Awaitable[lg.ModelResponse]]
)


class ScriptedModel:
    """Answers each request with the next step and records every request.

    A step is a ``ModelResponse``, a ``str`` (a final text answer), or a
    function of the request returning a response (sync or async), which can
    inspect the tool results the agent fed back.
    """

    def __init__(self, *steps: Step) -> None:
        self._steps = list(steps)
        self.requests: list[lg.ModelRequest] = []

    def __repr__(self) -> str:
        return f"<ScriptedModel requests={len(self.requests)} remaining={len(self._steps)}>"

    @property
    def remaining(self) -> int:
        return len(self._steps)

    async def respond(self, request: lg.ModelRequest) -> lg.ModelResponse:
        self.requests.append(request)
        if not self._steps:
            raise AssertionError(
                f"ScriptedModel has no response left for request {len(self.requests)}"
            )
        step = self._steps.pop(0)
        if isinstance(step, str):
            return lg.ModelResponse(text=step)
        if isinstance(step, lg.ModelResponse):
            return step
        answer: Any = step(request)
        return await answer if inspect.isawaitable(answer) else answer
