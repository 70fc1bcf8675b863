"""``fuzz_tool``: one tool, fuzzed from its own schema, each distinct bug shrunk.

Order of inputs: the schema's examples and defaults, then the caller's
known-good inputs, then the coverage phase's valid inputs (``_coverage``),
then generated valid inputs; then invalid inputs made by breaking inputs that
worked and the smallest and fullest valid inputs (``_mutations``), then
generated invalid ones. Generated inputs are prefix-stable and bounded by a
generation budget (``_draws``). Exploration records every finding and never
raises; then each distinct bug's (kind and keyword) smallest input is shrunk
itself (``_shrink``), whatever phase found it, and the bug is searched again
with Hypothesis raising on it, so its shrinker reduces what it finds. Answers are
cached per input, so replaying what exploration already sent costs no call,
and a timed-out input is never sent again. While exploring, the next input is
generated while the server answers the previous one (one call in flight at
most, calls in the order generated), with prompt handoffs between the two
threads (``_handoff``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from functools import partial
from typing import Any

from anyio.from_thread import BlockingPortal
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import FailedHealthCheck, Flaky, Unsatisfiable

import littleghost as lg
from littleghost._validation import SchemaValidator, middle_cut

from ..strategies import InvalidInput, SchemaError, from_schema, invalid_inputs
from ._calls import UNKNOWN_PROPERTY_KEYWORDS, Outcome, Probe, call_once
from ._coverage import MAX_COVERAGE_INPUTS, SchemaParts, base_inputs, valid_coverage
from ._draws import GENERATION_BUDGET, Budget, OutOfBudget, draw, example_seed, plain
from ._faults import TransportFaults
from ._findings import Finding, FindingGroup, ToolReport, show, unexercised
from ._handoff import prompt_handoffs
from ._hollow import Answered, hollow
from ._inputs import is_zero_argument, schema_inputs
from ._mutations import UNKNOWN_PROPERTY, broken_inputs
from ._options import FuzzOptions
from ._planning import PlannedTool, plan
from ._shrink import probe_like, shrunk
from ._storage import hypothesis_home

__all__ = ["MAX_DRAWS_PER_EXAMPLE", "MAX_WORKING_INPUTS", "NOT_SHRUNK", "fuzz_tool"]

NOT_SHRUNK = frozenset({"timeout", "crash", "transport_error", "unexercised"})
"""Kinds never shrunk: re-sending would cost a timeout, a dead server or a flaky network."""

MAX_WORKING_INPUTS = 3
"""Invalid inputs are made from at most this many inputs that succeeded (the first ones)."""

MAX_DRAWS_PER_EXAMPLE = 10
"""Draws per example asked for, at most: a draw may repeat an input or give none."""

MAX_NOTE_CHARS = 200
"""A note is one line of at most this many characters (its middle left out)."""

MAX_SHOWN_CHARS = 200
"""How much of a hollow answer an ``unexercised`` warning quotes."""

_DEFAULT_SEED = 0
"""The seed behind ``seed=None``: derandomized, the same inputs on every run."""


_HEALTH_CHECKS = [
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.too_slow,
    HealthCheck.large_base_example,
]
"""Suppressed: slow servers and hard schemas are facts to report, not a reason to dump."""


class _Stop(BaseException):
    """Ends a Hypothesis run early; a BaseException, so Hypothesis does not take it for a bug."""


class _Found(Exception):
    """Raised for the bug being shrunk, so Hypothesis keeps inputs that still show it."""


def fuzz_tool(
    portal: BlockingPortal,
    tool: lg.Tool | PlannedTool,
    options: FuzzOptions,
    *,
    deadline: float | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    on_call: Callable[[ToolReport], None] | None = None,
    faults: TransportFaults | None = None,
) -> ToolReport:
    """Fuzz one tool (unless its plan skips it) and report what it answered and what broke.

    ``deadline`` is a ``time.monotonic()`` value; it and ``should_stop`` are
    checked between calls. ``on_call`` sees the report after every call
    (``violations_so_far`` counts its violations while it runs).
    ``faults``, attached to the tool's client, reports an unparseable answer
    after ``FAULT_GRACE_SECONDS`` rather than the timeout (littleghost's own
    connections already fail such a call at once).
    """
    planned = tool if isinstance(tool, PlannedTool) else plan([tool], options)[0]
    report = ToolReport(
        planned.name,
        called=planned.called,
        reason=planned.reason,
        annotations=planned.annotations,
    )
    if planned.called:
        with hypothesis_home(), prompt_handoffs():
            run = _ToolRun(portal, planned, options, report, deadline, should_stop, on_call, faults)
            run.run()
    return report


class _ToolRun:
    def __init__(
        self,
        portal: BlockingPortal,
        planned: PlannedTool,
        options: FuzzOptions,
        report: ToolReport,
        deadline: float | None,
        should_stop: Callable[[], bool],
        on_call: Callable[[ToolReport], None] | None,
        faults: TransportFaults | None,
    ) -> None:
        self.portal = portal
        self.tool = planned.tool
        self.options = options
        self.report = report
        self.deadline = deadline
        self.should_stop = should_stop
        self.on_call = on_call
        self.faults = faults
        self.seconds = options.timeout_for(planned.name)
        self.schema = planned.tool.input_schema
        self.cache: dict[tuple[bool, str], Outcome] = {}
        self.findings: dict[tuple[str, str | None], list[Finding]] = {}
        self.stop_reason: str | None = None
        self.first_refusal: str | None = None
        self.successes: list[dict[str, Any]] = []
        self.answered: list[Answered] = []  # valid inputs' successes, to judge hollow ones
        self.refusals: list[Answered] = []  # invalid inputs' refusals, to compare them with
        self.budget = Budget(GENERATION_BUDGET, deadline)
        self._parts: SchemaParts | None = None
        self._bases: list[Any] | None = None
        self.in_flight: tuple[Probe, tuple[bool, str], Future[Outcome]] | None = None
        try:
            self.validator: SchemaValidator | None = SchemaValidator(self.schema)
        except lg.ConfigurationError:
            self.validator = None  # generation names the schema's problem in a note

    def run(self) -> None:
        started = time.monotonic()
        try:
            self._explicit()
            if is_zero_argument(self.schema):
                self._send(Probe({}, valid=True))
            else:
                self._generating(self._valid_coverage)
                self._generating(lambda: self._explore("valid", from_schema, _valid_probe))
                self._settle()
                self._empty_if_none_made()
            self._unknown_property()
            if _has_invalid_objects(self.schema):
                self._generating(self._invalid_coverage)
                self._generating(lambda: self._explore("invalid", invalid_inputs, _invalid_probe))
                self._settle()
            self._shrink_all()
        except _Stop:
            pass  # the call in flight was cancelled: the report holds what came before it
        finally:
            if self.stop_reason is not None:
                self._note(f"stopped early: {self.stop_reason}")
            self._finish()
            self.report.elapsed = time.monotonic() - started

    # -- inputs -----------------------------------------------------------------------

    def _explicit(self) -> None:
        """The schema's own examples and defaults, then the caller's inputs, valid ones only."""
        validator = self.validator
        if validator is None:
            return
        given = [(None, value) for value in schema_inputs(self.schema)]
        given += [
            (f"inputs[{self.report.name!r}][{n}]", dict(value))
            for n, value in enumerate(self.options.inputs.get(self.report.name, ()))
        ]
        for source, value in given:
            broken = validator.violations(value)
            if not broken:
                self._send(Probe(value, valid=True))
            elif source is not None:  # combined schema examples may lack a required key
                first = broken[0]
                self._note(f"{source} not sent: it breaks {first.keyword!r} at {first.path}")

    def _empty_if_none_made(self) -> None:
        """``{}``, when the schema admits it and generation made no valid input at all.

        A schema generation gives up on (past a limit, or unsupported) may still
        leave every key optional: the tool is called once rather than never.
        """
        if self.report.valid_calls or self.validator is None or not self.validator.is_valid({}):
            return
        if self._send(Probe({}, valid=True)) is not None:
            self._note("the one valid input sent: {}, which the schema admits")

    def _unknown_property(self) -> None:
        """One input that works plus a key the schema forbids: does the server refuse it?

        Generated invalid inputs break this rule only by luck within a few
        examples; servers that ignore unknown keys are common enough to check
        every time.
        """
        if not self.successes or self.validator is None:
            return
        value = {**self.successes[0], UNKNOWN_PROPERTY: 0}
        broken = self.validator.violations(value)
        if len(broken) == 1 and broken[0].keyword in UNKNOWN_PROPERTY_KEYWORDS:
            self._send(Probe(value, valid=False, keyword=broken[0].keyword, path=broken[0].path))

    def _generating(self, phase: Callable[[], None]) -> None:
        """Run one generating phase; a budget that runs out ends it with a note."""
        if self._stopped():
            return
        try:
            phase()
        except OutOfBudget:
            if self.budget.past_deadline:
                self.stop_reason = self.stop_reason or "out of time"
            else:
                self._note(
                    f"input generation stopped: over its {self.budget.seconds:g} s budget per tool"
                )

    def _schema_parts(self) -> SchemaParts | None:
        if self._parts is None and self.validator is not None:
            try:
                self._parts = SchemaParts(self.schema, self.budget)
            except SchemaError as error:
                self._note(f"no coverage inputs: {error}")
                self.validator = None
        return self._parts

    def _base_inputs(self) -> list[Any]:
        """The smallest and the fullest valid input, made once."""
        parts = self._schema_parts()
        if self._bases is None:
            self._bases = [] if parts is None else base_inputs(parts, self._checker())
        return self._bases

    def _checker(self) -> SchemaValidator:
        assert self.validator is not None  # set whenever schema parts are
        return self.validator

    def _valid_coverage(self) -> None:
        """Deterministic valid inputs at the schema's edges, before any random one."""
        parts = self._schema_parts()
        if parts is None:
            return
        for value in valid_coverage(parts, self._checker(), self._base_inputs()):
            if isinstance(value, dict) and not self._start(Probe(value, valid=True)):
                return

    def _invalid_coverage(self) -> None:
        """One constraint broken on each input that worked, then on the smallest and fullest.

        An input that worked is broken as given and with every optional key
        it lacks added, so its optional keys' own checks are reached too.
        """
        parts = self._schema_parts()
        if parts is None:
            return
        self._settle()  # the last valid answer may add a working input
        bases: dict[str, Any] = {}
        worked = [(value, parts.fullest(value)) for value in self.successes]
        for base in [*itertools.chain.from_iterable(worked), *self._base_inputs()]:
            bases.setdefault(json.dumps(base, sort_keys=True, default=repr), base)
        sent = 0
        for base in bases.values():
            for probe in broken_inputs(parts, self._checker(), base):
                if sent >= MAX_COVERAGE_INPUTS:
                    return
                if not self._start(probe):
                    return
                sent += 1

    def _valid_probes(self) -> st.SearchStrategy[Probe] | str:
        if is_zero_argument(self.schema):  # the one valid input; shrinking sends nothing new
            return st.just(Probe({}, valid=True))
        try:
            values = from_schema(self.schema)
        except SchemaError as error:
            return f"no valid inputs: {error}"
        return values.filter(lambda value: isinstance(value, dict)).map(
            lambda value: Probe(value, valid=True)
        )

    def _invalid_probes(self) -> st.SearchStrategy[Probe] | str:
        try:
            broken = invalid_inputs(self.schema)
        except SchemaError as error:
            return f"no invalid inputs: {error}"
        return broken.filter(lambda item: isinstance(item.value, dict)).map(_probe)

    # -- calls ------------------------------------------------------------------------

    def _stopped(self) -> bool:
        if self.report.crashed:
            return True
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.stop_reason = self.stop_reason or "out of time"
        elif self.should_stop():
            self.stop_reason = self.stop_reason or "asked to stop"
        return self.stop_reason is not None

    def _send(self, probe: Probe) -> Outcome | None:
        """The answer to ``probe``: from the cache, or from one call; ``None`` once stopped."""
        if not self._start(probe):
            return None
        key = _key(probe)
        self._settle()
        return self.cache[key]

    def _start(self, probe: Probe) -> bool:
        """Send ``probe`` unless it was sent already; ``False`` once stopped.

        The call it starts is left in flight, after the one before it has been
        answered and recorded, so stop rules see every answer before a new call.
        """
        key = _key(probe)
        if key in self.cache or (self.in_flight is not None and self.in_flight[1] == key):
            return True
        self._settle()
        if self._stopped():
            return False
        call = partial(
            call_once,
            self.tool,
            probe,
            seconds=self.seconds,
            strict=self.options.strict,
            faults=self.faults,
        )
        self.in_flight = (probe, key, self.portal.start_task_soon(call))
        return True

    def _settle(self) -> None:
        """Wait for the call in flight, if any, and record its answer."""
        if self.in_flight is None:
            return
        probe, key, answer = self.in_flight
        self.in_flight = None
        try:
            outcome = answer.result()
        except CancelledError:  # the caller cancelled it (Ctrl-C): no answer, no finding
            self.stop_reason = self.stop_reason or "interrupted"
            raise _Stop from None
        self.cache[key] = outcome
        self._record(probe, outcome)

    def _record(self, probe: Probe, outcome: Outcome) -> None:
        report = self.report
        if probe.valid:
            report.valid_calls += 1
            if outcome.answer == "success":
                report.answers.success += 1
                if any(finding.kind == "error_as_success" for finding in outcome.findings):
                    # Refused in a success's words: no base for inputs that work.
                    report.answers.reads_as_error += 1
                else:
                    if outcome.text is not None:
                        self.answered.append(Answered(probe.input, outcome.text))
                    if len(self.successes) < MAX_WORKING_INPUTS and isinstance(probe.input, dict):
                        self.successes.append(probe.input)
            elif outcome.answer == "is_error":
                report.answers.is_error += 1
            elif outcome.answer == "jsonrpc_error":
                report.answers.jsonrpc_error += 1
            self.first_refusal = self.first_refusal or outcome.said
        else:
            report.invalid_calls += 1
            if outcome.refused and outcome.text is not None:
                self.refusals.append(Answered(probe.input, outcome.text))
        for finding in outcome.findings:
            self.findings.setdefault(finding.group, []).append(finding)
            report.violations_so_far += finding.severity == "violation"
        if outcome.crashed:
            report.crashed = True
            self._note("stopped: the connection closed")
        elif outcome.timed_out and self.stop_reason is None:
            # A slow tool would eat the run one timeout at a time; one finding says it all.
            self.stop_reason = (
                f"a call took over {self.seconds:g} s "
                "(more time: --tool-timeout NAME=SECONDS, or tool_timeouts)"
            )
        if self.on_call is not None:
            self.on_call(report)

    # -- Hypothesis -------------------------------------------------------------------

    def _explore(
        self,
        what: str,
        build: Callable[[Any], st.SearchStrategy[Any]],
        to_probe: Callable[[Any], Probe | None],
    ) -> None:
        """Up to ``examples`` new generated inputs; findings are recorded, never raised.

        Example ``n`` is drawn from a seed fixed by the run's seed and ``n``
        alone, so a run with more examples sends every input a run with fewer
        sends. Inputs already sent (by an earlier phase or a repeated draw) do
        not count.
        """
        try:
            strategy = plain(build(self.schema))
        except SchemaError as error:
            self._note(f"no {what} inputs: {error}")
            return
        run_seed = _DEFAULT_SEED if self.options.seed is None else self.options.seed
        new = 0
        for index in range(self.options.examples * MAX_DRAWS_PER_EXAMPLE):
            if new >= self.options.examples or self._stopped():
                return
            try:
                drawn = draw(strategy, self.budget, example_seed(run_seed, index))
            except Exception as error:  # a strategy that cannot draw: named, not raised
                self._note(f"{what} inputs stopped: {_why(error)}")
                return
            probe = None if drawn is None else to_probe(drawn.value)
            if probe is None or self._sent(probe):
                continue
            if not self._start(probe):
                return
            new += 1

    def _sent(self, probe: Probe) -> bool:
        key = _key(probe)
        return key in self.cache or (self.in_flight is not None and self.in_flight[1] == key)

    def _shrink_all(self) -> None:
        """Shrink each bug's own input, then search each again with Hypothesis raising on it,
        all within the shrink budget."""
        ends = time.monotonic() + self.options.shrink_budget
        # A valid input's bug first: an invalid one is already one constraint from a valid input.
        ordered = sorted(self.findings.items(), key=lambda item: not item[1][0].valid)
        for group, found in ordered:
            if group[0] not in NOT_SHRUNK:
                self._shrink_found(group, min(found, key=_size), ends)
        for (kind, keyword), found in ordered:
            if kind in NOT_SHRUNK or self.report.crashed or time.monotonic() >= ends:
                continue
            valid = found[0].valid
            probes = self._valid_probes() if valid else self._invalid_probes()
            if isinstance(probes, str):
                continue

            label = f"{'valid' if valid else 'invalid'} {kind} {keyword}"
            error = self._hypothesis(
                probes,
                self._shrinker((kind, keyword), ends),
                [Phase.reuse, Phase.generate, Phase.shrink],
                database=self._database(label),
            )
            if error is not None and not isinstance(error, Flaky):
                self._note(f"shrinking {kind} stopped: {_why(error)}")

    def _shrink_found(self, group: tuple[str, str | None], like: Finding, ends: float) -> None:
        """Shrink the smallest input found for ``group``, whatever phase found it."""
        validator = self.validator
        if validator is None or self.report.crashed:
            return
        body = self._shrinker(group, ends)

        def allowed(value: Any) -> bool:
            if time.monotonic() >= ends:
                raise _Stop
            return probe_like(validator, value, like) is not None

        def fails(value: Any) -> bool:
            probe = probe_like(validator, value, like)
            if probe is None:
                return False
            try:
                body(probe)
            except _Found:
                return True
            return False

        with contextlib.suppress(_Stop):  # out of budget or stopped: what was sent is recorded
            shrunk(like.input, allowed, fails)

    def _shrinker(self, group: tuple[str, str | None], ends: float) -> Callable[[Probe], None]:
        """A test body that fails on ``group`` only, so Hypothesis shrinks toward it."""

        def shrink(probe: Probe) -> None:
            if time.monotonic() >= ends:
                raise _Stop
            outcome = self._send(probe)
            if outcome is None or outcome.timed_out or outcome.crashed:
                raise _Stop  # never spend a timeout or a dead server on a smaller input
            if any(finding.group == group for finding in outcome.findings):
                raise _Found

        return shrink

    def _hypothesis(
        self,
        probes: st.SearchStrategy[Probe],
        body: Callable[[Probe], None],
        phases: list[Phase],
        database: ExampleDatabase | None,
    ) -> Exception | None:
        """Run ``body`` on inputs from ``probes``; returns what ended the run, if not us."""
        test = settings(
            max_examples=self.options.examples,
            database=database,
            deadline=None,
            phases=phases,
            verbosity=Verbosity.quiet,
            report_multiple_bugs=False,
            print_blob=False,
            suppress_health_check=_HEALTH_CHECKS,
        )(given(probes)(body))
        if database is None:  # Hypothesis ignores its database in a seeded run
            test = seeded(_DEFAULT_SEED if self.options.seed is None else self.options.seed)(test)
        try:
            test()
        except (_Stop, _Found):
            pass  # stopped, or shrunk: every input sent is among the recorded findings
        except Exception as error:  # no input could be built, a flaky replay while shrinking...
            return error
        return None

    def _database(self, label: str) -> ExampleDatabase | None:
        """The caller's database, if any: shrink searches then replay past failures first.

        Such searches are unseeded (Hypothesis' rule), so they send new inputs
        rather than replaying exploration's answers from the cache.
        """
        path = self.options.hypothesis_database
        if path is None:
            return None
        return _Keyed(DirectoryBasedExampleDatabase(str(path)), f"{self.report.name} {label}")

    # -- report -----------------------------------------------------------------------

    def _finish(self) -> None:
        groups = [
            FindingGroup(min(found, key=_size), len(found)) for found in self.findings.values()
        ]
        report = self.report
        alike = hollow(self.answered, self.refusals)
        report.answers.hollow = len(alike)
        if alike and self.first_refusal is None:
            self.first_refusal = self.answered[alike[0]].text[:MAX_SHOWN_CHARS]
        if report.unexercised:
            groups.append(FindingGroup(self._unexercised(), 1))
        report.groups = groups

    def _unexercised(self) -> Finding:
        return Finding(
            kind="unexercised",
            valid=True,
            keyword=None,
            path=None,
            input=None,
            expected="at least one valid input answered with success",
            observed=unexercised(self.report, self.first_refusal),
            duration=0.0,
            severity="warning",
        )

    def _note(self, text: str) -> None:
        line = _one_line(text)
        if line not in self.report.notes:
            self.report.notes.append(line)


class _Keyed(ExampleDatabase):
    """A database view whose keys name the tool and bug, so tools never share examples."""

    def __init__(self, inner: ExampleDatabase, prefix: str) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = prefix.encode()

    def _key(self, key: bytes) -> bytes:
        return self.prefix + b"\0" + key

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self._key(key), value)

    def fetch(self, key: bytes) -> Any:
        return self.inner.fetch(self._key(key))

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self._key(key), value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self._key(src), self._key(dest), value)


def _has_invalid_objects(schema: Any) -> bool:
    """Whether an object can break ``schema``: MCP sends objects only, and ``{}`` takes any."""
    return (
        not is_zero_argument(schema)
        or schema.get("additionalProperties") is False
        or schema.get("unevaluatedProperties") is False
    )


def _key(probe: Probe) -> tuple[bool, str]:
    """The cache key of ``probe``: equal inputs are sent once."""
    return (probe.valid, json.dumps(probe.input, sort_keys=True, default=repr))


def _probe(broken: InvalidInput) -> Probe:
    return Probe(broken.value, valid=False, keyword=broken.keyword, path=broken.path)


def _valid_probe(value: Any) -> Probe | None:
    """A generated valid value as a probe; MCP sends objects only."""
    return Probe(value, valid=True) if isinstance(value, dict) else None


def _invalid_probe(broken: InvalidInput) -> Probe | None:
    return _probe(broken) if isinstance(broken.value, dict) else None


def _size(finding: Finding) -> tuple[int, str]:
    shown = show(finding.input)
    return (len(shown), shown)


def _why(error: Exception) -> str:
    """What ended a Hypothesis run, as one short readable line (its own texts run long)."""
    if isinstance(error, Unsatisfiable):
        return "Hypothesis could not build an input that is an object"
    if isinstance(error, FailedHealthCheck):
        return "Hypothesis gave up building inputs (a failed health check)"
    return _one_line(error)


def _one_line(error: BaseException | str) -> str:
    text = str(error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    return middle_cut(first, MAX_NOTE_CHARS)  # a nested refusal names its cause last
