"""``ScriptedModel``: a model that answers from a script, for testing agents and tools."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import littleghost as lg

__all__ = ["ScriptedModel", "Step"]

Answer = lg.ModelResponse | str
Step = Answer | Callable[[lg.ModelRequest], Answer | Awaitable[Answer]]


class ScriptedModel:
    """Answers each request with the next step and records every request.

    A step is a ``ModelResponse``, a ``str`` (a final text answer), or a
    function of the request returning either (sync or async), which can
    inspect the tool results the agent fed back. ``allow_unused=True`` lets
    the ``scripted_model`` fixture's teardown accept steps left unused.
    """

    def __init__(self, *steps: Step, allow_unused: bool = False) -> None:
        self._steps = list(steps)
        self.allow_unused = allow_unused
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
        answer: Any = step if isinstance(step, str | lg.ModelResponse) else step(request)
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, str):
            return lg.ModelResponse(text=answer)
        if not isinstance(answer, lg.ModelResponse):
            raise TypeError(
                f"ScriptedModel step {len(self.requests)} gave {answer!r}: "
                "a step must give a ModelResponse or a str (the final text)"
            )
        return answer

    def unused(self) -> str | None:
        """What is left of the script, for a teardown check; ``None`` when it was used up."""
        if not self._steps or self.allow_unused:
            return None
        return (
            f"ScriptedModel answered {len(self.requests)} request(s) but {len(self._steps)} "
            f"scripted step(s) were never used: {self._steps!r} (the agent stopped early?). "
            "Pass allow_unused=True to scripted_model(...) if that is intended."
        )
