"""AutoModel: every offered tool called once with schema-drawn input, then a JSON answer."""

import json
import re

import mcp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing import AutoModel
from littleghost_testing.strategies import SchemaError

pytestmark = pytest.mark.anyio

SEEN: dict[str, object] = {}


class ShipOrderTool(lg.Tool):
    description = "Ship an order to an address."
    input_schema = {
        "type": "object",
        "properties": {
            "order_number": {"type": "string", "pattern": "^ORD-[0-9]{4}$"},
            "speed": {"enum": ["standard", "express", "overnight"]},
            "address": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1, "maxLength": 20},
                    "postcode": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{3}$"},
                    "lines": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                },
                "required": ["city", "postcode"],
                "additionalProperties": False,
            },
        },
        "required": ["order_number", "speed", "address"],
        "additionalProperties": False,
    }

    def call(self, input):
        SEEN[self.tool_name] = input
        return {"shipped": input["order_number"], "speed": input["speed"]}


class RefundTool(lg.Tool):
    description = "Refund part of an order."
    input_schema = {
        "type": "object",
        "properties": {
            "amount": {"type": "integer", "minimum": 1, "maximum": 500},
            "reason": {"enum": ["damaged", "late", "other"]},
        },
        "required": ["amount", "reason"],
    }

    async def call(self, input):
        SEEN[self.tool_name] = input
        return f"refunded {input['amount']}"


class ShopAgent(lg.Agent):
    instructions = "Help the customer."
    tools = [ShipOrderTool, RefundTool]


@pytest.fixture(autouse=True)
def _clear_seen():
    SEEN.clear()


async def test_every_tool_is_called_once_with_schema_valid_input():
    model = AutoModel()

    run = await ShopAgent.ask_async("Ship it and refund", model=model)

    shipped, refunded = SEEN["ship_order_tool"], SEEN["refund_tool"]
    assert isinstance(shipped, dict) and isinstance(refunded, dict)
    assert re.fullmatch(r"ORD-[0-9]{4}", shipped["order_number"])
    assert shipped["speed"] in {"standard", "express", "overnight"}
    assert re.fullmatch(r"[A-Z]{2}[0-9]{3}", shipped["address"]["postcode"])
    assert 1 <= refunded["amount"] <= 500 and refunded["reason"] in {"damaged", "late", "other"}
    assert [call.name for call in model.calls] == ["ship_order_tool", "refund_tool"]
    assert json.loads(run.response or "") == {
        "ship_order_tool": json.dumps(
            {"shipped": shipped["order_number"], "speed": shipped["speed"]}, separators=(",", ":")
        ),
        "refund_tool": f"refunded {refunded['amount']}",
    }
    assert len(model.requests) == 2
    assert [spec["name"] for spec in model.requests[0].tools] == ["ship_order_tool", "refund_tool"]


async def test_the_same_seed_draws_the_same_inputs_and_other_seeds_differ():
    first, again = AutoModel(seed=7), AutoModel(seed=7)
    await ShopAgent.ask_async("go", model=first)
    await ShopAgent.ask_async("go", model=again)
    others = [AutoModel(seed=seed) for seed in range(3)]
    for model in others:
        await ShopAgent.ask_async("go", model=model)

    assert [c.arguments for c in first.calls] == [c.arguments for c in again.calls]
    drawn = {json.dumps(model.calls[0].arguments, sort_keys=True) for model in others}
    assert len(drawn) > 1


async def test_named_tools_only_and_a_custom_final_text():
    model = AutoModel(
        tools=["refund_tool"], final_text=lambda request: request.messages[-1].content
    )

    run = await ShopAgent.ask_async("refund", model=model)

    assert list(SEEN) == ["refund_tool"]
    assert run.response == f"refunded {SEEN['refund_tool']['amount']}"  # type: ignore[index]
    fixed = await ShopAgent.ask_async("refund", model=AutoModel(tools=[], final_text="no tools"))
    assert fixed.response == "no tools"


async def test_naming_a_tool_the_agent_does_not_offer_fails_the_test_clearly():
    with pytest.raises(AssertionError, match=r"told to call \['missing'\].*offers"):
        await ShopAgent.ask_async("go", model=AutoModel(tools=["missing"]))


async def test_invalid_inputs_come_back_to_the_model_as_validation_errors():
    model = AutoModel(invalid=True, seed=3)

    run = await ShopAgent.ask_async("break things", model=model)

    assert SEEN == {}  # no tool ran
    results = json.loads(run.response or "")
    assert set(results) == {"ship_order_tool", "refund_tool"}
    for name, content in results.items():
        broken = model.invalid_inputs[name]
        assert content.startswith("Invalid tool input: ")
        assert broken.path in content
    tool_messages = [m for m in run.messages if m.role == "tool"]
    assert [m.is_error for m in tool_messages] == [True, True]


async def test_a_tool_that_accepts_everything_cannot_get_an_invalid_input():
    class AnythingTool(lg.Tool):
        description = "Accept anything."
        input_schema = {}

        def call(self, input):
            return "ok"

    class AnythingAgent(lg.Agent):
        tools = [AnythingTool]

    with pytest.raises(SchemaError, match="cannot draw an invalid input for tool 'anything_tool'"):
        await AnythingAgent.ask_async("go", model=AutoModel(invalid=True))


catalog = MCPServer("catalog")


@catalog.tool(description="Find products by category and price.")
def search_products(category: str, max_price: int, in_stock: bool = True) -> dict:
    return {"category": category, "max_price": max_price, "in_stock": in_stock}


class CatalogTools(Toolset):
    def client(self, binding):
        return mcp.Client(catalog)


class CatalogAgent(lg.Agent):
    tools = [CatalogTools]


async def test_auto_model_drives_the_tools_of_an_mcp_toolset(lg_leaks):
    snapshot = lg_leaks()
    model = AutoModel(seed=1)

    run = await CatalogAgent.ask_async("find shoes", model=model)

    (call,) = model.calls
    assert call.name == "search_products"
    assert isinstance(call.arguments["category"], str)
    assert isinstance(call.arguments["max_price"], int)
    (message,) = [m for m in run.messages if m.role == "tool"]
    assert not message.is_error
    structured = json.loads(message.content)
    assert structured == {
        "category": call.arguments["category"],
        "max_price": call.arguments["max_price"],
        "in_stock": call.arguments.get("in_stock", True),
    }
    assert json.loads(run.response or "") == {"search_products": message.content}
    await snapshot.assert_released()


def test_inside_a_hypothesis_test_the_test_draws_the_inputs():
    refunds: list[object] = []

    @settings(max_examples=5, deadline=None, database=None)
    @given(st.just(None))
    def property_of_the_agent(_):
        run = ShopAgent.ask("refund", model=AutoModel(tools=["refund_tool"]))
        refunds.append(SEEN["refund_tool"])
        assert json.loads(run.response or "")["refund_tool"].startswith("refunded ")

    property_of_the_agent()  # no nested-@given health check: the outer test draws

    assert len(refunds) == 5
    assert len({json.dumps(refund, sort_keys=True) for refund in refunds}) > 1
