"""``littleghost check``, ``call``, ``read``, ``get``, ``lock``, ``diff``, ``lint``: the commands.

Exit status of ``check``: 0 no violations, 1 violations, 2 a usage or
connection error (one line on stderr), 5 nothing checked (no tool called: none
listed and nothing read, or every listed tool skipped, whatever was read), 130
interrupted (partial results printed and written).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import littleghost as lg
from littleghost.mcp import CatalogLock

from .._engine import FuzzOptions, PlannedTool
from .._targets import TargetError, read_json
from ._call import call, get, read
from ._catalog import (
    diff,
    drifted,
    lint,
    lint_catalog,
    lock,
    mcp_tool_of,
    write_changes,
    write_warnings,
)
from ._connect import ServerLog, show_tail, target_of
from ._options import UsageError, parse
from ._output import (
    reproduce,
    write_json,
    write_junit,
    write_plan,
    write_read_plan,
    write_table,
)
from ._progress import Progress
from ._run import Checker, ConnectionFailed
from ._stdout import reader_may_leave
from ._text import visible

__all__ = ["main"]

EXIT_OK, EXIT_VIOLATIONS, EXIT_ERROR, EXIT_NOTHING, EXIT_INTERRUPTED = 0, 1, 2, 5, 130
#: An --inputs file larger than this is refused.
MAX_INPUTS_BYTES = 10 * 1024 * 1024


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``littleghost`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    try:
        args, command = parse(list(sys.argv[1:] if argv is None else argv))
    except UsageError as error:
        return _error(str(error))
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C stops a run cleanly even where the shell started us with SIGINT ignored.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with _sdk_logs_silenced():
            return _COMMANDS.get(args.command, _check)(args, command)
    except KeyboardInterrupt:  # a call, or a check before its run: nothing to report
        print("littleghost: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _check(args: Any, command: list[str]) -> int:
    with _left_out_unlogged():  # each worker's connection discovers the tools again
        return _checked(args, command)


def _checked(args: Any, command: list[str]) -> int:
    try:
        options = _options(args)
        target = target_of(args, command, args.target)
    except (TargetError, UsageError) as error:
        return _error(str(error))
    log = ServerLog(args.server_log, target.redact) if target.kind == "stdio" else None
    catalog_failed = False
    checker = Checker(target, options, workers=args.workers, max_time=args.max_time, log=log)
    try:
        try:
            planned = _discover(checker, options, log)
            catalog_failed = _catalog_checks(args, planned, checker)
        except (ConnectionFailed, TargetError, UsageError) as error:
            return _error(str(error))
        reproduce_line = reproduce(target.connect_words)
        if planned is not None and args.dry_run:
            return _dry_run(target.label, planned, checker)
        report = checker.report
        if planned is not None and args.verbose:
            write_plan(target.label, planned, sys.stderr)
        if planned is not None:
            called = sum(tool.called for tool in planned)
            with Progress(called, quiet=args.quiet or not called) as progress:
                progress.line(f"checking {target.label}: {called} of {len(planned)} tools")
                report = checker.run(planned, progress)
    finally:
        checker.close()
        if log is not None:
            log.close()
    with reader_may_leave():
        write_table(report, sys.stdout, reproduce_line, verbose=args.verbose)
        if log is not None and not log.empty():
            print(f"server stderr: {log.path}")
    try:
        if args.json is not None:
            write_json(report, args.json)
        if args.junit_xml is not None:
            write_junit(report, args.junit_xml, reproduce_line)
    except OSError as error:
        return _error(f"cannot write the report: {error}")
    if report.interrupted:
        return EXIT_INTERRUPTED
    if report.violation_count or catalog_failed:
        return EXIT_VIOLATIONS
    if report.checked == 0 and (report.listed or report.read == 0):
        return _nothing(planned or [])
    return EXIT_OK


def _dry_run(label: str, planned: Sequence[PlannedTool], checker: Checker) -> int:
    """``--dry-run``: the tools, then what would be read; 5 when no tool would be called
    (reads count only on a server that lists no tools), as a run would exit."""
    write_plan(label, planned, sys.stdout)
    reads = checker.plan_reads()
    if reads is not None:
        write_read_plan(reads, sys.stdout)
    if any(tool.called for tool in planned) or (not planned and reads is not None and reads.reads):
        return EXIT_OK
    return _nothing(planned)


def _catalog_checks(args: Any, planned: Sequence[PlannedTool] | None, checker: Checker) -> bool:
    """``--lock`` and ``--providers``, printed first; whether they fail the run."""
    if planned is None or (args.lock is None and not args.providers):
        return False
    tools = [mcp_tool_of(tool.tool) for tool in planned]
    catalog = CatalogLock.from_tools(tools)
    failed = False
    if args.lock is not None:
        try:
            locked = CatalogLock.load(args.lock)
        except lg.ConfigurationError as error:
            raise TargetError(str(error)) from None
        print(f"catalog against the lock {args.lock}:")
        try:
            catalog = CatalogLock.from_tools(tools, **checker.read_catalog())
        except ConnectionFailed as error:
            print(f"resources and prompts not compared: {visible(str(error))}")
        changes = locked.diff(catalog)
        write_changes(changes, sys.stdout)
        failed = drifted(changes)
    if args.providers:
        warnings = lint_catalog(catalog, args.providers)
        write_warnings(warnings, args.providers, len(catalog.tools), sys.stdout)
        failed = failed or (args.strict and bool(warnings))
    return failed


@contextlib.contextmanager
def _left_out_unlogged() -> Iterator[None]:
    """Discovery logs each tool it leaves out as a warning; ``check`` reports each as a
    ``malformed_catalog`` finding, so the warning would only say it twice (errors still show)."""
    toolsets = logging.getLogger("littleghost.mcp")

    def errors_only(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR

    toolsets.addFilter(errors_only)
    try:
        yield
    finally:
        toolsets.removeFilter(errors_only)


@contextlib.contextmanager
def _sdk_logs_silenced() -> Iterator[None]:
    """The SDK logs transport trouble to stderr; ``check`` reports it itself, in one line."""
    sdk, quiet = logging.getLogger("mcp"), logging.NullHandler()
    propagate = sdk.propagate
    sdk.propagate = False
    sdk.addHandler(quiet)  # without any handler, logging's last resort prints warnings
    try:
        yield
    finally:
        sdk.removeHandler(quiet)
        sdk.propagate = propagate


def _nothing(planned: Sequence[Any]) -> int:
    if not planned:
        why = "the server lists no tools"
    else:
        skipped = "the only tool was" if len(planned) == 1 else f"all {len(planned)} tools were"
        why = f"{skipped} skipped (see the reasons above)"
    print(f"littleghost: nothing checked: {why}", file=sys.stderr)
    return EXIT_NOTHING


def _options(args: Any) -> FuzzOptions:
    try:
        return FuzzOptions(
            examples=args.examples,
            seed=args.seed,
            timeout=args.timeout,
            tool_timeouts=dict(args.tool_timeout or []),
            include=args.include or (),
            exclude=args.exclude or (),
            allow_side_effects=args.allow_side_effects,
            strict=args.strict,
            inputs=_inputs(args.inputs),
            max_failures=args.max_failures,
            hypothesis_database=args.hypothesis_database,
            shrink_budget=args.shrink_budget,
            resources=not args.no_resources,
            prompts=not args.no_prompts,
        )
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from None


def _inputs(path: Path | None) -> dict[str, Any]:
    """``--inputs FILE``: a JSON object, tool name -> list of input objects."""
    if path is None:
        return {}
    data = read_json(path, MAX_INPUTS_BYTES, f"--inputs {path}")
    if not isinstance(data, dict):
        raise UsageError(f"--inputs {path} must be an object: tool name -> list of inputs")
    return data


def _discover(
    checker: Checker, options: FuzzOptions, log: ServerLog | None
) -> list[PlannedTool] | None:
    """The plan; a tool that ``--inputs`` or ``--tool-timeout`` names must be in it."""
    try:
        planned = checker.discover()
    except ConnectionFailed:
        show_tail(log)
        raise
    if planned is not None:  # else the catalog is broken: there are no names to compare with
        labels = {"inputs": "--inputs", "tool_timeouts": "--tool-timeout"}
        unknown = options.unknown_tools({tool.name for tool in planned}, labels)
        if unknown is not None:
            raise UsageError(unknown)
    return planned


def _error(message: str) -> int:
    print(f"littleghost: error: {visible(message)}", file=sys.stderr)
    return EXIT_ERROR


# Commands other than ``check``, by name.
_COMMANDS = {"call": call, "read": read, "get": get, "lock": lock, "diff": diff, "lint": lint}
