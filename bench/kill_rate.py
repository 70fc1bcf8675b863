"""Kill rate: how many planted bugs ``littleghost check`` finds in the corpus, per setting.

Runs the real CLI (``--json``) over stdio on every corpus server in
``tests/corpus`` at the default settings and at ``--examples`` 5, 50 and 100,
one run each (and once more per ``--seeds`` value, with ``--seed N``), and
judges each report by ``tests/corpus/manifest.json``: planted bugs found /
total, false alarms (a finding on a control tool, or of another kind than the
planted one), wall time. The FastMCP server needs an interpreter
with ``fastmcp<3`` (``--fastmcp-python``), the same file under FastMCP 3.x one with
``fastmcp-slim[server]>=3,<4`` (``--fastmcp3-python``), the TypeScript one ``npm install`` in
``tests/corpus/ts``; a server that cannot run is left out and said so.

``--mcp-fuzzer PATH`` also runs PyPI's ``mcp-fuzzer`` (installed in a venv of
its own, never a project dependency) on the same servers, at its defaults and
with both phases and 50 runs per tool, judged by the same manifest. Its
findings map to kinds so: ``error_leakage`` is ``leaked_error_detail``;
``accepted_malformed`` is ``accepted_invalid`` when the input breaks the
tool's inputSchema (``ignored_unknown_property`` when only an unknown property
does) and a false alarm when the input is valid; ``timeout``, ``crashed`` and
``transport_error`` are ``timeout``, ``crash`` and ``transport_error``.

Each ``check`` run also reads the servers' resources, resource templates and
prompts: their planted bugs (the manifest's ``reads``) get a table of their
own. mcp-fuzzer reads them in its ``--mode resources`` and ``--mode prompts``,
once each per server at its defaults; a finding counts for a read when its
target is the resource's URI or the prompt's name.

    python bench/kill_rate.py [--settings default 5 50 100] [--seeds 1 2] [--fastmcp-python PATH]
        [--fastmcp3-python PATH]
        [--mcp-fuzzer PATH] [-v]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp
from jsonschema import Draft202012Validator
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from corpus.judge import Verdict, judge, load_manifest, planted, planted_reads  # noqa: E402

SETTINGS = ("default", "5", "50", "100")
SLOW_START_TIMEOUT = 60
"""--timeout for the FastMCP server: importing fastmcp 2.x alone takes ~10 s on a busy machine."""
RUN_TIMEOUT = 1800
"""One check run taking longer than this is reported as broken."""
CONNECT_RETRIES = 3
"""A run that could not connect (exit 2: a busy machine starts a server slowly) is tried again,
up to this many times."""
FUZZER_SETTINGS = {"default": [], "both, 50 runs": ["--phase", "both", "--runs", "50"]}
"""mcp-fuzzer's settings: its defaults (aggressive phase, 10 runs per tool), and more."""
FUZZER_KINDS = {
    "error_leakage": "leaked_error_detail",
    "timeout": "timeout",
    "crashed": "crash",
    "transport_error": "transport_error",
}
"""mcp-fuzzer's finding categories as `check`'s kinds (``accepted_malformed`` is judged apart)."""
VALID_BUT_FLAGGED = "accepted_malformed on a valid input"
FUZZER_READ_MODES = ("resources", "prompts")
"""mcp-fuzzer's modes that read resources (and templates) and get prompts."""
SEED = ", seed "
"""How a setting names its ``--seed``: ``default, seed 1``."""
CORPUS = {"tools": planted, "reads": planted_reads}
"""The manifest's rows each table judges, by table."""


def command_for(server: str, spec: dict, options: argparse.Namespace) -> list[str] | None:
    """The server's stdio command, or None when it cannot run here."""
    if server == "fastmcp" and options.fastmcp_python is None:
        return None
    if server == "fastmcp3" and options.fastmcp3_python is None:
        return None
    if server == "typescript" and not (REPO / "tests/corpus/ts/node_modules").is_dir():
        return None
    names = {
        "{python}": sys.executable,
        "{fastmcp_python}": options.fastmcp_python,
        "{fastmcp3_python}": options.fastmcp3_python,
    }
    return [names.get(word, word) for word in spec["command"]]


def run_check(
    server: str, command: list[str], setting: str, folder: Path, timeout: float | None
) -> tuple[dict, float]:
    report = folder / f"{server}-{setting.replace(' ', '_')}.json"
    argv = [sys.executable, "-m", "littleghost_testing.cli", "check", "--quiet"]
    argv += ["--json", str(report)]
    examples, _, seed = setting.partition(SEED)
    if examples != "default":
        argv += ["--examples", examples]
    if seed:
        argv += ["--seed", seed]
    slow = server.startswith("fastmcp")
    if slow or timeout is not None:
        argv += ["--timeout", str(max(timeout or 0, SLOW_START_TIMEOUT * slow))]
    for attempt in range(1 + CONNECT_RETRIES):
        started = time.perf_counter()
        finished = subprocess.run(
            [*argv, "--", *command], cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT
        )
        elapsed = time.perf_counter() - started
        if finished.returncode != 2 or attempt == CONNECT_RETRIES:
            break
        print(f"  ({server} at {setting}: {finished.stderr.strip()}; trying again)")
    if finished.returncode not in (0, 1) or not report.exists():
        raise SystemExit(f"{server} at {setting}: exit {finished.returncode}: {finished.stderr}")
    return json.loads(report.read_text()), elapsed


async def input_schemas(command: list[str], errlog: TextIO) -> dict[str, Any]:
    parameters = StdioServerParameters(command=command[0], args=command[1:], cwd=str(REPO))
    async with mcp.Client(stdio_client(parameters, errlog=errlog)) as client:
        tools = (await client.list_tools()).tools
    return {tool.name: tool.input_schema for tool in tools}


def fuzzer_kind(finding: dict[str, Any], schemas: dict[str, Any]) -> str:
    category = finding.get("category", "")
    if category != "accepted_malformed":
        return FUZZER_KINDS.get(category, category)
    sent = finding.get("evidence", {}).get("input")
    errors = list(Draft202012Validator(schemas[finding["target"]]).iter_errors(sent))
    if not errors:
        return VALID_BUT_FLAGGED
    if all(error.validator == "additionalProperties" for error in errors):
        return "ignored_unknown_property"
    return "accepted_invalid"


def run_fuzzer(
    fuzzer: str, server: str, command: list[str], setting: str, folder: Path
) -> tuple[dict, float]:
    """mcp-fuzzer's findings as a report of `check`'s shape: distinct kinds per tool."""
    output = folder / f"fuzzer-{server}-{setting.replace(' ', '_').replace(',', '')}"
    argv = [fuzzer, "--mode", "tools", "--protocol", "stdio", "--endpoint", shlex.join(command)]
    argv += ["--output-dir", str(output), "--timeout", str(SLOW_START_TIMEOUT)]
    started = time.perf_counter()
    finished = subprocess.run(
        [*argv, *FUZZER_SETTINGS[setting]],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    elapsed = time.perf_counter() - started
    findings_file = output / "findings.json"
    if not findings_file.exists():
        raise SystemExit(f"mcp-fuzzer on {server}: exit {finished.returncode}: {finished.stderr}")
    findings = json.loads(findings_file.read_text())["findings"]
    with open(os.devnull, "w") as errlog:
        schemas = anyio.run(input_schemas, command, errlog)
    kinds: dict[str, set[str]] = {name: set() for name in schemas}
    for finding in findings:
        if finding.get("target") in kinds:
            kinds[finding["target"]].add(fuzzer_kind(finding, schemas))
    tools = [
        {"name": name, "findings": [{"kind": kind} for kind in sorted(found)]}
        for name, found in kinds.items()
    ]
    return {"tools": tools}, elapsed


def run_fuzzer_reads(
    fuzzer: str, server: str, command: list[str], folder: Path
) -> tuple[dict, float]:
    """mcp-fuzzer's resources and prompts modes, as a report of `check`'s shape: the findings
    whose target is a read of the corpus (most of its findings target a request type)."""
    targets: dict[str, set[str]] = {}
    elapsed = 0.0
    for mode in FUZZER_READ_MODES:
        output = folder / f"fuzzer-{server}-{mode}"
        argv = [fuzzer, "--mode", mode, "--protocol", "stdio", "--endpoint", shlex.join(command)]
        argv += ["--output-dir", str(output), "--timeout", str(SLOW_START_TIMEOUT)]
        started = time.perf_counter()
        finished = subprocess.run(
            argv, cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT
        )
        elapsed += time.perf_counter() - started
        findings_file = output / "findings.json"
        if not findings_file.exists():
            raise SystemExit(f"mcp-fuzzer {mode} on {server}: exit {finished.returncode}")
        for finding in json.loads(findings_file.read_text())["findings"]:
            category = finding.get("category", "")
            targets.setdefault(finding.get("target"), set()).add(
                FUZZER_KINDS.get(category, category)
            )
    items = [
        {**row, "findings": [{"kind": kind} for kind in sorted(targets.get(row["name"], ()))]}
        for row in planted_reads(load_manifest(), server)
    ]
    return {"tools": [], "resources": items, "prompts": []}, elapsed


def print_table(title: str, rows: list[tuple[str, Verdict, float]], verbose: bool) -> None:
    print(f"\n{title}")
    print(f"{'setting':>16}  {'found':>7}  {'kill rate':>9}  {'false alarms':>12}  {'time':>7}")
    for setting, verdict, elapsed in rows:
        rate = len(verdict.found) / verdict.bugs if verdict.bugs else 0.0
        print(
            f"{setting:>16}  {len(verdict.found):>3}/{verdict.bugs:<3}  {rate:>9.0%}  "
            f"{len(verdict.false_alarms):>12}  {elapsed:>6.1f}s"
        )
        if verbose:
            print(f"{'':>18}missed: {', '.join(verdict.missed) or '-'}")
            print(f"{'':>18}false alarms: {', '.join(verdict.false_alarms) or '-'}")


def measure(
    runner: Any,
    settings: list[str],
    commands: dict[str, list[str]],
    manifest: dict,
    tables: tuple[str, ...] = ("tools", "reads"),
) -> tuple[dict[str, list[tuple[str, Verdict, float]]], dict[str, Any]]:
    """One run per setting and server, judged for each table (``CORPUS``) it fills."""
    rows: dict[str, list[tuple[str, Verdict, float]]] = {table: [] for table in tables}
    results: dict[str, Any] = {}
    for setting in settings:
        verdicts = {table: Verdict() for table in tables}
        elapsed, per_server = 0.0, {}
        for server, command in commands.items():
            report, seconds = runner(server, command, setting)
            per_server[server] = {"seconds": round(seconds, 1)}
            for table in tables:
                server_verdict = judge(CORPUS[table](manifest, server), report)
                verdicts[table].add(server_verdict)
                per_server[server][table] = vars(server_verdict)
            elapsed += seconds
        for table in tables:
            rows[table].append((setting, verdicts[table], elapsed))
        results[setting] = per_server
    return rows, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settings", nargs="*", default=list(SETTINGS), choices=SETTINGS)
    parser.add_argument(
        "--seeds", nargs="*", type=int, default=[], help="also run each setting with --seed N"
    )
    parser.add_argument("--servers", nargs="+", help="corpus servers (default: all that run)")
    parser.add_argument("--fastmcp-python", help="an interpreter with fastmcp 2.x installed")
    parser.add_argument(
        "--fastmcp3-python", help="an interpreter with FastMCP 3.x (fastmcp-slim[server]) installed"
    )
    parser.add_argument("--mcp-fuzzer", help="also run this mcp-fuzzer executable")
    parser.add_argument(
        "--timeout",
        type=float,
        help="check's --timeout for every server (on a busy machine a server may take more "
        "than the default 10 s to start; the planted hang sleeps a minute)",
    )
    parser.add_argument("--json", type=Path, help="write every verdict here")
    parser.add_argument("-v", "--verbose", action="store_true", help="list misses and alarms")
    options = parser.parse_args()

    manifest = load_manifest()
    commands = {}
    for server, spec in manifest["servers"].items():
        if options.servers and server not in options.servers:
            continue
        command = command_for(server, spec, options)
        if command is None:
            print(f"{server}: left out ({spec['sdk']}: not installed here)")
        else:
            commands[server] = command
    bugs = sum(row["kind"] != "none" for s in commands for row in planted(manifest, s))
    reads = sum(row["kind"] != "none" for s in commands for row in planted_reads(manifest, s))
    print(f"servers: {', '.join(commands)}; {bugs} planted tool bugs, {reads} read bugs")
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        rows, results["littleghost check"] = measure(
            lambda server, command, setting: run_check(
                server, command, setting, folder, options.timeout
            ),
            [
                f"{setting}{SEED}{seed}" if seed is not None else setting
                for setting in options.settings
                for seed in [None, *options.seeds]
            ],
            commands,
            manifest,
        )
        for table, table_rows in rows.items():
            if table_rows:
                print_table(f"littleghost check: {table}", table_rows, options.verbose)
        if options.mcp_fuzzer:
            rows, results["mcp-fuzzer"] = measure(
                lambda server, command, setting: run_fuzzer(
                    options.mcp_fuzzer, server, command, setting, folder
                ),
                list(FUZZER_SETTINGS),
                commands,
                manifest,
                tables=("tools",),
            )
            print_table("mcp-fuzzer: tools", rows["tools"], options.verbose)
            rows, results["mcp-fuzzer reads"] = measure(
                lambda server, command, setting: run_fuzzer_reads(
                    options.mcp_fuzzer, server, command, folder
                ),
                ["default"],
                commands,
                manifest,
                tables=("reads",),
            )
            print_table("mcp-fuzzer: reads", rows["reads"], options.verbose)
    if options.json:
        options.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
