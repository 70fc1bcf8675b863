"""MCP toolset overhead: a Toolset tool call against raw ``mcp.Client.call_tool``.

Run: ``python bench/mcp_overhead.py [--calls N] [--backend asyncio|trio]
[--calls-only | --discovery-only]``.
Prints per-transport latency (sequential calls), throughput (100 concurrent
calls) and discovery of a 1000-tool catalog, each as littleghost / raw.
The main discovery figures list 1000 real tool schemas (``bench/real_catalog.py``:
the corpus in ``tests/data/tool_schemas``, cycled, each copy unique) over each
transport, then in-process again reading every ``specification()`` (discovery
freezes no schema: a first read does); a last line keeps the synthetic catalog
(one tiny schema repeated).
The HTTP server runs uvicorn in a thread on a TCP_NODELAY socket.
"""

from __future__ import annotations

import argparse
import gc
import logging
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import MCPServer

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "mcp")]

from mcp_servers.catalog import build_server, http_app  # noqa: E402
from real_catalog import catalog_http_app, catalog_server  # noqa: E402

import littleghost as lg  # noqa: E402
from littleghost.mcp import Toolset  # noqa: E402
from littleghost_testing.fake_server._http import HttpServer  # noqa: E402

CONCURRENCY = 100
CATALOG_TOOLS = 1000
DISCOVERY_ROUNDS = 7


def large_server(count: int) -> MCPServer:
    server = MCPServer("large")
    for i in range(count):

        def tool(text: str, limit: int = 10) -> str:
            return text

        server.add_tool(tool, name=f"tool_{i}", description=f"Tool number {i}.")
    return server


async def interleaved(
    rounds: int, raw: Callable[[], Awaitable[float]], ours: Callable[[], Awaitable[float]]
) -> tuple[float, float]:
    """Medians of alternating raw and littleghost measurements, after one warm-up each.

    Alternating keeps drift (CPU frequency, a busy neighbour) out of the ratio,
    and a collection before each measurement keeps one round's garbage (a
    thousand classes, say) from slowing the next.
    """
    await raw()
    await ours()
    raw_figures: list[float] = []
    our_figures: list[float] = []
    for _ in range(rounds):
        gc.collect()
        raw_figures.append(await raw())
        gc.collect()
        our_figures.append(await ours())
    return statistics.median(raw_figures), statistics.median(our_figures)


async def measure_calls(client_factory: Callable[[], mcp.Client], calls: int) -> dict[str, float]:
    class Bench(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return client_factory()

    figures: dict[str, float] = {}
    async with client_factory() as raw, lg.Run() as run:
        binding = lg.Binding(run=run)
        echo = {cls.tool_name: cls for cls in await Bench.tools(binding)}["echo"](binding)
        arguments = {"text": "hello"}

        async def raw_call() -> Any:
            return await raw.call_tool("echo", arguments)

        async def our_call() -> Any:
            return await echo.execute(arguments, context=run.context)

        def sequential(one: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[float]]:
            async def body() -> float:
                started = time.perf_counter()
                for _ in range(calls):
                    await one()
                return (time.perf_counter() - started) / calls

            return body

        def concurrent(one: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[float]]:
            async def body() -> float:
                started = time.perf_counter()
                async with anyio.create_task_group() as tg:
                    for _ in range(CONCURRENCY):
                        tg.start_soon(one)
                return CONCURRENCY / (time.perf_counter() - started)

            return body

        figures["raw_call"], figures["lg_call"] = await interleaved(
            7, sequential(raw_call), sequential(our_call)
        )
        figures["raw_throughput"], figures["lg_throughput"] = await interleaved(
            15, concurrent(raw_call), concurrent(our_call)
        )
    return figures


async def measure_discovery(
    client_factory: Callable[[], mcp.Client],
    count: int,
    rounds: int = DISCOVERY_ROUNDS,
    *,
    read_specifications: bool = False,
) -> dict[str, float]:
    """Raw connect + ``list_tools`` against ``Toolset.tools()`` (connect, list, build).

    ``read_specifications`` adds reading every class's ``specification()`` (what
    a model request sends), which freezes every schema discovery left unread.
    """

    class Large(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return client_factory()

    async def raw() -> float:
        started = time.perf_counter()
        async with client_factory() as client:
            listed = await client.list_tools()
            assert len(listed.tools) == count
        return time.perf_counter() - started

    async def littleghost() -> float:
        started = time.perf_counter()
        async with lg.Run() as run:
            classes = await Large.tools(lg.Binding(run=run))
            assert len(classes) == count
            if read_specifications:
                assert all(cls.specification()["input_schema"] for cls in classes)
        return time.perf_counter() - started

    raw_seconds, our_seconds = await interleaved(rounds, raw, littleghost)
    return {"raw_discovery": raw_seconds, "lg_discovery": our_seconds}


def print_discovery(label: str, d: dict[str, float]) -> None:
    print(
        f"{label:<34} {d['raw_discovery'] * 1e3:8.1f} {d['lg_discovery'] * 1e3:8.1f} "
        f"{d['lg_discovery'] / d['raw_discovery']:5.2f}x"
    )


async def main(calls: int, calls_only: bool = False) -> None:
    logging.disable(logging.WARNING)  # the SDK's servers log every request at INFO
    server = build_server()
    stdio = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.mcp.mcp_servers.catalog"], cwd=REPO
    )
    print(
        f"{'transport':<11} {'raw ms':>7} {'lg ms':>7} {'ratio':>6}   "
        f"{'raw calls/s':>11} {'lg calls/s':>10} {'ratio':>6}"
    )
    print_calls("in-process", await measure_calls(lambda: mcp.Client(server), calls))
    print_calls("stdio", await measure_calls(lambda: mcp.Client(stdio), calls))
    with HttpServer(http_app, name="littleghost-bench-http") as http:
        print_calls("http", await measure_calls(lambda: mcp.Client(f"{http.url}/mcp"), calls))
    if not calls_only:
        await discovery()


def print_calls(label: str, f: dict[str, float]) -> None:
    print(
        f"{label:<11} {f['raw_call'] * 1e3:7.3f} {f['lg_call'] * 1e3:7.3f} "
        f"{f['lg_call'] / f['raw_call']:5.2f}x   {f['raw_throughput']:11.0f} "
        f"{f['lg_throughput']:10.0f} {f['lg_throughput'] / f['raw_throughput']:5.2f}x"
    )


async def discovery() -> None:
    """Discovery of the real catalog over every transport, then of the synthetic one.

    The HTTP server's thread runs only while HTTP is measured: idle, it still
    takes the GIL now and then, which would weigh on the other transports.
    """
    stdio = StdioServerParameters(
        command=sys.executable,
        args=[str(REPO / "bench" / "real_catalog.py"), "--count", str(CATALOG_TOOLS)],
        cwd=REPO,
    )
    real = catalog_server(CATALOG_TOOLS)
    title = f"discovery of {CATALOG_TOOLS} tools"
    print(f"\n{title:<34} {'raw ms':>8} {'lg ms':>8} ratio")

    def in_process() -> mcp.Client:
        return mcp.Client(real)

    print_discovery("real schemas, in-process", await measure_discovery(in_process, CATALOG_TOOLS))
    print_discovery(
        "real schemas, stdio", await measure_discovery(lambda: mcp.Client(stdio), CATALOG_TOOLS)
    )
    with HttpServer(
        lambda: catalog_http_app(CATALOG_TOOLS), name="littleghost-bench-catalog"
    ) as http:
        print_discovery(
            "real schemas, http",
            await measure_discovery(lambda: mcp.Client(f"{http.url}/mcp"), CATALOG_TOOLS),
        )
    read = await measure_discovery(in_process, CATALOG_TOOLS, read_specifications=True)
    print_discovery("  + every specification() read", read)
    synthetic = large_server(CATALOG_TOOLS)
    print_discovery(
        "synthetic schema, in-process",
        await measure_discovery(lambda: mcp.Client(synthetic), CATALOG_TOOLS),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--backend", default="asyncio", choices=["asyncio", "trio"])
    parser.add_argument(
        "--discovery-only", action="store_true", help="skip the call figures: discovery only"
    )
    parser.add_argument(
        "--calls-only", action="store_true", help="skip the discovery figures: calls only"
    )
    options = parser.parse_args()
    logging.disable(logging.WARNING)  # the SDK's servers log every request at INFO
    if options.discovery_only:
        anyio.run(discovery, backend=options.backend)
    else:
        anyio.run(main, options.calls, options.calls_only, backend=options.backend)
