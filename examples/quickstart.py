"""Two tools executed the way an agent would: a success, a ToolError, a sanitized crash.

Run it with ``python examples/quickstart.py``.
"""

from __future__ import annotations

import anyio

import littleghost as lg

TICKETS = {"SUP-481": "waiting_on_customer"}


class TicketStatusTool(lg.Tool):
    tool_name = "ticket_status"
    description = "Look up a support ticket's status."
    input_schema = {
        "type": "object",
        "properties": {"ticket_id": {"type": "string", "pattern": "^SUP-\\d+$"}},
        "required": ["ticket_id"],
        "additionalProperties": False,
    }

    async def call(self, input):
        status = TICKETS.get(input["ticket_id"])
        if status is None:
            raise lg.ToolError(f"No ticket {input['ticket_id']}")  # safe to show the model
        return {"ticket_id": input["ticket_id"], "status": status}


@lg.tool
def refund_quote(order_number: int, reason: str = "damaged") -> str:
    """Quote the refund for an order."""
    raise ConnectionError("db password=hunter2 rejected")  # never reaches the model


async def main() -> None:
    calls = [
        ("ticket_status", {"ticket_id": "SUP-481"}),
        ("ticket_status", {"ticket_id": "SUP-999"}),
        ("ticket_status", {"ticket_id": "481", "urgent": True}),
        ("refund_quote", {"order_number": 481}),
    ]
    context = lg.RunContext.with_timeout(5)
    async with lg.ToolRegistry([TicketStatusTool, refund_quote]) as registry:
        for name, arguments in calls:
            result = await registry.call(name, arguments, context=context)
            print(f"{name}({arguments}) -> {result.status}: {result.content}")
            if result.error is not None and not isinstance(result.error, lg.ToolError):
                print(f"    (for trusted logs only: {result.error!r})")


if __name__ == "__main__":
    anyio.run(main)
