"""Running ``check``: discovery, the plan, worker threads, and stopping cleanly.

Each worker is a thread with its own event loop (a blocking portal) and its
own connection, and takes the next planned tool when it is free. The main
thread only waits, so Ctrl-C (delivered to it) sets a flag that the engine
reads between calls, and cancels the calls in flight (the server is sent
``notifications/cancelled``): every tool reports what it did so far. A
second Ctrl-C exits at once. ``--max-time`` and ``--max-failures`` stop the
run through the same flag, letting the calls in flight finish. Resources and
prompts are read after the tools, on the first worker's connection (reopened
if its last tool broke it).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

from anyio.from_thread import BlockingPortal, start_blocking_portal

import littleghost as lg

from .._engine import (
    DISCOVERY,
    ConnectFailed,
    Finding,
    FindingGroup,
    FuzzOptions,
    PlannedTool,
    ReadCatalog,
    ReadPlan,
    ReadSession,
    ServerReport,
    ToolReport,
    check_reads,
    describe,
    fuzz_tool,
    list_reads,
    plan,
    read_catalog,
)
from .._targets import Target
from ._connect import ServerLog, connection_failure
from ._progress import Progress
from ._session import Session, heard
from ._text import plural

__all__ = ["Checker", "ConnectionFailed"]

#: How often the waiting main thread wakes up (to notice Ctrl-C and --max-time).
_POLL_SECONDS = 0.1
#: The exit status of a second Ctrl-C, which leaves without a report.
EXIT_INTERRUPTED = 130


class ConnectionFailed(Exception):
    """Connecting or discovering failed; the message is the one line to print."""


@dataclass
class _Stop:
    """Why the run stops early, once something says it should."""

    reason: str | None = None
    interrupted: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def set(self, reason: str, *, interrupted: bool = False) -> None:
        with self.lock:
            if self.reason is None:
                self.reason, self.interrupted = reason, interrupted


class _Calls:
    """A worker's portal for the engine, keeping the calls in flight so Ctrl-C can cancel them.

    Cancelling the future cancels the call's task: the SDK tells the server
    with ``notifications/cancelled``, and the engine records no answer for it.
    """

    def __init__(self, portal: BlockingPortal) -> None:
        self._portal = portal
        self._in_flight: set[Future[Any]] = set()
        self._cancelled = False
        self._lock = threading.Lock()

    def start_task_soon(self, func: Callable[[], Awaitable[Any]]) -> Future[Any]:
        future = self._portal.start_task_soon(func)
        with self._lock:
            self._in_flight.add(future)
            cancelled = self._cancelled  # Ctrl-C came as the engine decided to call
        future.add_done_callback(self._done)
        if cancelled:
            future.cancel()
        return future

    def _done(self, future: Future[Any]) -> None:
        with self._lock:
            self._in_flight.discard(future)

    def cancel(self) -> None:
        """Cancel the calls in flight, and any started from now on."""
        with self._lock:
            self._cancelled = True
            in_flight = list(self._in_flight)
        for future in in_flight:
            future.cancel()


class Checker:
    """One ``check`` run against ``target``: ``discover()``, then ``run(planned)``."""

    def __init__(
        self,
        target: Target,
        options: FuzzOptions,
        *,
        workers: int,
        max_time: float | None,
        log: ServerLog | None,
    ) -> None:
        self.target = target
        self.options = options
        self.workers = workers
        self.max_time = max_time
        self.log = log
        self.report = ServerReport(target.label, options=_summary(options, workers, max_time))
        self._stop = _Stop()
        self._deadline: float | None = None
        self._lost: str | None = None  # why a reconnection failed, if one did
        self._violations = 0
        self._lock = threading.Lock()
        self._stack = contextlib.ExitStack()
        self._first: tuple[BlockingPortal, Session] | None = None
        self._calls: list[_Calls] = []  # every worker's, for Ctrl-C to cancel

    # -- discovery ---------------------------------------------------------------

    def discover(self) -> list[PlannedTool] | None:
        """The plan, or ``None`` when the catalog itself is broken (recorded as a finding)."""
        portal = self._stack.enter_context(start_blocking_portal("asyncio"))
        session = Session(portal, self.target, self.options.timeout, self._errlog())
        self._first = (portal, session)
        try:
            tools = session.open()
        except (lg.ProtocolError, lg.ToolError, lg.ConfigurationError) as error:
            # Reached it, but its catalog is broken, or names two tools alike once model-safe.
            if self.target.refused_status is not None:
                raise ConnectionFailed(connection_failure(self.target, error, 0)) from None
            self.report.tools.append(_catalog_finding([error]))
            return None
        except (lg.LittleGhostError, lg.DeadlineExceededError, TimeoutError) as error:
            raise ConnectionFailed(
                connection_failure(self.target, error, self.options.timeout)
            ) from None
        if session.skipped:  # tools whose schemas cannot be used: the others are still checked
            self.report.tools.append(_catalog_finding(session.skipped))
        return plan(tools, self.options)

    # -- running -----------------------------------------------------------------

    def run(self, planned: list[PlannedTool], progress: Progress) -> ServerReport:
        """Fuzz every planned tool; Ctrl-C, ``--max-time`` and ``--max-failures`` stop early."""
        by_name = {tool.name: tool for tool in planned}
        reports: dict[str, ToolReport] = {}
        queue = deque(tool.name for tool in planned if tool.called)
        deadline = None if self.max_time is None else time.monotonic() + self.max_time
        self._deadline = deadline
        count = min(self.workers, len(queue))
        finished = threading.Semaphore(0)

        def worker(index: int) -> None:
            try:
                self._worker(index, queue, reports, by_name, deadline, progress)
            finally:
                finished.release()

        # Hypothesis runs gc.collect() once in every new thread (checking its PRNG
        # registration): ~0.1 s per worker when it walks every object the imports
        # made. Frozen for the run, the collector skips them.
        gc.freeze()
        try:
            for index in range(count):
                threading.Thread(
                    target=worker, args=(index,), name=f"littleghost-check-{index}", daemon=True
                ).start()
            self._wait(finished, count, progress)
        finally:
            gc.unfreeze()
        self._read(progress)
        for tool in planned:
            reports.setdefault(tool.name, self._not_run(tool))
        self.report.tools.extend(reports[tool.name] for tool in planned)
        self.report.interrupted = self._stop.interrupted
        if self._stop.reason is not None:
            self.report.options["stopped"] = self._stop.reason
        return self.report

    def _read(self, progress: Progress) -> None:
        """Resources and prompts, after the tools, on the first worker's connection."""
        options = self.options
        if self._first is None or not (options.resources or options.prompts):
            return
        if self._should_stop():
            return
        portal, session = self._first
        calls = _Calls(portal)
        self._calls.append(calls)
        finished = threading.Semaphore(0)

        def done(report: ToolReport) -> None:
            self._complete(report)
            progress.line(f"  {report.subject} {report.name}: {_counts(report)}")

        def reader() -> None:
            try:
                future = calls.start_task_soon(
                    partial(
                        check_reads,
                        self._read_session(session),
                        options,
                        self.report,
                        deadline=self._deadline,
                        should_stop=self._should_stop,
                        finished=done,
                    )
                )
                try:
                    future.result()
                except CancelledError:
                    pass  # Ctrl-C: the reports hold what was read before it
                except ConnectFailed as error:
                    self.report.notes.append(f"resources and prompts not read: {error}")
            finally:
                finished.release()

        threading.Thread(target=reader, name="littleghost-check-reads", daemon=True).start()
        self._wait(finished, 1, progress)

    def plan_reads(self) -> ReadPlan | None:
        """``--dry-run``: what would be read, on the discovery connection (``None``: nothing)."""
        options = self.options
        if self._first is None or not (options.resources or options.prompts):
            return None
        portal, session = self._first
        try:
            return portal.call(list_reads, self._read_session(session), options)
        except ConnectFailed as error:
            return ReadPlan([], [], [f"resources and prompts not listed: {error}"])

    def read_catalog(self) -> ReadCatalog:
        """``--lock``: the resources, templates and prompts listed on the discovery connection.

        Raises ``ConnectionFailed`` with the reason when a listing fails.
        """
        options = self.options
        if self._first is None or self._first[1].client is None:
            return {}
        portal, client = self._first[0], self._first[1].client
        try:
            return portal.call(
                partial(
                    read_catalog,
                    client,
                    options.timeout,
                    resources=options.resources,
                    prompts=options.prompts,
                )
            )
        except (lg.LittleGhostError, TimeoutError) as error:
            raise ConnectionFailed(describe(error)) from None

    def _read_session(self, session: Session) -> ReadSession:
        """The reads' view of ``session``: its client while usable, else reopened."""
        current = session.client if session.usable else None
        return ReadSession(session.reopen_client, self.options.timeout, current)

    def _wait(self, finished: threading.Semaphore, count: int, progress: Progress) -> None:
        """Wait for ``count`` workers; a semaphore, as an interrupted ``join`` can misreport."""
        while count:
            try:
                while count:
                    if finished.acquire(timeout=_POLL_SECONDS):
                        count -= 1
                    self._should_stop()  # notes --max-time running out
            except KeyboardInterrupt:
                _exit_on_the_next_interrupt()
                self._stop.set("interrupted (Ctrl-C)", interrupted=True)
                for calls in list(self._calls):
                    calls.cancel()
                progress.line(
                    "interrupted: cancelling the calls in flight, then reporting "
                    "(Ctrl-C again to exit at once)"
                )

    def _worker(
        self,
        index: int,
        queue: deque[str],
        reports: dict[str, ToolReport],
        by_name: dict[str, PlannedTool],
        deadline: float | None,
        progress: Progress,
    ) -> None:
        if index == 0 and self._first is not None:
            portal, session = self._first
            discovered = dict(by_name)
            self._work(portal, session, discovered, queue, reports, by_name, deadline, progress)
            return
        with start_blocking_portal("asyncio") as portal:
            session = Session(portal, self.target, self.options.timeout, self._errlog())
            try:
                self._work(portal, session, {}, queue, reports, by_name, deadline, progress)
            finally:
                session.close()
                self._heard(session)

    def _work(
        self,
        portal: BlockingPortal,
        session: Session,
        current: dict[str, PlannedTool],
        queue: deque[str],
        reports: dict[str, ToolReport],
        by_name: dict[str, PlannedTool],
        deadline: float | None,
        progress: Progress,
    ) -> None:
        """Take tools off ``queue`` until it is empty or the run stops; ``{}`` connects first."""
        connected = bool(current)
        calls = _Calls(portal)
        self._calls.append(calls)
        while not self._should_stop():
            try:
                name = queue.popleft()
            except IndexError:
                return
            if not connected:
                current, connected = self._reconnect(session, progress), True
            planned = current.get(name)
            if planned is None:
                why = self._lost or "gone from tools/list after reconnecting"
                reports[name] = _skipped(by_name[name], f"not checked: {why}")
                continue
            progress.started(name)
            try:
                report = fuzz_tool(
                    cast(BlockingPortal, calls),  # the engine only starts calls on it
                    planned,
                    self.options,
                    deadline=deadline,
                    should_stop=self._should_stop,
                    on_call=lambda report: self._called(report, progress),
                    faults=session.faults,
                )
            except Exception as error:  # littleghost's own bug: the other tools go on
                why = f"not checked: littleghost failed on it: {_where(error)}; please report it"
                report = _skipped(planned, why)
                connected = session.usable = False  # a call of it may still be in flight
            self._complete(report)
            reports[name] = report
            progress.finished(report)
            if report.crashed:
                self._tell_crash(progress)
                connected = session.usable = False
            elif any(group.example.kind == "timeout" for group in report.groups):
                # A server may still be busy with the call (a single-threaded one is
                # stuck on it): the next tool (or read) gets a fresh connection.
                connected = session.usable = False

    def _reconnect(self, session: Session, progress: Progress) -> dict[str, PlannedTool]:
        try:
            tools = session.open()
        except (lg.LittleGhostError, lg.DeadlineExceededError, TimeoutError) as error:
            failure = connection_failure(self.target, error, self.options.timeout)
            self._lost = f"reconnecting failed: {failure}"
            progress.line(f"  {self._lost}")
            return {}
        return {planned.name: planned for planned in plan(tools, self.options)}

    def _called(self, report: ToolReport, progress: Progress) -> None:
        """After each call: progress, and ``--max-failures`` with the violations so far."""
        progress.called(report.name)
        self._count_failures(report.violations_so_far)

    def _complete(self, report: ToolReport) -> None:
        with self._lock:
            self._violations += report.violation_count
        self._count_failures(0)

    def _count_failures(self, running: int) -> None:
        """Stop the run once the finished tools' violations plus ``running`` reach the limit."""
        limit = self.options.max_failures
        with self._lock:
            if limit is not None and self._violations + running >= limit:
                self._stop.set(f"--max-failures {limit} reached")

    def _should_stop(self) -> bool:
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self._stop.set(f"--max-time {self.max_time:g} s ran out")
        return self._stop.reason is not None

    def _not_run(self, planned: PlannedTool) -> ToolReport:
        if not planned.called:
            return _skipped(planned, planned.reason)
        return _skipped(planned, f"not reached: {self._stop.reason or 'stopped'}")

    def _tell_crash(self, progress: Progress) -> None:
        if self.log is None:
            return
        tail = self.log.tail()
        if tail:
            progress.line(f"  the server died; last lines of its stderr ({self.log.path}):")
            for line in tail:
                progress.line(f"    {line}")

    def _heard(self, session: Session) -> None:
        """Note the protocol ``session`` spoke, for the report."""
        with self._lock:
            self.report.protocol = heard(self.report.protocol, session.spoken)

    def _errlog(self) -> Any:
        return self.log.file() if self.log is not None else None

    def close(self) -> None:
        """Close the discovery connection and stop its event loop thread."""
        first, self._first = self._first, None
        try:
            if first is not None:
                with contextlib.suppress(RuntimeError):  # a stopped portal took its loop
                    first[1].close()
                self._heard(first[1])
        finally:
            self._stack.close()  # else the loop thread would keep the process alive


def _exit_on_the_next_interrupt() -> None:
    """After the first Ctrl-C, the next one leaves at once, whatever is still running."""
    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread receives signals

    def leave(signum: int, frame: object) -> None:
        print("littleghost: interrupted again: exiting without a report", file=sys.stderr)
        os._exit(EXIT_INTERRUPTED)  # worker threads may be stuck in a server's call

    signal.signal(signal.SIGINT, leave)


def _counts(report: ToolReport) -> str:
    verb = "get" if report.subject == "prompt" else "read"
    return (
        f"{plural(report.calls, verb)}, {plural(report.distinct_violations, 'violation')}, "
        f"{plural(report.distinct_warnings, 'warning')} ({report.elapsed:.1f} s)"
    )


def _where(error: Exception) -> str:
    """An error of littleghost's own, and the line that raised it: what a bug report needs."""
    frames = traceback.extract_tb(error.__traceback__)
    place = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{describe(error)}{place}"


def _skipped(planned: PlannedTool, reason: str) -> ToolReport:
    return ToolReport(planned.name, called=False, reason=reason, annotations=planned.annotations)


def _catalog_finding(errors: Sequence[BaseException]) -> ToolReport:
    """The ``tools/list`` answer's findings: a broken catalog, or each tool it lists unusable."""
    groups = [
        FindingGroup(
            Finding(
                kind="malformed_catalog",
                valid=True,
                keyword=None,
                path=None,
                input=None,
                expected="a valid tools/list answer",
                observed=describe(error),
                duration=0.0,
            ),
            1,
        )
        for error in errors
    ]
    return ToolReport("(tools/list)", reason=DISCOVERY, groups=groups)


def _summary(options: FuzzOptions, workers: int, max_time: float | None) -> dict[str, Any]:
    return {**options.summary(), "workers": workers, "max_time": max_time}
