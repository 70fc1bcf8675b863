"""``littleghost check``'s own cost per call, against raw ``mcp.Client.call_tool``.

Run: ``python bench/check.py [--examples N] [--rounds R]``.

Both sides talk to the same stdio server (the bundled demo server, one
process each) over an already open connection. The checker's side is a whole
``check`` run (planning, input generation, classification, shrinking, the
progress counters) timed from the first call to the report; every input it
sends is recorded on the way out. The raw side then sends exactly those
inputs, in the same order, with ``mcp.Client.call_tool``. The ratio is the
checker's time per call over the raw time per call: what the checker adds
on top of the calls themselves. Rounds alternate and the medians are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]

from littleghost_testing._engine import FuzzOptions, _tool_run  # noqa: E402
from littleghost_testing._engine._planning import server_name  # noqa: E402
from littleghost_testing._targets import resolve  # noqa: E402
from littleghost_testing.cli._progress import Progress  # noqa: E402
from littleghost_testing.cli._run import Checker  # noqa: E402

COMMAND = [sys.executable, "-m", "littleghost_testing.demo_server"]
TIMEOUT = 60.0
"""Seconds to connect and per call: generous, so a loaded machine slows the bench, not fails it."""


def checked(examples: int) -> tuple[float, float, list[tuple[str, dict[str, Any]]]]:
    """Seconds of one ``check`` run (connection open), of its calls alone, and the inputs sent."""
    sent: list[tuple[str, dict[str, Any]]] = []
    in_calls = 0.0
    original = _tool_run.call_once

    async def recording(tool: Any, probe: Any, **keywords: Any) -> Any:
        nonlocal in_calls
        sent.append((server_name(tool), probe.input))
        started = time.perf_counter()
        try:
            return await original(tool, probe, **keywords)
        finally:
            in_calls += time.perf_counter() - started

    _tool_run.call_once = recording
    checker = Checker(
        resolve(None, command=COMMAND),
        # Tools only: the raw side replays tool calls, not resource and prompt reads.
        FuzzOptions(
            examples=examples, shrink_budget=5.0, timeout=TIMEOUT, resources=False, prompts=False
        ),
        workers=1,
        max_time=None,
        log=None,
    )
    try:
        planned = checker.discover()
        assert planned is not None
        started = time.perf_counter()
        report = checker.run(planned, Progress(0, quiet=True))
        seconds = time.perf_counter() - started
    finally:
        checker.close()
        _tool_run.call_once = original
    assert report.checked == len(planned) and sent
    return seconds, in_calls, sent


async def raw(inputs: list[tuple[str, dict[str, Any]]]) -> float:
    """Seconds to send ``inputs`` with ``mcp.Client.call_tool`` (connection open)."""
    parameters = StdioServerParameters(command=COMMAND[0], args=COMMAND[1:])
    async with mcp.Client(parameters) as client:
        await client.list_tools()
        started = time.perf_counter()
        for name, arguments in inputs:
            with contextlib.suppress(Exception):  # a refused invalid input is an answer too
                await client.call_tool(name, arguments)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    runs: list[tuple[int, float, float, float]] = []
    for _ in range(args.rounds):
        seconds, in_calls, inputs = checked(args.examples)
        runs.append((len(inputs), seconds, in_calls, anyio.run(raw, inputs)))

    def median(pick: Any) -> float:
        return statistics.median(pick(*run) for run in runs)

    per_call = 1e3
    print(f"calls per run: {median(lambda n, *_: n):.0f} (median of {args.rounds} runs)")
    print(
        f"whole run:  check {median(lambda n, s, c, r: s / n * per_call):.2f} ms/call, "
        f"raw call_tool {median(lambda n, s, c, r: r / n * per_call):.2f} ms/call, "
        f"ratio {median(lambda n, s, c, r: s / r):.2f}x"
    )
    print(
        f"calls only: check {median(lambda n, s, c, r: c / n * per_call):.2f} ms/call, "
        f"ratio {median(lambda n, s, c, r: c / r):.2f}x "
        "(overlapping the generation of the next input, so not the calls' own cost)"
    )


if __name__ == "__main__":
    main()
