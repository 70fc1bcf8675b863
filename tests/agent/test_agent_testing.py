"""Testing agents inside applications: override, the request guard, and lg_runs transcripts."""

import contextvars
import threading

import anyio
import pytest

import littleghost as lg
from littleghost import watch_runs
from littleghost.models import (
    ModelRequestsBlockedError,
    OpenAIChatModel,
    allow_model_requests,
    model_requests_allowed,
)
from littleghost_testing import AutoModel, ScriptedModel


class LookupTool(lg.Tool):
    description = "Look up an order."
    input_schema = {
        "type": "object",
        "properties": {"order": {"type": "string"}},
        "required": ["order"],
    }

    def call(self, input):
        return f"order {input['order']} shipped"


class SupportAgent(lg.Agent):
    instructions = "Help with orders."
    tools = [LookupTool]
    model = OpenAIChatModel("production-model", base_url="http://models.invalid/v1")


class EscalationAgent(SupportAgent):
    pass


def answer_customer(question: str) -> str:
    """Application code: builds and runs the agent itself, synchronously."""
    return SupportAgent.ask(question, actor_id="customer-1").response or ""


# -- Agent.override -------------------------------------------------------------


def test_override_replaces_the_model_inside_a_sync_app_function():
    model = ScriptedModel(
        lg.ModelResponse(tool_calls=[lg.ToolCall("1", "lookup_tool", {"order": "42"})]),
        lambda request: lg.ModelResponse(text=request.messages[-1].content),
    )

    with SupportAgent.override(model=model):
        reply = answer_customer("Where is order 42?")

    assert reply == "order 42 shipped"
    assert model.requests[0].messages[0].content == "Where is order 42?"


def test_override_wins_over_model_arguments_reaches_subclasses_and_nests():
    outer, inner = ScriptedModel("outer", "outer again"), ScriptedModel("inner")
    replies: list[str | None] = []

    with SupportAgent.override(model=outer):
        replies.append(EscalationAgent.ask("hi", model=ScriptedModel("ignored")).response)
        with EscalationAgent.override(model=inner):
            replies.append(EscalationAgent.ask("hi").response)
        replies.append(EscalationAgent.ask("hi").response)

    assert replies == ["outer", "inner", "outer again"]
    assert isinstance(SupportAgent.model, OpenAIChatModel)


def test_a_worker_thread_that_copies_the_context_is_overridden_too():
    replies: list[str] = []
    with SupportAgent.override(model=ScriptedModel("scripted")):
        context = contextvars.copy_context()
        worker = threading.Thread(
            target=context.run, args=(lambda: replies.append(answer_customer("hi")),)
        )
        worker.start()
        worker.join()

    assert replies == ["scripted"]


def test_a_thread_that_did_not_copy_the_context_uses_the_real_model():
    errors: list[BaseException] = []

    def in_thread():
        try:
            answer_customer("hi")
        except BaseException as error:
            errors.append(error)

    with SupportAgent.override(model=ScriptedModel("scripted")):
        worker = threading.Thread(target=in_thread)
        worker.start()
        worker.join()

    (error,) = errors
    assert isinstance(error, ModelRequestsBlockedError)


@pytest.mark.anyio
async def test_override_is_task_local():
    replies: dict[str, str | None] = {}

    async def ask(name: str, model: lg.Model | None) -> None:
        if model is None:
            await anyio.sleep(0.01)
            replies[name] = (
                await EscalationAgent.ask_async("hi", model=ScriptedModel("own"))
            ).response
            return
        with SupportAgent.override(model=model):
            await anyio.sleep(0.02)
            replies[name] = (await EscalationAgent.ask_async("hi")).response

    async with anyio.create_task_group() as group:
        group.start_soon(ask, "overridden", ScriptedModel("override"))
        group.start_soon(ask, "plain", None)

    assert replies == {"overridden": "override", "plain": "own"}


def test_override_needs_a_model():
    with pytest.raises(TypeError, match="respond"), SupportAgent.override(model="gpt"):  # type: ignore[arg-type]
        pass


# -- the request guard ----------------------------------------------------------


def test_the_guard_blocks_a_real_provider_during_tests():
    assert not model_requests_allowed()
    with pytest.raises(ModelRequestsBlockedError, match="allow_model_requests"):
        answer_customer("Where is order 42?")


@pytest.mark.allow_model_requests
def test_allow_model_requests_opens_the_guard():
    assert model_requests_allowed()
    with allow_model_requests(False):
        assert not model_requests_allowed()
    assert model_requests_allowed()


def test_the_plugin_registers_the_marker_and_closes_the_guard_in_other_suites(pytester):
    pytester.makepyfile(
        """
        import httpx, pytest, respx
        import littleghost as lg
        from littleghost.models import ModelRequestsBlockedError, OpenAIChatModel

        class Agent(lg.Agent):
            model = OpenAIChatModel("m", base_url="http://models.test/v1")

        def test_blocked():
            with pytest.raises(ModelRequestsBlockedError):
                Agent.ask("hi")

        @pytest.mark.allow_model_requests
        def test_allowed():
            reply = {"choices": [{"message": {"content": "hello"}}]}
            with respx.mock() as api:
                api.post("http://models.test/v1/chat/completions").respond(json=reply)
                assert Agent.ask("hi").response == "hello"
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:xdist", "--strict-markers")
    result.assert_outcomes(passed=2)


# -- lg_runs --------------------------------------------------------------------


def test_lg_runs_records_messages_tool_results_and_errors(lg_runs):
    with SupportAgent.override(model=AutoModel(seed=2)):
        answer_customer("first")
    with SupportAgent.override(model=ScriptedModel()), pytest.raises(AssertionError):
        answer_customer("second")

    first, second = lg_runs
    assert first.agent is SupportAgent and first.finished and first.error is None
    ((call, result),) = first.tool_calls
    assert call.name == "lookup_tool"
    assert result is not None and result.content == f"order {call.arguments['order']} shipped"
    assert second.finished and isinstance(second.error, AssertionError)
    assert lg_runs.last is second
    assert "SupportAgent run (actor_id='customer-1') raised AssertionError" in second.transcript()


def test_a_watcher_that_raises_is_logged_and_the_run_goes_on(caplog):
    class BrokenWatcher:
        def run_started(self, agent, run):
            raise RuntimeError("watcher bug")

        def run_finished(self, run, error):
            raise RuntimeError("watcher bug")

    with watch_runs(BrokenWatcher()):
        run = SupportAgent.ask("hi", model=ScriptedModel("hello"))

    assert run.response == "hello"
    failures = [r for r in caplog.records if r.name == "littleghost.agent"]
    assert [r.getMessage().split(" failed in ")[1] for r in failures] == [
        "run_started",
        "run_finished",
    ]


def test_a_failing_test_report_shows_the_last_run_transcript(pytester):
    pytester.makepyfile(
        """
        import littleghost as lg
        from littleghost_testing import ScriptedModel

        class Echo(lg.Tool):
            description = "Echo."
            input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

            def call(self, input):
                return input["text"]

        class Helper(lg.Agent):
            tools = [Echo]

        def test_agent_answers(lg_runs):
            model = ScriptedModel(
                lg.ModelResponse(tool_calls=[
                    lg.ToolCall("c1", "echo", {"text": "hello"}),
                    lg.ToolCall("c2", "echo", {"text": 5}),
                ]),
                "I could not echo everything.",
            )
            run = Helper.ask("Echo hello and 5", model=model)
            assert run.response == "Done."

        def test_passes(lg_runs):
            Helper.ask("hi", model=ScriptedModel("hello"))
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:xdist")

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- littleghost: last agent run -*",
            "Helper run (actor_id=None) finished",
            "  user: Echo hello and 5",
            '  assistant calls echo [c1] {"text": "hello"}',
            '  assistant calls echo [c2] {"text": 5}',
            "  tool [c1] ok: hello",
            "  tool ?c2? error: Invalid tool input: $.text*string",
            "  assistant: I could not echo everything.",
        ]
    )
    assert result.stdout.str().count("last agent run") == 1
