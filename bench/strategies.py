"""Benchmark: littleghost_testing.strategies against hypothesis-jsonschema on real tool schemas.

For every input schema in tests/data/tool_schemas it measures, for each library,
examples generated per second (a plain ``@given`` run, Hypothesis's default
health checks on, generation phase only), how many values littleghost's own
validator rejects, health-check failures, and schemas the library cannot
handle at all.

hypothesis-jsonschema needs hypothesis 6.170.9 (its latest release breaks on
object schemas with later versions), so it runs in a throwaway venv that this
script drives through a subprocess (this same file, in ``--worker`` mode):

    python3 -m venv /tmp/hjs-venv
    /tmp/hjs-venv/bin/pip install hypothesis==6.170.9 hypothesis-jsonschema
    /work/venv/bin/python bench/strategies.py --hjs-python /tmp/hjs-venv/bin/python

Results go to stdout as a Markdown summary and, with ``--json PATH``, per schema.

``--coverage`` measures instead which shapes our strategies reach on every
corpus schema within 50 valid values and 50 invalid inputs (optional keys
present and absent, each enum value, each anyOf/oneOf branch, both booleans,
each type of a type list, empty and non-empty arrays; each constraint broken
alone), per schema and in total (see littleghost_testing/strategies/_coverage.py).

``--suite`` runs the strategies as an independent oracle over the vendored
JSON-Schema-Test-Suite cases (tests/data/json_schema_test_suite): per schema,
50 valid values and 50 invalid inputs judged by ``jsonschema``; every refusal,
exception, health-check failure and timeout; false "accepts every value"
claims (the suite has a value the schema rejects); and coverage.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "tool_schemas"
SUITE = ROOT / "tests" / "data" / "json_schema_test_suite" / "cases.json"
# A schema still drawing after this long counts as a timeout in --suite (wall seconds, or with
# --cpu-budget this process's CPU seconds: on a loaded machine, wall time times out schemas
# that draw in a few CPU seconds).
SUITE_SECONDS = 20
# How many of the slowest schemas the --suite report lists.
_SLOWEST = 5


def measure_one(strategy_for: Any, schema: Any, examples: int) -> dict[str, Any]:
    """Run ``examples`` draws of one schema; its rate by wall and by CPU time, values, failures
    (no validation here)."""
    from hypothesis import Phase, given, settings
    from hypothesis.errors import FailedHealthCheck

    values: list[Any] = []
    record: dict[str, Any] = {"error": None, "health_check": False}
    gc.collect()
    gc.disable()  # as timeit does: one collector pause would dominate a 50 ms run
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        strategy = strategy_for(schema)

        @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate])
        @given(strategy)
        def run(value: Any) -> None:
            values.append(value)

        run()
    except FailedHealthCheck as error:
        record["health_check"] = True
        record["error"] = str(error).strip().splitlines()[0][:200]
    except Exception as error:  # the library cannot handle this schema
        record["error"] = f"{type(error).__name__}: {str(error).strip()[:200]}"
    finally:
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        gc.enable()
    record.update(
        examples=len(values),
        seconds=elapsed,
        cpu_seconds=cpu,
        rate=len(values) / elapsed if values else 0.0,
        cpu_rate=len(values) / cpu if values and cpu else 0.0,
        values=values,
    )
    return record


def _hjs_strategy(schema: dict[str, Any]) -> Any:
    from hypothesis_jsonschema import from_schema

    return from_schema(schema)


def _ours(schema: dict[str, Any]) -> Any:
    from littleghost_testing.strategies import from_schema

    return from_schema(schema)


def _floor(schema: dict[str, Any]) -> Any:
    """Our values as Hypothesis's own strategies draw them: the schema turned into
    ``st.fixed_dictionaries``, ``st.lists``... and nothing else (no seeds, no final check,
    no cache), so its rate is what Hypothesis itself costs per draw of the same shapes."""
    from littleghost_testing.strategies._build import Builder
    from littleghost_testing.strategies._context import Context, RefStack
    from littleghost_testing.strategies._drafts import to_2020_12

    readable = to_2020_12(schema)
    return Builder(Context(readable)).build(readable, RefStack())


def worker(examples: int) -> None:
    """Inside the hypothesis-jsonschema venv: one schema per stdin line, its record per stdout
    line, until stdin closes (a persistent process, so both sides alternate schema by schema)."""
    for line in sys.stdin:
        record = measure_one(_hjs_strategy, json.loads(line), examples)
        print(json.dumps(record, default=repr), flush=True)


class _Peer:
    """The hypothesis-jsonschema worker: a subprocess fed one schema at a time."""

    def __init__(self, python: str, examples: int) -> None:
        command = [python, __file__, "--worker", "--examples", str(examples)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def measure(self, schema: Any) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(schema) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the hypothesis-jsonschema worker exited ({self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(timeout=30)


def compare(
    schemas: list[Any], examples: int, peer: _Peer | None, floor: bool = False
) -> tuple[dict[str, list[dict[str, Any]]], list[float]]:
    """Each library on each schema in turn, within seconds of each other, the order
    reversed every other schema, so a change in the machine's load hits all sides alike.
    Returns the records per library and the 1-minute load average seen at each schema."""
    sides: dict[str, Any] = {"littleghost": lambda schema: measure_one(_ours, schema, examples)}
    if floor:
        sides["Hypothesis alone"] = lambda schema: measure_one(_floor, schema, examples)
    if peer is not None:
        sides["hypothesis-jsonschema"] = peer.measure
    records: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    loads = []
    for index, schema in enumerate(schemas):
        loads.append(os.getloadavg()[0])
        for name in list(sides)[:: -1 if index % 2 else 1]:
            records[name].append(sides[name](schema))
    return records, loads


def load_corpus() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(CORPUS.glob("*.json")):
        server = json.loads(path.read_text())
        found += [(f"{path.stem}/{tool['name']}", tool["inputSchema"]) for tool in server["tools"]]
    return found


def judge(schema: dict[str, Any], record: dict[str, Any]) -> None:
    """Count the generated values littleghost's validator rejects."""
    from littleghost._validation import SchemaValidator

    validator = SchemaValidator(schema)
    record["invalid"] = sum(not validator.is_valid(value) for value in record.pop("values"))


def summary(name: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    working = [r for r in records if r["error"] is None]
    rates = [r["rate"] for r in working]
    return {
        "library": name,
        "schemas": len(records),
        "supported": len(working),
        "health_check_failures": sum(r["health_check"] for r in records),
        "other_failures": sum(r["error"] is not None and not r["health_check"] for r in records),
        "invalid_values": sum(r["invalid"] for r in records),
        "values": sum(r["examples"] for r in records),
        "median_rate": statistics.median(rates) if rates else 0.0,
        "median_cpu_rate": statistics.median(r["cpu_rate"] for r in working) if working else 0.0,
        "min_rate": min(rates, default=0.0),
        "max_rate": max(rates, default=0.0),
    }


def speed_up(
    corpus: list[tuple[str, Any]],
    name: str,
    ours: list[dict[str, Any]],
    theirs: list[dict[str, Any]],
) -> None:
    """Print the median of per-schema speed-ups and the ratio of median rates, by wall clock
    and by CPU time, over the schemas both libraries handle."""
    both = [
        (tool, a, b)
        for (tool, _), a, b in zip(corpus, ours, theirs, strict=True)
        if a["error"] is None and b["error"] is None and a["examples"] and b["examples"]
    ]
    print(f"\n{name} against hypothesis-jsonschema, over the {len(both)} schemas both handle:\n")
    print("| clock | median of per-schema ratios | ratio of median rates | min | max |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for clock, key in (("wall", "rate"), ("CPU", "cpu_rate")):
        ratios = [a[key] / b[key] for _, a, b in both if a[key] and b[key]]
        medians = statistics.median(a[key] for _, a, _ in both) / statistics.median(
            b[key] for _, _, b in both
        )
        print(f"| {clock} | {statistics.median(ratios):.2f}x | {medians:.2f}x "
              f"| {min(ratios):.2f}x | {max(ratios):.1f}x |")  # fmt: skip
    worst = sorted(both, key=lambda row: row[1]["cpu_rate"] / row[2]["cpu_rate"])[:8]
    print("\nlowest CPU-time ratios:")
    for tool, a, b in worst:
        print(f"  {tool}: {a['cpu_rate'] / b['cpu_rate']:.2f}x "
              f"({a['cpu_rate']:.0f} vs {b['cpu_rate']:.0f} examples/s)")  # fmt: skip


def build_seconds(width: int = 40, repeats: int = 5) -> float:
    """Median time to build ``from_schema`` for a fresh schema of ``width``² leaf properties."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository
    from littleghost_testing.strategies import from_schema
    from tests.strategies.support import large_schema

    timings = []
    for repeat in range(repeats):
        schema = large_schema(width, f"run {repeat}")
        started = time.perf_counter()
        from_schema(schema)
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def _past_budget(targets: set[tuple[str, ...]], examples: int) -> int:
    """Enum targets no run of ``examples`` values can reach: past ``examples`` values at
    one place outside arrays (one value holds one of them there)."""
    places = Counter(t[1] for t in targets if t[0] == "enum" and "[" not in t[1])
    return sum(max(0, count - examples) for count in places.values())


def coverage(corpus: list[tuple[str, dict[str, Any]]], examples: int) -> dict[str, Any]:
    """Per-schema and total coverage of valid values and invalid inputs."""
    sys.path.insert(0, str(ROOT))
    from littleghost_testing.strategies._coverage import measure

    rows = []
    started = time.perf_counter()
    for tool, schema in corpus:
        found = measure(schema, examples)
        valid, invalid = found.part(invalid=False), found.part(invalid=True)
        rows.append(
            {"tool": tool, "valid": valid, "invalid": invalid, "ratio": found.ratio,
             "missed": [list(target) for target in found.missed],
             "valid_ceiling": valid[1] - _past_budget(found.targets, examples)}
        )  # fmt: skip
    seconds = time.perf_counter() - started

    def total(key: str) -> tuple[int, int]:
        return sum(r[key][0] for r in rows), sum(r[key][1] for r in rows)

    def share(pair: tuple[int, int]) -> float:
        return pair[0] / pair[1] if pair[1] else 1.0

    def schema_share(row: dict[str, Any], key: str) -> float:
        return share(row[key])

    valid, invalid = total("valid"), total("invalid")
    both = (valid[0] + invalid[0], valid[1] + invalid[1])
    print(f"{len(rows)} schemas, {examples} valid values and {examples} invalid inputs each, "
          f"{seconds:.0f} s\n")  # fmt: skip
    print("| targets | reached / coverable | share | schemas below 90 % | lowest schema |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, pair, key in (
        ("valid values", valid, "valid"),
        ("invalid inputs", invalid, "invalid"),
    ):
        shares = [schema_share(row, key) for row in rows]
        print(f"| {name} | {pair[0]:,} / {pair[1]:,} | {share(pair):.1%} "
              f"| {sum(s < 0.9 for s in shares)} | {min(shares):.0%} |")  # fmt: skip
    # One invalid input breaks one constraint: past `examples` constraints, no run can
    # reach them all. The budget's own ceiling is min(constraints, examples) per schema.
    ceiling = sum(min(row["invalid"][1], examples) for row in rows)
    capped = [
        row["invalid"][0] / min(row["invalid"][1], examples) for row in rows if row["invalid"][1]
    ]
    low = sum(s < 0.9 for s in capped)
    print(f"| invalid inputs, of what {examples} inputs can break | {invalid[0]:,} / {ceiling:,} "
          f"| {invalid[0] / ceiling:.1%} | {low} | {min(capped):.0%} |")  # fmt: skip
    # Likewise one value holds one enum value at a place outside arrays.
    ceiling = sum(row["valid_ceiling"] for row in rows)
    capped = [row["valid"][0] / row["valid_ceiling"] for row in rows if row["valid_ceiling"]]
    low = sum(s < 0.9 for s in capped)
    print(f"| valid values, of what {examples} values can reach | {valid[0]:,} / {ceiling:,} "
          f"| {valid[0] / ceiling:.1%} | {low} | {min(capped):.0%} |")  # fmt: skip
    shares = [row["ratio"] for row in rows]
    print(f"| all | {both[0]:,} / {both[1]:,} | {share(both):.1%} "
          f"| {sum(s < 0.9 for s in shares)} | {min(shares):.0%} |")  # fmt: skip
    print("\nlowest schemas:")
    for row in sorted(rows, key=lambda r: r["ratio"])[:8]:
        print(f"  {row['tool']}: {row['ratio']:.0%}, missed {row['missed'][:4]}")
    return {"valid": valid, "invalid": invalid, "schemas": rows}


def load_suite() -> list[tuple[str, Any, list[dict[str, Any]]]]:
    """(name, schema, the suite's own tests) for every vendored case group."""
    files = json.loads(SUITE.read_text())["files"]
    return [
        (f"{name}: {group['description']}", group["schema"], group["tests"])
        for name, groups in files.items()
        for group in groups
    ]


class _Late(BaseException):
    """A schema drew past SUITE_SECONDS.

    A BaseException, as the kit's own ``OutOfTime``: Hypothesis takes an Exception
    raised mid-draw for a failure of the test, runs it again without the alarm, and
    reports a timeout as ``FlakyFailure`` or ``FlakyStrategyDefinition``.
    """


def _on_alarm(signum: int, frame: Any) -> None:
    import signal

    # Again, in case this one lands where Python ignores it (a gc callback).
    signal.setitimer(signal.ITIMER_PROF if signum == signal.SIGPROF else signal.ITIMER_REAL, 1)
    raise _Late


def _suite_one(
    schema: Any, tests: list[dict[str, Any]], examples: int, cpu_budget: bool = False
) -> dict[str, Any]:
    import signal

    from hypothesis.errors import FailedHealthCheck, Unsatisfiable

    from littleghost_testing.strategies import SchemaError
    from littleghost_testing.strategies._coverage import _draw, coverage_of

    oracle = _oracle(schema)
    rejects_some = any(not test["valid"] for test in tests)
    row: dict[str, Any] = {"valid_error": None, "invalid_error": None, "false_claim": False}
    values: list[Any] = []
    broken: list[Any] = []
    timer = signal.ITIMER_PROF if cpu_budget else signal.ITIMER_REAL
    signal.signal(signal.SIGPROF if cpu_budget else signal.SIGALRM, _on_alarm)
    for part in ("valid", "invalid"):
        started, cpu_started = time.perf_counter(), time.process_time()
        signal.setitimer(timer, SUITE_SECONDS)
        try:
            strategy = _ours(schema) if part == "valid" else _ours_invalid(schema)
            (values if part == "valid" else broken).extend(_draw(strategy, examples))
        except SchemaError as error:
            claim = "accepts every value" in str(error)
            row["false_claim"] = row["false_claim"] or (claim and rejects_some)
            row[f"{part}_error"] = ("refused", str(error)[:160])
        except _Late:
            row[f"{part}_error"] = ("timeout", f"past {SUITE_SECONDS} s{' CPU' * cpu_budget}")
        except FailedHealthCheck as error:
            row[f"{part}_error"] = ("health check", str(error).strip().splitlines()[0][:160])
        except Unsatisfiable as error:
            row[f"{part}_error"] = ("unsatisfiable", str(error)[:160])
        except Exception as error:
            row[f"{part}_error"] = ("exception", f"{type(error).__name__}: {str(error)[:160]}")
        finally:
            signal.setitimer(timer, 0)
            row[f"{part}_seconds"] = [
                round(time.perf_counter() - started, 2), round(time.process_time() - cpu_started, 2)
            ]  # fmt: skip
    row["invalid_values"] = sum(not oracle(value) for value in values)
    row["valid_inputs"] = sum(oracle(record.value) for record in broken)
    try:
        found = coverage_of(schema, values, broken if row["invalid_error"] is None else [])
        row["valid"], row["invalid"] = found.part(invalid=False), found.part(invalid=True)
        row["missed"] = [list(target) for target in found.missed]
    except Exception as error:
        row["valid"] = row["invalid"] = (0, 0)
        row["coverage_error"] = f"{type(error).__name__}: {error}"
    return row


def _oracle(schema: Any) -> Any:
    """``jsonschema``'s verdict; littleghost's where Python's ``re`` cannot read a pattern."""
    import re

    import jsonschema

    from littleghost._validation import SchemaValidator

    judge = jsonschema.validators.validator_for(schema)(schema)

    def is_valid(value: Any) -> bool:
        try:
            return judge.is_valid(value)
        except re.error:  # \p{...} and other ECMA-262 syntax
            wrapped = schema if isinstance(schema, dict) else {"allOf": [schema]}
            return SchemaValidator(wrapped).is_valid(value)

    return is_valid


def _ours_invalid(schema: Any) -> Any:
    from littleghost_testing.strategies import invalid_inputs

    return invalid_inputs(schema)


def _draws(row: dict[str, Any]) -> bool:
    """Both strategies drew (invalid_inputs may refuse a schema that accepts every value)."""
    refused = row["invalid_error"] and row["invalid_error"][0] == "refused"
    return row["valid_error"] is None and (row["invalid_error"] is None or refused)


def suite_report(rows: list[dict[str, Any]], examples: int, seconds: float) -> None:
    """Print the --suite figures (also from a saved --json, with --report)."""
    kinds = Counter(
        (part, row[f"{part}_error"][0])
        for row in rows
        for part in ("valid", "invalid")
        if row[f"{part}_error"]
    )
    print(f"{len(rows)} schemas, {examples} valid values and {examples} invalid inputs each, "
          f"{seconds:.0f} s\n")  # fmt: skip
    print("| measure | count |\n| --- | ---: |")
    print(f'| false "accepts every value" claims | {sum(r["false_claim"] for r in rows)} |')
    for (part, kind), count in sorted(kinds.items()):
        print(f"| {part}: {kind} | {count} |")
    print(f"| invalid values (jsonschema rejects a from_schema value) "
          f"| {sum(r['invalid_values'] for r in rows)} |")  # fmt: skip
    print(f"| valid inputs (jsonschema accepts an invalid_inputs value) "
          f"| {sum(r['valid_inputs'] for r in rows)} |")  # fmt: skip
    # Coverage of what can be reached: the schemas both strategies draw for (a refusal
    # because every value is accepted counts; other refusals, failures and timeouts do not).
    drawing = [r for r in rows if _draws(r)]
    for key in ("valid", "invalid"):
        reached = sum(r[key][0] for r in drawing)
        total = sum(r[key][1] for r in drawing)
        low = [r["name"] for r in drawing if r[key][1] and r[key][0] / r[key][1] < 0.9]
        print(f"| {key} coverage ({len(drawing)} schemas drawn for) | {reached:,} / {total:,} "
              f"({reached / max(total, 1):.1%}), {len(low)} schemas below 90 % |")  # fmt: skip
    # One input breaks one constraint: a schema with more constraints than inputs can
    # reach at most as many as there are inputs (as --coverage counts it).
    ceiling = sum(min(r["invalid"][1], examples) for r in drawing)
    reached = sum(r["invalid"][0] for r in drawing)
    low = [
        r
        for r in drawing
        if r["invalid"][1] and r["invalid"][0] < 0.9 * min(r["invalid"][1], examples)
    ]
    print(f"| invalid coverage, of what {examples} inputs can break | {reached:,} / {ceiling:,} "
          f"({reached / max(ceiling, 1):.1%}), {len(low)} schemas below 90 % |")  # fmt: skip
    print("\nproblems:")
    for row in rows:
        for key in ("valid_error", "invalid_error"):
            if row[key] and not (row[key][0] == "refused" and not row["false_claim"]):
                print(f"  {row['name']} [{key}]: {row[key]}")
        if row["false_claim"]:
            print(f"  {row['name']}: false claim")
        if row["invalid_values"] or row["valid_inputs"]:
            print(f"  {row['name']}: {row['invalid_values']} invalid values, "
                  f"{row['valid_inputs']} valid inputs")  # fmt: skip
        for key in ("valid", "invalid"):
            if row[key][1] and row[key][0] / row[key][1] < 0.9:
                print(f"  {row['name']}: {key} coverage {row[key][0]}/{row[key][1]}, "
                      f"missed {row.get('missed', [])[:4]}")  # fmt: skip
    timed = [row for row in rows if "valid_seconds" in row]  # older --json files have none
    print("\nslowest (wall / CPU seconds to build and draw, valid; invalid):")
    for row in sorted(timed, key=_cpu_seconds, reverse=True)[:_SLOWEST]:
        print(f"  {row['name']}: {row['valid_seconds']}; {row['invalid_seconds']}")
    print("\nrefusals (SchemaError):")
    for row in rows:
        for key in ("valid_error", "invalid_error"):
            if row[key] and row[key][0] == "refused" and not row["false_claim"]:
                print(f"  {row['name']} [{key}]: {row[key][1]}")


def _cpu_seconds(row: dict[str, Any]) -> float:
    return row["valid_seconds"][1] + row["invalid_seconds"][1]


def suite(examples: int, only: str | None = None, cpu_budget: bool = False) -> dict[str, Any]:
    """The strategies judged by ``jsonschema`` on every vendored JSON-Schema-Test-Suite schema
    (or on those whose name, ``file: description``, contains ``only``)."""
    started = time.perf_counter()
    rows = []
    for name, schema, tests in load_suite():
        if only is not None and only not in name:
            continue
        row = _suite_one(schema, tests, examples, cpu_budget)
        row["name"] = name
        rows.append(row)
    seconds = time.perf_counter() - started
    suite_report(rows, examples, seconds)
    return {"schemas": rows, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=25, help="examples per schema")
    parser.add_argument("--hjs-python", help="python of a venv with hypothesis-jsonschema")
    parser.add_argument(
        "--floor", action="store_true", help="also time Hypothesis's own strategies of our shapes"
    )
    parser.add_argument("--limit", type=int, help="only the first N schemas")
    parser.add_argument("--stride", type=int, default=1, help="only every N-th schema")
    parser.add_argument("--json", type=Path, help="write per-schema results here")
    parser.add_argument("--coverage", action="store_true", help="measure shape coverage instead")
    parser.add_argument("--suite", action="store_true", help="judge JSON-Schema-Test-Suite cases")
    parser.add_argument(
        "--only", help="only the suite cases (or corpus tools, server/tool) whose name has this"
    )
    parser.add_argument(
        "--cpu-budget", action="store_true", help="--suite: time out on CPU, not wall, seconds"
    )
    parser.add_argument("--report", type=Path, help="print the figures of a saved --suite --json")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.examples)
        return
    if args.report:
        saved = json.loads(args.report.read_text())
        suite_report(saved["schemas"], args.examples, saved.get("seconds", 0.0))
        return
    if args.suite:
        found = suite(args.examples, args.only, args.cpu_budget)
        if args.json:
            args.json.write_text(json.dumps(found, indent=1, default=repr))
        return
    corpus = load_corpus()[: args.limit][:: args.stride]
    corpus = [(tool, schema) for tool, schema in corpus if args.only is None or args.only in tool]
    if args.coverage:
        found = coverage(corpus, args.examples)
        if args.json:
            args.json.write_text(json.dumps(found, indent=1))
        return
    schemas = [schema for _, schema in corpus]
    peer = _Peer(args.hjs_python, args.examples) if args.hjs_python else None
    started = time.perf_counter()
    try:
        libraries, loads = compare(schemas, args.examples, peer, args.floor)
    finally:
        if peer is not None:
            peer.close()
    seconds = time.perf_counter() - started
    for records in libraries.values():
        for schema, record in zip(schemas, records, strict=True):
            judge(schema, record)
    totals = [summary(name, records) for name, records in libraries.items()]
    load = f"{min(loads):.1f} to {max(loads):.1f} (median {statistics.median(loads):.1f})"
    print(f"{len(schemas)} schemas, {args.examples} examples each, {seconds:.0f} s, "
          f"1-minute load average {load}\n")  # fmt: skip
    print(
        "| library | median examples/s | by CPU time | min | max | supported "
        "| health-check failures | other failures | invalid values / values |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for t in totals:
        print(
            f"| {t['library']} | {t['median_rate']:.0f} | {t['median_cpu_rate']:.0f} "
            f"| {t['min_rate']:.1f} | {t['max_rate']:.0f} "
            f"| {t['supported']}/{t['schemas']} | {t['health_check_failures']} "
            f"| {t['other_failures']} | {t['invalid_values']}/{t['values']} |"
        )
    print(f"\nbuilding from_schema for 1,600 leaf properties: {build_seconds() * 1e3:.0f} ms")
    if "hypothesis-jsonschema" in libraries:
        for name in ("littleghost", "Hypothesis alone"):
            if name in libraries:
                speed_up(corpus, name, libraries[name], libraries["hypothesis-jsonschema"])
    if args.json:
        rows = {
            name: [dict(r, tool=tool) for (tool, _), r in zip(corpus, records, strict=True)]
            for name, records in libraries.items()
        }
        args.json.write_text(json.dumps({"summary": totals, "schemas": rows}, indent=1))


if __name__ == "__main__":
    main()
