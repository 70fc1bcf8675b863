"""Module-level FakeMCPServers the CLI tests name as ``cli_targets:attribute``."""

from __future__ import annotations

from littleghost_testing.fake_server import Crash, FakeMCPServer, Hang, JsonRpcError

faults = FakeMCPServer("faults")


@faults.tool(description="Answers with a JSON-RPC error.", fault=JsonRpcError(-32603, "boom"))
def broken(topic: str) -> str:
    return topic


@faults.tool(description="Never answers.", fault=Hang())
def stuck(topic: str) -> str:
    return topic


crashing = FakeMCPServer("crashing")


@crashing.tool(description="Crashes the connection.", fault=Crash())
def crashy(topic: str) -> str:
    return topic


@crashing.tool(description="Well behaved, after the crash.")
def order(order_id: str) -> str:
    return f"{order_id}: shipped"


not_a_server = {"tools": []}

colliding = FakeMCPServer("colliding")


@colliding.tool(name="a.b", description="One tool.")
def dotted(topic: str) -> str:
    return topic


@colliding.tool(name="a_b", description="Another tool with the same model-safe name.")
def underscored(topic: str) -> str:
    return topic


partly_broken = FakeMCPServer("partly_broken")


@partly_broken.tool(description="Look a topic up.", annotations={"readOnlyHint": True})
def lookup(topic: str) -> str:
    return topic


@partly_broken.tool(
    description="Its schema points at the network.",
    input_schema={"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}},
    annotations={"readOnlyHint": True},
)
def fetches(x: str = "") -> str:
    return x


empty = FakeMCPServer("empty")

silent = FakeMCPServer("silent")


@silent.tool(description="Never listed: tools/list hangs.", annotations={"readOnlyHint": True})
def unseen(topic: str) -> str:
    return topic


silent.fault_listing(Hang())

unannotated = FakeMCPServer("unannotated")


@unannotated.tool(description="No annotations: it may change state.")
def archive(topic: str) -> str:
    return topic
