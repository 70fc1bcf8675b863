"""The pytest plugin's fixtures, used the way an application's test suite uses them."""

from pathlib import Path

import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio


class Echo(lg.Tool):
    description = "Echo the text."
    input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def call(self, input):
        self.context.state["echoed"] = input["text"]
        return f"{self.run.invocation.actor_id}: {input['text']}"


async def test_fixtures_bind_a_run_that_shares_the_run_context(run_context, tool_binding):
    tool = tool_binding.build(Echo)[0]
    assert tool.run.context is run_context

    result = await tool.execute({"text": "hi"}, context=run_context)

    assert result.content == "None: hi"
    assert run_context.state == {"echoed": "hi"}


async def test_lg_events_captures_tool_calls_in_order(lg_events, tool_binding):
    tool = Echo(binding=tool_binding)
    await tool.execute({"text": "a"})
    await tool.execute({"text": 1})

    assert [(e.name, e.payload["tool"], e.payload["outcome"]) for e in lg_events] == [
        ("tool_call", "echo", "success"),
        ("tool_call", "echo", "error"),
    ]
    assert all(e.duration is not None and e.duration >= 0 for e in lg_events)


def test_lg_events_unsubscribes_after_the_test(pytester):
    pytester.makepyfile(
        """
        import littleghost as lg
        from littleghost import instrumentation

        seen = []

        def test_one(lg_events):
            seen.append(lg_events)

        def test_two():
            instrumentation.emit(instrumentation.Event("probe"))
            assert seen[0] == []
        """
    )
    pytester.runpytest_inprocess("-p", "no:xdist").assert_outcomes(passed=2)


class Greeter(lg.Agent):
    tools = [Echo]


async def test_scripted_model_drives_an_agent_and_records_its_requests(scripted_model):
    model = scripted_model(
        lg.ModelResponse(tool_calls=[lg.ToolCall(id="c1", name="echo", arguments={"text": "hi"})]),
        lambda request: lg.ModelResponse(text=f"tool said {request.messages[-1].content}"),
    )

    run = await Greeter.ask_async("say hi", model=model, actor_id="ada")

    assert run.response == "tool said ada: hi"
    assert len(model.requests) == 2 and model.remaining == 0


async def test_scripted_model_fails_loudly_when_the_script_runs_out(scripted_model):
    with pytest.raises(AssertionError, match="no response left for request 2"):
        await Greeter.ask_async(
            "x",
            model=scripted_model(
                lg.ModelResponse(tool_calls=[lg.ToolCall(id="1", name="echo", arguments={})])
            ),
        )


def test_tool_binding_fails_a_test_that_leaves_run_resources_open(pytester):
    pytester.makepyfile(
        """
        class Connection:
            def close(self):
                pass

        def test_leaves_it_open(tool_binding):
            tool_binding.run.register(Connection())

        def test_closes_it(tool_binding):
            import anyio

            tool_binding.run.register(Connection())
            anyio.run(tool_binding.run.aclose)
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:xdist")
    result.assert_outcomes(passed=2, errors=1)  # the leaky test passes, then fails at teardown
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_leaves_it_open*",
            "*run still owns 1 open resource*async with tool_binding.run*",
        ]
    )


async def test_a_step_function_may_return_the_final_text(scripted_model):
    model = scripted_model(lambda request: f"you said {request.messages[-1].content}")
    run = await Greeter.ask_async("hello", model=model)
    assert run.response == "you said hello"


async def test_a_step_must_give_a_response_or_text(scripted_model):
    model = scripted_model(lambda request: 42)
    with pytest.raises(TypeError, match="a step must give a ModelResponse or a str"):
        await Greeter.ask_async("hello", model=model)


def test_unused_steps_fail_at_teardown_unless_allowed(pytester):
    pytester.makepyfile(
        """
        import littleghost as lg

        class Quiet(lg.Agent):
            pass

        def test_leaves_a_step(scripted_model):
            model = scripted_model("first answer", "never asked")
            Quiet.ask("hi", model=model)

        def test_allows_it(scripted_model):
            model = scripted_model("first answer", "never asked", allow_unused=True)
            Quiet.ask("hi", model=model)
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:xdist")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_leaves_a_step*",
            "*ScriptedModel answered 1 request(s) but 1 scripted step(s) were never used: "
            "?'never asked'?*Pass allow_unused=True to scripted_model(...)*",
        ]
    )


def test_the_given_recipe_of_the_testing_guide_runs(pytester):
    """docs/testing.md's @given example, run as the user's own test (it is no-run in the docs)."""
    guide = (Path(__file__).parents[2] / "docs" / "testing.md").read_text()
    start = guide.index("## Fixtures and Hypothesis's `@given`")
    block = guide[guide.index("```python no-run\n", start) + len("```python no-run\n") :]
    pytester.makepyfile(test_recipe=block[: block.index("```")])
    result = pytester.runpytest_inprocess("-p", "no:xdist")
    result.assert_outcomes(passed=2)  # on asyncio and trio, this suite's anyio_backend
