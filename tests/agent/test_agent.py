"""Agent runs: the loop between a model and its tools, and what every run closes."""

import threading

import anyio
import pytest

import littleghost as lg
from littleghost_testing.scripted_model import ScriptedModel

pytestmark = pytest.mark.anyio

CLOSED: list[str] = []


class OrderStatusTool(lg.Tool):
    description = "Look up an order for the current account."
    input_schema = {
        "type": "object",
        "properties": {"order_number": {"type": "string"}},
        "required": ["order_number"],
        "additionalProperties": False,
    }

    async def call(self, input):
        account = self.run.invocation.context["account_id"]
        return {
            "account": account,
            "order": input["order_number"],
            "actor": self.run.invocation.actor_id,
        }

    def close(self):
        CLOSED.append(self.tool_name)


class SlowTool(lg.Tool):
    description = "Sleep, then report."
    input_schema = {"type": "object", "properties": {"seconds": {"type": "number"}}}

    async def call(self, input):
        await anyio.sleep(input["seconds"])
        return f"slept {input['seconds']}"


class BaseAgent(lg.Agent):
    instructions = "Be brief."
    tools = [OrderStatusTool]


class SupportAgent(BaseAgent):
    tools = [SlowTool]


def call(id, name, **arguments):
    return lg.ToolCall(id=id, name=name, arguments=arguments)


@pytest.fixture(autouse=True)
def _reset_closed():
    CLOSED.clear()


async def test_tool_results_are_fed_back_in_the_order_the_model_asked():
    model = ScriptedModel(
        lg.ModelResponse(
            tool_calls=[
                call("1", "slow_tool", seconds=0.05),
                call("2", "order_status_tool", order_number="481"),
                call("3", "order_status_tool"),
                call("4", "no_such_tool"),
            ]
        ),
        "Order 481 is on its way.",
    )

    run = await SupportAgent.ask_async(
        "Where is order 481?",
        model=model,
        actor_id="u-1",
        invocation_context={"account_id": "acct-9"},
    )

    assert run.response == "Order 481 is on its way."
    first, second = model.requests
    assert first.instructions == "Be brief."
    assert [spec["name"] for spec in first.tools] == ["order_status_tool", "slow_tool"]
    tool_messages = [m for m in second.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.content) for m in tool_messages] == [
        ("1", "slept 0.05"),
        ("2", '{"account":"acct-9","order":"481","actor":"u-1"}'),
        ("3", "Invalid tool input: $.order_number is required"),
        ("4", "Unknown tool: no_such_tool"),
    ]
    assert run.invocation.actor_id == "u-1"
    with pytest.raises(TypeError):
        run.invocation.context["account_id"] = "other"  # type: ignore[index]
    assert CLOSED == ["order_status_tool"]


async def test_independent_tool_calls_run_concurrently():
    running, most = 0, 0

    class OverlapTool(lg.Tool):
        description = "Record how many calls run at once."

        async def call(self, input):
            nonlocal running, most
            running += 1
            most = max(most, running)
            await anyio.sleep(0.05)
            running -= 1

    class OverlapAgent(lg.Agent):
        tools = [OverlapTool]

    model = ScriptedModel(
        lg.ModelResponse(tool_calls=[call(str(i), "overlap_tool") for i in range(5)]), "done"
    )

    await OverlapAgent.ask_async("go", model=model)

    assert most == 5


async def test_too_many_tool_calls_stop_the_run_with_a_clear_error_and_close_everything():
    endless = lambda request: lg.ModelResponse(  # noqa: E731
        tool_calls=[call(str(len(request.messages)), "order_status_tool", order_number="1")]
    )
    model = ScriptedModel(*[endless] * 10)

    with pytest.raises(lg.ToolCallLimitError, match="allows 3"):
        await SupportAgent.ask_async(
            "loop", model=model, invocation_context={"account_id": "a"}, max_tool_calls=3
        )

    assert len(model.requests) == 4
    assert CLOSED == ["order_status_tool"]


async def test_cancelling_the_run_mid_tool_call_propagates_and_closes_resources():
    context = lg.RunContext()
    resource_closed = threading.Event()

    class Resource:
        def close(self):
            resource_closed.set()

    def register_then_wait(request):
        return lg.ModelResponse(tool_calls=[call("1", "slow_tool", seconds=30)])

    class RegisteringTool(lg.Tool):
        description = "Owns a resource for the run."

        def call(self, input):
            return "ok"

        def __init__(self, binding=None):
            super().__init__(binding)
            self.run.register(Resource())

    class CancellableAgent(SupportAgent):
        tools = [RegisteringTool]

    threading.Timer(0.1, context.cancellation.cancel, args=("user left",)).start()
    with anyio.fail_after(5), pytest.raises(lg.CancelledError, match="user left"):
        await CancellableAgent.ask_async(
            "wait",
            model=ScriptedModel(register_then_wait),
            invocation_context={"account_id": "a"},
            context=context,
        )

    assert resource_closed.is_set()
    assert CLOSED == ["order_status_tool"]


class GarbageModel:
    """A broken provider: answers with something that is not a ModelResponse."""

    async def respond(self, request):
        return {"text": "hi"}


async def test_a_model_that_returns_garbage_is_a_provider_error():
    with pytest.raises(lg.ProviderError, match="returned dict"):
        await SupportAgent.ask_async("hi", model=GarbageModel())


async def test_an_agent_without_a_model_is_a_configuration_error():
    with pytest.raises(lg.ConfigurationError, match="no model"):
        await SupportAgent.ask_async("hi")


async def test_ask_refuses_to_block_inside_an_event_loop():
    with pytest.raises(RuntimeError, match="ask_async"):
        SupportAgent.ask("hi", model=ScriptedModel("hello"))


def test_ask_runs_synchronously():
    run = SupportAgent.ask("hi", model=ScriptedModel("hello"), actor_id=7)

    assert run.response == "hello"
    assert run.invocation.actor_id == 7
    assert [m.role for m in run.messages] == ["user", "assistant"]


def test_inherited_tool_lists_are_kept_base_first():
    assert SupportAgent.tool_entries() == [[OrderStatusTool], [SlowTool]]


async def test_a_prompt_that_is_not_text_is_a_type_error():
    with pytest.raises(TypeError, match="prompt must be a str, not list"):
        await SupportAgent.ask_async(["hi"], model=ScriptedModel("hello"))  # type: ignore[arg-type]


async def test_a_mapping_passed_as_context_is_a_type_error_naming_invocation_context():
    model = ScriptedModel("hello")
    with pytest.raises(
        TypeError, match=r"context must be a RunContext, not dict .*invocation_context="
    ):
        await SupportAgent.ask_async("hi", model=model, context={"account_id": "a"})  # type: ignore[arg-type]
    assert model.requests == []  # refused before the model was asked
    run = await SupportAgent.ask_async("hi", model=model, invocation_context={"account_id": "a"})
    assert dict(run.invocation.context) == {"account_id": "a"}


async def test_tools_get_plain_copies_of_the_arguments_and_the_record_stays_as_sent():
    class TaggingTool(lg.Tool):
        description = "Tag the items it is given."
        input_schema = {"type": "object", "properties": {"items": {"type": "array"}}}

        def call(self, input):
            input["items"].append({"tagged": True})  # a plain list, the tool's own copy
            return input

    class TaggingAgent(lg.Agent):
        tools = [TaggingTool]

    sent = {"items": [{"sku": "A-1", "sizes": [38, 39]}]}
    model = ScriptedModel(
        lg.ModelResponse(tool_calls=[call("1", "tagging_tool", **sent)]),
        "done",
    )

    run = await TaggingAgent.ask_async("tag", model=model)

    asked, answered = run.messages[1], run.messages[2]
    assert not answered.is_error
    assert answered.content == '{"items":[{"sku":"A-1","sizes":[38,39]},{"tagged":true}]}'
    assert asked.tool_calls[0].arguments == sent
