"""``AutoModel``: a model for tests that calls every tool it is offered, with no script.

Its first answer calls each tool once with an input drawn from the tool's
input schema by the kit's strategies; its final answer is a JSON text of the
results it got back. ``Agent.ask("...", model=AutoModel())`` so exercises
every tool of an agent with schema-valid input in one line, and
``AutoModel(invalid=True)`` proves the agent hands validation errors back
to the model instead of crashing.

Draws are seeded and reproducible: each input comes from a one-off
Hypothesis run (``@given`` with ``@seed``, ``max_examples=2``, generation
only, no database) whose last example is kept. The first example Hypothesis
generates is always the simplest value; the second is the first one drawn
from the seeded random source. Each tool's seed is ``f"{seed}:{tool name}"``,
so adding a tool never changes what the others receive. Invalid inputs come
from a run of ``INVALID_EXAMPLES``: the first seeded one (past the simplest)
that is still a JSON object is kept, as models send objects; else the last.

Inside a Hypothesis test (``@given``), the test itself draws the inputs
instead (``seed`` is then unused): its seed, shrinking and replay cover them,
and no ``@given`` is nested in another.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

import littleghost as lg

from ._compat import draw_in_test, in_test
from .strategies import InvalidInput, SchemaError, from_schema, invalid_inputs

__all__ = ["AutoModel"]

# Examples drawn to find an invalid input that is still an object.
INVALID_EXAMPLES = 10
_DRAW_SETTINGS = settings(
    phases=[Phase.generate],
    database=None,
    deadline=None,
    # Drawing one value is not a test: nothing here is a reason to fail one.
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
        HealthCheck.nested_given,
    ],
    verbosity=Verbosity.quiet,
    print_blob=False,
)


class AutoModel:
    """Calls every offered tool (or those named in ``tools``) once, then answers in JSON.

    ``final_text`` replaces the JSON answer: a string, or a function of the
    last request returning one. ``requests`` records every request;
    ``calls`` every tool call sent; with ``invalid=True``, ``invalid_inputs``
    maps each tool name to the ``InvalidInput`` it was sent (its keyword and
    path say which constraint it breaks).
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        tools: Sequence[str] | None = None,
        final_text: str | Callable[[lg.ModelRequest], str] | None = None,
        invalid: bool = False,
    ) -> None:
        if isinstance(tools, str):
            raise TypeError("tools must be a list of tool names, not one str")
        if final_text is not None and not (isinstance(final_text, str) or callable(final_text)):
            raise TypeError("final_text must be a str or a function of the request")
        self.seed = seed
        self.tools = None if tools is None else tuple(tools)
        self.final_text = final_text
        self.invalid = invalid
        self.requests: list[lg.ModelRequest] = []
        self.calls: list[lg.ToolCall] = []
        self.invalid_inputs: dict[str, InvalidInput] = {}

    def __repr__(self) -> str:
        return f"<AutoModel seed={self.seed!r} requests={len(self.requests)}>"

    async def respond(self, request: lg.ModelRequest) -> lg.ModelResponse:
        self.requests.append(request)
        if request.messages and request.messages[-1].role == "tool":
            return lg.ModelResponse(text=self._final(request))
        calls = [self._call(index, spec) for index, spec in enumerate(self._chosen(request))]
        if not calls:
            return lg.ModelResponse(text=self._final(request))
        self.calls.extend(calls)
        return lg.ModelResponse(tool_calls=tuple(calls))

    def _chosen(self, request: lg.ModelRequest) -> list[Mapping[str, Any]]:
        if self.tools is None:
            return list(request.tools)
        offered = {spec["name"]: spec for spec in request.tools}
        missing = [name for name in self.tools if name not in offered]
        if missing:
            raise AssertionError(
                f"AutoModel was told to call {missing}, but the agent offers {sorted(offered)}"
            )
        return [offered[name] for name in self.tools]

    def _call(self, index: int, spec: Mapping[str, Any]) -> lg.ToolCall:
        name = spec["name"]
        try:
            if self.invalid:
                broken = draw_invalid(spec["input_schema"], f"{self.seed}:{name}")
                self.invalid_inputs[name] = broken
                value = broken.value
            else:
                value = draw(from_schema(spec["input_schema"]), f"{self.seed}:{name}")
        except (SchemaError, Unsatisfiable) as error:
            kind = "an invalid" if self.invalid else "a valid"
            raise SchemaError(
                f"AutoModel cannot draw {kind} input for tool {name!r}: {error} "
                "(leave it out with tools=[...])"
            ) from None
        return lg.ToolCall(id=f"auto-{index}", name=name, arguments=value)

    def _final(self, request: lg.ModelRequest) -> str:
        if isinstance(self.final_text, str):
            return self.final_text
        if self.final_text is not None:
            return self.final_text(request)
        return json.dumps(tool_results(request.messages), ensure_ascii=False)


def tool_results(messages: Sequence[lg.Message]) -> dict[str, str]:
    """Tool name → result content, for the last batch of tool calls in ``messages``."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.tool_calls:
            names[call.id] = call.name
    results: dict[str, str] = {}
    for message in reversed(messages):
        if message.role != "tool":
            break
        results[names.get(message.tool_call_id or "", "?")] = message.content
    return dict(reversed(results.items()))


def draw_invalid(schema: Mapping[str, Any], seed: str) -> InvalidInput:
    """An input breaking one constraint; an object when the schema allows one: what models send."""
    if in_test():
        return draw(invalid_inputs(schema), seed)
    examples = draw_examples(invalid_inputs(schema), seed, INVALID_EXAMPLES)
    objects = [broken for broken in examples[1:] if isinstance(broken.value, dict)]
    return objects[0] if objects else examples[-1]


def draw(strategy: st.SearchStrategy[Any], seed: str) -> Any:
    """One reproducible value of ``strategy`` for ``seed`` (see the module docstring)."""
    if in_test():
        return draw_in_test(strategy)
    return draw_examples(strategy, seed, 2)[-1]


def draw_examples(strategy: st.SearchStrategy[Any], seed: str, count: int) -> list[Any]:
    """The examples of a one-off seeded Hypothesis run, simplest first."""
    drawn: list[Any] = []

    @seeded(seed)
    @settings(_DRAW_SETTINGS, max_examples=count)
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    collect()
    return drawn
