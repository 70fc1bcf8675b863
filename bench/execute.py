"""How much ``Tool.execute`` costs on top of the tool's own work.

For a small, a medium and a large real MCP tool schema, taken from the corpus
in ``tests/data/tool_schemas`` (filesystem, GitHub and LINE servers), with a
valid input for each, this measures per-call medians of:

- calling the tool's function directly (``await tool.call(input)``),
- the validator alone: jsonschema-rs ``is_valid`` as littleghost compiles it,
  and Python ``jsonschema``'s compiled validator for reference,
- ``await tool.execute(input)``, without and with a RunContext (guarded),
- ``execute`` of the same tool written as a sync ``def call`` (worker thread).

Everything runs in one event loop, in batches of many calls (fewer for slow
variants), interleaved across variants and repeated; the median is reported. A
last line times the ReDoS probe: a 100 000-character string against
``^(a+)+$``. Usage::

    python bench/execute.py               # print the markdown report
    python bench/execute.py --write       # and replace "## Tool execute" in docs/performance.md
    python bench/execute.py --profile sync  # cProfile a variant: execute, guarded or sync
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import importlib.metadata
import json
import os
import platform
import pstats
import re
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import jsonschema.validators
import jsonschema_rs

import littleghost as lg
from littleghost._validation import SchemaValidator

ROOT = Path(__file__).resolve().parent.parent
PERFORMANCE = ROOT / "docs" / "performance.md"
HEADING = "## Tool execute"
TARGET_US = 25.0
# ``execute``'s fixed cost on the small schema, as a share of what ``jsonschema``
# alone takes to validate the same input.
JSONSCHEMA_SHARE_TARGET = 0.7
REDOS_LIMIT_MS = 50.0
BATCH_SECONDS = 0.02
MIN_BATCH = 20
BACKTRACKING_PROBE = 22  # characters; each one more doubles Python's time

CORPUS = ROOT / "tests" / "data" / "tool_schemas"


# Components of the LINE flex message below.
def _text(value: str, **style: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **style}


def _row(label: str, value: str) -> dict[str, Any]:
    return {
        "type": "box",
        "layout": "horizontal",
        "contents": [
            _text(label, size="sm", color="#8C8C8C", flex=2),
            _text(value, size="sm", color="#111111", flex=5, wrap=True, align="end"),
        ],
    }


# What a model would send each tool.
READ_TEXT_FILE = {"path": "/srv/app/README.md", "head": 40}
CREATE_PULL_REQUEST_REVIEW = {
    "owner": "littleghost",
    "repo": "littleghost",
    "pull_number": 128,
    "commit_id": "6e517cb0d1f4c3a9b2e8f7a6c5d4e3f2a1b0c9d8",
    "body": "Looks good overall; a few comments on the registry changes.",
    "event": "REQUEST_CHANGES",
    "comments": [
        {"path": f"littleghost/{name}.py", key: 10 + index, "body": f"Comment {index}: why?"}
        for index, (name, key) in enumerate(
            [
                ("registry", "line"),
                ("tool", "position"),
                ("context", "line"),
                ("_closing", "line"),
                ("instrumentation", "position"),
                ("results", "line"),
            ]
        )
    ],
}
PUSH_FLEX_MESSAGE = {
    "userId": "U4af4980629a8b3e6f0d2c1b9a7e5d3c1",
    "message": {
        "type": "flex",
        "altText": "Order 481 has shipped",
        "contents": {
            "type": "bubble",
            "size": "mega",
            "header": {
                "type": "box",
                "layout": "vertical",
                "contents": [_text("Order shipped", weight="bold", size="xl", color="#1DB446")],
            },
            "hero": {
                "type": "image",
                "url": "https://shop.example/img/order-481.png",
                "size": "full",
                "aspectRatio": "20:13",
                "aspectMode": "cover",
            },
            "body": {
                "type": "box",
                "layout": "vertical",
                "spacing": "sm",
                "contents": [
                    _text("Order 481", weight="bold", size="lg"),
                    {"type": "separator", "margin": "md"},
                    _row("Carrier", "Parcelforce"),
                    _row("Tracking", "PF123456789GB"),
                    _row("Arrives", "Thursday, 4 December"),
                    {"type": "separator", "margin": "md"},
                    _text("Reply here if anything looks wrong.", size="xs", wrap=True),
                ],
            },
            "footer": {
                "type": "box",
                "layout": "vertical",
                "contents": [
                    {
                        "type": "button",
                        "style": "primary",
                        "action": {
                            "type": "uri",
                            "label": "Track parcel",
                            "uri": "https://shop.example/track/PF123456789GB",
                        },
                    },
                    {
                        "type": "button",
                        "style": "link",
                        "action": {
                            "type": "postback",
                            "label": "Contact us",
                            "data": "action=contact&order=481",
                        },
                    },
                ],
            },
        },
    },
}


@dataclass(frozen=True)
class Case:
    """A real tool's schema from the corpus, with a valid input for it."""

    name: str
    corpus_file: str
    tool: str
    input: dict[str, Any]

    @functools.cached_property
    def document(self) -> dict[str, Any]:
        return json.loads((CORPUS / self.corpus_file).read_text(encoding="utf-8"))

    @property
    def source(self) -> str:
        return f"{self.document['server']} `{self.tool}`"

    @property
    def schema(self) -> dict[str, Any]:
        return next(t["inputSchema"] for t in self.document["tools"] if t["name"] == self.tool)


CASES = (
    Case("small", "modelcontextprotocol__server-filesystem.json", "read_text_file", READ_TEXT_FILE),
    Case(
        "medium",
        "modelcontextprotocol__server-github.json",
        "create_pull_request_review",
        CREATE_PULL_REQUEST_REVIEW,
    ),
    Case("large", "line__line-bot-mcp-server.json", "push_flex_message", PUSH_FLEX_MESSAGE),
)
TARGETED = (
    ("`execute`", "execute"),
    ("`execute(context=…)`", "execute guarded"),
    ("sync `call`, `execute`", "execute sync"),
)
VARIANTS = (
    "direct",
    "jsonschema-rs",
    "littleghost validator",
    "jsonschema",
    "execute",
    "execute guarded",
    "execute sync",
)


def tools_for(case: Case) -> tuple[lg.Tool, lg.Tool]:
    """An async and a sync tool on ``case.schema`` doing the same trivial work."""

    class AsyncTool(lg.Tool):
        description = f"Benchmark tool ({case.name})."
        input_schema = case.schema

        async def call(self, input: Any) -> Any:
            return {"status": "ok", "fields": len(input)}

    class SyncTool(lg.Tool):
        description = f"Benchmark tool ({case.name}), blocking."
        input_schema = case.schema

        def call(self, input: Any) -> Any:
            return {"status": "ok", "fields": len(input)}

    return AsyncTool(), SyncTool()


Runner = Callable[[int], Awaitable[float]]


def batch_runners(case: Case) -> dict[str, Runner]:
    """For each variant, a coroutine timing ``n`` calls, returning µs per call."""
    fast, slow = tools_for(case)
    instance = case.input
    # jsonschema-rs configured as littleghost configures it, and littleghost's
    # own validator, which adds its checks (plain JSON only) on top.
    rust = jsonschema_rs.validator_for(
        case.schema,
        validate_formats=False,
        pattern_options=jsonschema_rs.RegexOptions(),
        offline=True,
    )
    ours = SchemaValidator(case.schema)
    reference_class = jsonschema.validators.validator_for(case.schema)
    reference = reference_class(case.schema)
    for check in (rust.is_valid, ours.is_valid, reference.is_valid):
        assert check(instance), f"the {case.name} input must be valid"

    async def direct(n: int) -> float:
        call = fast.call
        started = time.perf_counter()
        for _ in range(n):
            await call(instance)
        return _per_call(started, n)

    def validator(is_valid: Callable[[Any], bool]) -> Runner:
        async def timed(n: int) -> float:
            started = time.perf_counter()
            for _ in range(n):
                is_valid(instance)
            return _per_call(started, n)

        return timed

    def executing(tool: lg.Tool, context: lg.RunContext | None) -> Runner:
        async def timed(n: int) -> float:
            execute = tool.execute
            started = time.perf_counter()
            for _ in range(n):
                await execute(instance, context=context)
            return _per_call(started, n)

        return timed

    return {
        "direct": direct,
        "jsonschema-rs": validator(rust.is_valid),
        "littleghost validator": validator(ours.is_valid),
        "jsonschema": validator(reference.is_valid),
        "execute": executing(fast, None),
        "execute guarded": executing(fast, lg.RunContext()),
        "execute sync": executing(slow, None),
    }


def _per_call(started: float, n: int) -> float:
    return (time.perf_counter() - started) / n * 1e6


async def measure(iterations: int, repeats: int) -> dict[str, dict[str, float]]:
    """Median µs per call for every case and variant, batches interleaved.

    A batch is ``iterations`` calls, fewer for slow variants so that each
    batch takes about ``BATCH_SECONDS`` (at least ``MIN_BATCH`` calls).
    """
    batches: list[tuple[str, str, Runner, int]] = []
    for case in CASES:
        for variant, runner in batch_runners(case).items():
            estimate = max(await runner(MIN_BATCH), 0.01)  # also warms up
            n = max(MIN_BATCH, min(iterations, int(BATCH_SECONDS * 1e6 / estimate)))
            batches.append((case.name, variant, runner, n))
    samples: dict[tuple[str, str], list[float]] = {(c, v): [] for c, v, _, _ in batches}
    for _ in range(repeats):
        for case, variant, runner, n in batches:
            gc.collect()
            gc.disable()  # as timeit does: a collection lands in one batch at random
            try:
                samples[case, variant].append(await runner(n))
            finally:
                gc.enable()
    results: dict[str, dict[str, float]] = {case.name: {} for case in CASES}
    for (case, variant), values in samples.items():
        results[case][variant] = statistics.median(values)
    return results


def redos_probe(repeats: int) -> tuple[float, float]:
    """Milliseconds to reject ReDoS probes of ``^(a+)+$``: 100 000 characters with
    jsonschema-rs (median), and only ``BACKTRACKING_PROBE`` with Python's ``re``."""
    schema = {"type": "string", "pattern": "^(a+)+$"}
    validator = SchemaValidator(schema)
    probe = "a" * 100_000 + "!"
    assert not validator.is_valid(probe) and validator.is_valid(probe[:-1])
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        validator.is_valid(probe)
        timings.append((time.perf_counter() - started) * 1e3)
    backtracking = jsonschema.Draft202012Validator(schema)
    started = time.perf_counter()
    backtracking.is_valid("a" * BACKTRACKING_PROBE + "!")
    return statistics.median(timings), (time.perf_counter() - started) * 1e3


def report(
    results: dict[str, dict[str, float]],
    redos: tuple[float, float],
    elapsed: float,
    args: argparse.Namespace,
) -> str:
    """The markdown section, headed ``## Tool execute``."""
    lines = [
        HEADING,
        "",
        "What `Tool.execute` adds to a tool's own work: validating the input, the",
        "per-task context, error normalization and content rendering. Generated by",
        "`bench/execute.py`; the tool's function returns a small dict, so rendering",
        "that dict as JSON is part of the overhead.",
        "",
        f"The schemas are real ones from `tests/data/tool_schemas` ({_corpus_sizes()}),",
        "each with a valid input a model could send.",
        "",
        f"Machine: {_machine()}.",
        "",
        f"Reproduce from the repository root (this run took {elapsed:.0f} s):",
        "",
        "```sh",
        f"python bench/execute.py --iterations {args.iterations} --repeats {args.repeats}"
        f" --backend {args.backend}",
        "```",
        "",
        f"Median µs per call over {args.repeats} batches of up to {args.iterations} calls"
        f" (about {BATCH_SECONDS * 1000:.0f} ms each), all in one {args.backend} event loop:",
        "",
        "| schema | schema / input bytes | direct call | jsonschema-rs `is_valid` "
        "| littleghost's validator | jsonschema `is_valid` | `execute` | `execute(context=…)` "
        "| sync `call`, `execute` |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for case in CASES:
        row = results[case.name]
        sizes = f"{_size(case.schema)} / {_size(case.input)}"
        cells = " | ".join(_us(row[variant]) for variant in VARIANTS)
        lines.append(f"| {case.name}: {case.source} | {sizes} | {cells} |")
    lines += [
        "",
        f"Overhead over the direct call (target: at most {TARGET_US:.0f} µs more):",
        "",
        "| schema | `execute` - direct | of which validation (jsonschema-rs + JSON check) "
        "| rest of `execute` | guarded - direct | sync - direct | jsonschema ÷ jsonschema-rs |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for case in CASES:
        row = results[case.name]
        plain = row["execute"] - row["direct"]
        guarded = row["execute guarded"] - row["direct"]
        sync = row["execute sync"] - row["direct"]
        validation, rust = row["littleghost validator"], row["jsonschema-rs"]
        split = f"{_us(validation)} ({_us(rust)} + {_us(validation - rust)})"
        lines.append(
            f"| {case.name} | {_verdict(plain)} | {split} | {_us(plain - validation)} "
            f"| {_verdict(guarded)} | {_verdict(sync)} "
            f"| {row['jsonschema'] / rust:.0f}x |"
        )
    small = results[CASES[0].name]
    share = (small["execute"] - small["direct"]) / small["jsonschema"]
    met = "met" if share <= JSONSCHEMA_SHARE_TARGET else "**not met**"
    lines += [
        "",
        f"Fixed cost: on the small schema, `execute` - direct is {share:.2f}x what"
        f" `jsonschema` alone takes to validate the same input (target at most"
        f" {JSONSCHEMA_SHARE_TARGET}x: {met}).",
    ]
    redos_ms, backtracking_ms = redos
    verdict = "pass" if redos_ms < REDOS_LIMIT_MS else "**FAIL**"
    lines += [
        "",
        f"ReDoS probe: jsonschema-rs rejects a 100 000-character `'a' * 100_000 + '!'`"
        f" against `^(a+)+$` in {redos_ms:.2f} ms (limit {REDOS_LIMIT_MS:.0f} ms: {verdict}).",
        f"For contrast, `jsonschema` (Python's backtracking `re`) takes {backtracking_ms:.0f} ms"
        f" on just {BACKTRACKING_PROBE} characters, and twice as long for each one more.",
        "",
        f"Target: `execute` of a valid input costs at most {TARGET_US:.0f} µs more than"
        " calling the function directly.",
        "",
    ]
    for label, variant in TARGETED:
        overheads = [results[case.name][variant] - results[case.name]["direct"] for case in CASES]
        met = "met" if max(overheads) <= TARGET_US else "**not met**"
        lines.append(
            f"- {label}: {min(overheads):.1f} to {max(overheads):.1f} µs over a direct call;"
            f" target {met}."
        )
    lines += [
        "",
        "Where the time goes (`python bench/execute.py --profile execute|guarded|sync`):",
        "validation is jsonschema-rs plus littleghost's check that the input is plain",
        "JSON (a Python walk over the whole input that rejects NaN, infinities,",
        "non-string keys and lone surrogates, which jsonschema-rs lets through), so",
        "it grows with the input. The fixed rest is rendering the returned dict as",
        "JSON, building the result, the per-task context and the instrumentation",
        "check. A guarded call adds an anyio `CancelScope`, attached to the run's",
        "cancellation token, so that a cancel from any thread interrupts it. A sync",
        "`call` adds the round trip to a worker thread (`anyio.to_thread.run_sync`):",
        "two cross-thread wake-ups and several event loop iterations. That keeps a",
        "blocking tool from stalling the event loop, but it costs far more than a",
        "cheap tool: prefer `async def call` for tools that do not block.",
        "",
    ]
    return "\n".join(lines)


def _corpus_sizes() -> str:
    sizes = sorted(
        _size(tool["inputSchema"])
        for path in CORPUS.glob("*.json")
        for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]
    )
    return (
        f"{len(sizes)} input schemas: median {statistics.median(sizes):.0f} bytes,"
        f" 90th percentile {sizes[len(sizes) * 9 // 10]}, largest {sizes[-1]}"
    )


def _machine() -> str:
    versions = ", ".join(
        f"{name} {importlib.metadata.version(name)}"
        for name in ("jsonschema-rs", "jsonschema", "anyio")
    )
    processor = platform.processor() or platform.machine()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} cores ({processor}, {platform.system()}, load average {load:.1f}),"
        f" {platform.python_implementation()} {platform.python_version()}, {versions}"
    )


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")))


def _us(value: float) -> str:
    return f"{value:.2f}"


def _verdict(overhead: float) -> str:
    return _us(overhead) if overhead <= TARGET_US else f"**{_us(overhead)}**"


def write_section(section: str, path: Path = PERFORMANCE) -> None:
    """Replace this benchmark's section of ``path``, leaving every other section alone."""
    if not path.exists():
        path.write_text("# Performance\n\n" + section, encoding="utf-8")
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == HEADING), None)
    if start is None:
        text = "".join(lines).rstrip("\n") + "\n\n" + section
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if re.match(r"## ", lines[i])), len(lines)
        )
        text = "".join(lines[:start]) + section + ("\n" if end < len(lines) else "")
        text += "".join(lines[end:])
    path.write_text(text, encoding="utf-8")


async def profile(variant: str, iterations: int) -> None:
    """Where one ``execute`` variant spends its time, on the large schema."""
    fast, slow = tools_for(CASES[-1])
    tool = slow if variant == "sync" else fast
    context = lg.RunContext() if variant == "guarded" else None
    for _ in range(100):
        await tool.execute(CASES[-1].input, context=context)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(iterations):
        await tool.execute(CASES[-1].input, context=context)
    profiler.disable()
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="calls per batch")
    parser.add_argument("--repeats", type=int, default=15, help="batches per variant")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--write", action="store_true", help=f"update {HEADING!r} in docs")
    parser.add_argument(
        "--profile",
        choices=("execute", "guarded", "sync"),
        help="print a cProfile of this execute variant (large schema) instead",
    )
    args = parser.parse_args()
    if args.profile:
        anyio.run(profile, args.profile, args.iterations * 10, backend=args.backend)
        return
    started = time.monotonic()
    results = anyio.run(measure, args.iterations, args.repeats, backend=args.backend)
    redos = redos_probe(args.repeats)
    section = report(results, redos, time.monotonic() - started, args)
    print(section)
    if args.write:
        write_section(section)
        print(f"wrote {HEADING!r} in {PERFORMANCE.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
