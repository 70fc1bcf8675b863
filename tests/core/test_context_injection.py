"""One rule for which parameter receives the RunContext (docs/tools.md, "Tool.define and @lg.tool").

``Tool.define`` and ``@lg.tool`` share it: the parameter annotated ``RunContext``,
else the one named ``context``; it must be passable by keyword.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio


async def test_define_and_tool_give_the_context_to_a_parameter_annotated_run_context() -> None:
    def defined(input: Any, *, run: lg.RunContext) -> Any:
        return run.state["who"]

    @lg.tool
    def decorated(greeting: str, run: lg.RunContext | None = None) -> str:
        """Greet."""
        assert run is not None
        return f"{greeting} {run.state['who']}"

    context = lg.RunContext(state={"who": "ada"})
    assert "run" not in decorated.input_schema["properties"]
    defined_result = await lg.Tool.define("who", "Who.", defined)().execute({}, context=context)
    decorated_result = await decorated().execute({"greeting": "hi"}, context=context)
    assert (defined_result.value, decorated_result.value) == ("ada", "hi ada")


async def test_an_annotated_run_context_beats_a_parameter_named_context() -> None:
    @lg.tool
    def pick(context: str, ctx: Annotated[lg.RunContext, "the run"]) -> str:
        """Pick."""
        return f"{context} {ctx.state['who']}"

    assert list(pick.input_schema["properties"]) == ["context"]
    result = await pick().execute({"context": "model"}, context=lg.RunContext(state={"who": "ada"}))
    assert result.value == "model ada"


def test_a_positional_only_context_parameter_is_refused_by_both() -> None:
    def defined(input: Any, context: lg.RunContext, /) -> Any:
        return input

    def decorated(context: lg.RunContext, /) -> str:
        """Positional only."""
        return "never"

    with pytest.raises(lg.ConfigurationError, match="'context' must be passable by keyword"):
        lg.Tool.define("positional", "Positional.", defined)
    with pytest.raises(lg.ConfigurationError, match="'context' must be passable by keyword"):
        lg.tool(decorated)


def test_two_run_context_parameters_are_refused() -> None:
    def both(input: Any, *, first: lg.RunContext, second: lg.RunContext) -> Any:
        return input

    with pytest.raises(lg.ConfigurationError, match="more than one RunContext parameter"):
        lg.Tool.define("both", "Both.", both)
