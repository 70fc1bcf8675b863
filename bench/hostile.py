"""What hostile input and hostile servers cost littleghost (issue 7).

Three measurements, each against its target:

- peak memory of one MCP call against a server answering 1 GB, over stdio and
  over HTTP (the raw hostile servers of ``tests/hostile/servers``), above the
  idle baseline after discovery; target: within 2 x ``max_result_bytes``.
  Each transport runs in a fresh interpreter, so its peak RSS is its own;
- time for ``Tool.execute`` to reject an input with 1 000 000 wrong-typed
  array items; target: at most 50 ms;
- time for ``Tool.execute`` to reject a 100 000-character hostile string
  against a lookaround pattern (``^(?=.*a)(a+)+$``: the linear-time engine
  cannot run it, and on ``"a" * 100_000 + "!"`` a backtracking engine never
  finishes); target: within the match budget (``Tool.regex_timeout``).

Usage::

    python bench/hostile.py                  # print the markdown report
    python bench/hostile.py --backend trio
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import regex

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import littleghost as lg  # noqa: E402
from littleghost.mcp import Toolset  # noqa: E402

ANSWER_BYTES = 1 << 30
REJECT_TARGET_MS = 50.0
ITEMS = 1_000_000
HOSTILE_CHARACTERS = 100_000
LOOKAROUND = "^(?=.*a)(a+)+$"
REPEATS = 5
BUDGET_SLACK_MS = 10.0  # the timeout is checked between steps; the report adds a little


class Names(lg.Tool):
    description = "Takes a list of names."
    input_schema = {
        "type": "object",
        "properties": {"names": {"type": "array", "items": {"type": "string"}}},
    }

    def call(self, input: Any) -> Any:
        return "called"


class Code(lg.Tool):
    description = "Takes a code made of a's."
    input_schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": LOOKAROUND}},
    }

    def call(self, input: Any) -> Any:
        return "called"


def _max_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


async def one_huge_call(transport: str) -> dict[str, Any]:
    """In this (fresh) process: discover, then one call answered with 1 GB."""
    from tests.hostile.servers.clients import client_factory

    with client_factory(transport, "huge", ANSWER_BYTES) as make_client:

        class Huge(Toolset):
            def client(self, binding: lg.Binding) -> Any:
                return make_client()

        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await Huge.tools(binding)
            baseline = _max_rss_bytes()
            started = time.perf_counter()
            result = await probe(binding).execute({})
            elapsed = time.perf_counter() - started
            peak = _max_rss_bytes()
    return {
        "baseline": baseline,
        "growth": peak - baseline,
        "seconds": elapsed,
        "error": str(result.error),
        "bound": Toolset.max_result_bytes,
    }


def huge_call_in_child(transport: str, backend: str) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", transport, "--backend", backend]
    completed = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(completed.stdout.strip().splitlines()[-1])


async def median_ms(tool: lg.Tool, input: Any, expected: str) -> tuple[float, float]:
    """Median wall-clock and CPU milliseconds of ``tool.execute(input)``, an error result."""
    walls, cpus = [], []
    for _ in range(REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        result = await tool.execute(input)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        assert result.is_error and expected in result.content, result.content
    return statistics.median(walls), statistics.median(cpus)


def regex_alone_ms(text: str, timeout: float) -> tuple[float, float]:
    """The backtracking engine's own time to give up: the floor under ``execute``'s."""
    compiled = regex.compile(LOOKAROUND)
    walls, cpus = [], []
    for _ in range(REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        with contextlib.suppress(TimeoutError):
            compiled.match(text, timeout=timeout)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


async def report(backend: str) -> str:
    lines = [
        f"Machine: {_cores()} cores (load average {os.getloadavg()[0]:.1f}), "
        f"CPython {sys.version.split()[0]}, {backend}. Times are medians of {REPEATS} runs, "
        "wall clock / CPU; targets are judged on CPU time, which other work on the "
        "machine does not inflate.",
        "",
        "| measurement | result | target |",
        "|---|--:|---|",
    ]
    for transport in ("stdio", "http"):
        measured = huge_call_in_child(transport, backend)
        bound = measured["bound"]
        growth = measured["growth"]
        verdict = "pass" if growth <= 2 * bound else "not met"
        lines.append(
            f"| 1 GB answer over {transport}: peak RSS above the idle baseline "
            f"(rejected in {measured['seconds'] * 1000:.0f} ms) | {growth / 2**20:.1f} MiB | "
            f"≤ {2 * bound / 2**20:.0f} MiB, 2x `max_result_bytes` ({verdict}) |"
        )
    items = {"names": [0] * ITEMS}
    wall, cpu = await median_ms(Names(), items, "$.names[0] must be string")
    verdict = "pass" if cpu <= REJECT_TARGET_MS else "not met"
    lines.append(
        f"| reject {ITEMS:,} wrong-typed items via `Tool.execute` | {wall:.1f} / {cpu:.1f} ms | "
        f"≤ {REJECT_TARGET_MS:.0f} ms ({verdict}) |"
    )
    hostile = {"code": "a" * HOSTILE_CHARACTERS + "!"}
    budget_ms = Code.regex_timeout * 1000
    wall, cpu = await median_ms(Code(), hostile, "Invalid tool input")
    alone_wall, alone_cpu = regex_alone_ms(hostile["code"], Code.regex_timeout)
    verdict = "pass" if cpu <= budget_ms + BUDGET_SLACK_MS else "not met"
    lines.append(
        f"| `{LOOKAROUND}` against {HOSTILE_CHARACTERS:,} hostile characters via "
        f"`Tool.execute` | {wall:.1f} / {cpu:.1f} ms | within the match budget, "
        f"`regex_timeout` = {budget_ms:.0f} ms, + {BUDGET_SLACK_MS:.0f} ms ({verdict}) |"
    )
    lines.append(
        f"| for reference: one match of the same pattern by the `regex` package alone, "
        f"`timeout={Code.regex_timeout:g}` | {alone_wall:.1f} / {alone_cpu:.1f} ms | — |"
    )
    return "\n".join(lines)


def _cores() -> int:
    return os.cpu_count() or 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    parser.add_argument("--child", choices=["stdio", "http"], help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        measured = anyio.run(one_huge_call, arguments.child, backend=arguments.backend)
        print(json.dumps(measured))
        return
    started = time.perf_counter()
    print(anyio.run(report, arguments.backend, backend=arguments.backend))
    print(f"\n(took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
