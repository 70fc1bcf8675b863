"""``littleghost check TARGET``: fuzz every tool of an MCP server against its own schemas.

Exit status: 0 no violations, 1 violations, 2 a usage or connection error
(reported as one line on stderr).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from anyio.from_thread import start_blocking_portal

import littleghost as lg

from ..contracts.options import Options
from ..contracts.rules import describe
from .findings import Finding, ServerReport, ToolReport
from .fuzz import fuzz_tool
from .output import write_json, write_junit, write_table
from .session import Session
from .targets import TargetError, resolve_target

__all__ = ["main"]

EXIT_OK, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="littleghost", description="Tools for littleghost agents.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="fuzz an MCP server's tools and report contract violations",
        description="Fuzz every tool of an MCP server from its input schema and report "
        "contract violations. TARGET is a Streamable HTTP URL or module:attribute "
        "(an SDK MCPServer/Server or a FakeMCPServer); for a stdio server, put the "
        "command after --.",
        epilog="example: littleghost check littleghost_testing.demo_server:server",
    )
    check.add_argument("target", nargs="?", metavar="TARGET")
    check.add_argument("--examples", type=_positive, default=20, help="inputs per tool and kind")
    check.add_argument("--seed", type=int, default=None, help="seed (default: derandomized)")
    check.add_argument("--timeout", type=_seconds, default=10.0, help="seconds per call")
    check.add_argument("--json", type=Path, metavar="PATH", help="write a JSON report")
    check.add_argument("--junit-xml", type=Path, metavar="PATH", help="write a JUnit XML report")
    return parser


def _positive_number(kind: Callable[[str], Any], expected: str) -> Callable[[str], Any]:
    """An argparse type: ``kind(text)`` if it is a finite number above zero."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


_positive = _positive_number(int, "a positive integer")
_seconds = _positive_number(float, "a positive number of seconds")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in arguments:
        split = arguments.index("--")
        arguments, command = arguments[:split], arguments[split + 1 :]
    try:
        args = _parser().parse_args(arguments)
        target = resolve_target(args.target, command)
    except (_UsageError, TargetError) as error:
        return _error(str(error))
    # The SDK logs transport trouble; the CLI reports it itself, in one line.
    logging.getLogger().addHandler(logging.NullHandler())
    report = ServerReport(target.label, args.examples, args.seed, args.timeout)
    options = Options(lg.Binding, max_examples=args.examples, seed=args.seed)
    with start_blocking_portal("asyncio") as portal:
        session = Session(portal, target, args.timeout)
        try:
            _check_all(session, report, options, args.timeout)
        except _ConnectionFailed as failure:
            return _error(f"cannot connect to {target.label}: {failure}")
        finally:
            session.close()
    write_table(report, sys.stdout)
    try:
        if args.json is not None:
            write_json(report, args.json)
        if args.junit_xml is not None:
            write_junit(report, args.junit_xml)
    except OSError as error:
        return _error(f"cannot write the report: {error}")
    return EXIT_VIOLATIONS if report.violation_count else EXIT_OK


class _ConnectionFailed(Exception):
    pass


def _check_all(session: Session, report: ServerReport, options: Options, timeout: float) -> None:
    try:
        tools = session.open()
    # Reached it, but its catalog is broken, or names two tools alike once made model-safe.
    except (lg.ProtocolError, lg.ToolError, lg.ConfigurationError) as error:
        discovery = ToolReport("(tools/list)", examples=1)
        discovery.violations.append(
            Finding("malformed_catalog", None, "a valid tools/list answer", describe(error))
        )
        report.tools.append(discovery)
        return
    except lg.DeadlineExceededError:
        raise _ConnectionFailed(f"no tools/list answer within {timeout:g} s") from None
    except lg.ProviderError as error:
        raise _ConnectionFailed(str(error)) from None
    _progress(f"checking {report.target}: {len(tools)} tools")
    names = [tool.tool_name for tool in tools]
    for name in names:
        tool = next((tool for tool in tools if tool.tool_name == name), None)
        if tool is None:
            report.tools.append(ToolReport(name, notes=["not checked: gone after reconnecting"]))
            continue
        checked = fuzz_tool(session.portal, tool, options, timeout)
        report.tools.append(checked)
        _progress(f"  {name}: {checked.examples} examples, {len(checked.violations)} violations")
        if checked.crashed:
            tools = _reconnect(session)


def _reconnect(session: Session) -> list[lg.Tool]:
    try:
        return session.open()
    except (lg.LittleGhostError, lg.DeadlineExceededError) as error:
        _progress(f"  reconnecting after the crash failed: {describe(error)}")
        return []


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _error(message: str) -> int:
    print(f"littleghost: error: {message}", file=sys.stderr)
    return EXIT_ERROR
