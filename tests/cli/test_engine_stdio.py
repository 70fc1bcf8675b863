"""The fuzzing engine against a real stdio server process that breaks each rule on purpose."""

from __future__ import annotations

from pathlib import Path

import pytest
from servers.engine_harness import connected, raw_client, recorded

from littleghost_testing._engine import FuzzOptions, ToolReport
from littleghost_testing.cli._output import details

FAST = FuzzOptions(examples=5, timeout=5.0, shrink_budget=5.0)


def kinds(report: ToolReport) -> dict[str, int]:
    return {group.example.kind: group.count for group in report.groups}


def test_only_read_only_tools_are_called_without_consent(
    anyio_backend: str, tmp_path: Path
) -> None:
    records = tmp_path / "calls.jsonl"
    with connected(anyio_backend, raw_client(records)) as engine:
        planned = engine.plan(FAST)
        assert {name: tool.called for name, tool in planned.items()} == {
            "read_notes": True,
            "write_note": False,
            "wipe": False,
            "tasked": False,
            "garbled": True,
            "slow": True,
            "leaky": True,
            "leaky_rpc": True,
            "die": True,
            "sealed": True,
            "open_zero": True,
            "nine_keys": True,
        }
        assert planned["write_note"].reason == (
            "not annotated readOnlyHint: true, so it may change state; "
            "--allow-side-effects includes it"
        )
        assert planned["wipe"].reason == (
            "annotated destructiveHint: true; --allow-side-effects includes it"
        )
        assert planned["wipe"].annotations == {"readOnlyHint": False, "destructiveHint": True}
        assert planned["tasked"].reason.startswith("requires MCP tasks (taskSupport: required)")
        # Skipped tools are reported, and fuzz_tool refuses to call them even when asked.
        for name in ("write_note", "wipe", "tasked"):
            report = engine.fuzz(name, FAST)
            assert (report.called, report.calls, report.groups) == (False, 0, [])
            assert report.reason == planned[name].reason
        # include narrows, never overrides safety; exclude wins over include.
        narrowed = FuzzOptions(include=["w*", "read_*"], exclude=["read_*"])
        assert {name for name, tool in engine.plan(narrowed).items() if tool.called} == set()
        assert engine.plan(narrowed)["read_notes"].reason == "excluded by --exclude 'read_*'"
        assert engine.plan(narrowed)["leaky"].reason == "not selected by --include 'w*', 'read_*'"
        consent = FuzzOptions(allow_side_effects=True, exclude=["wipe"])
        assert engine.plan(consent)["write_note"].reason.endswith(
            "called because of --allow-side-effects"
        )
        assert engine.plan(consent)["tasked"].called is False
        assert engine.fuzz("write_note", consent).valid_calls > 0
    called = {tool for tool, _ in recorded(records)}
    assert called == {"write_note"}  # never wipe, never tasked, never before consent


def test_unknown_keys_ignored_are_a_warning_unless_strict(
    anyio_backend: str, tmp_path: Path
) -> None:
    with connected(anyio_backend, raw_client(tmp_path / "calls.jsonl")) as engine:
        report = engine.fuzz("read_notes", FAST)
        strict = engine.fuzz("read_notes", FuzzOptions(examples=5, strict=True))
    (group,) = report.groups
    finding = group.example
    assert (finding.kind, finding.severity, finding.valid) == (
        "ignored_unknown_property",
        "warning",
        False,
    )
    assert finding.keyword == "additionalProperties"
    assert finding.path is not None and finding.path.startswith("$")
    assert finding.duration > 0
    assert (report.violation_count, report.warning_count) == (0, group.count)
    # The schema's example went first and got a success: the tool is exercised.
    assert report.answers.success >= 1 and not report.unexercised
    assert [group.example.severity for group in strict.groups] == ["violation"]


def test_an_unparseable_answer_is_malformed_not_a_timeout(
    anyio_backend: str, tmp_path: Path
) -> None:
    options = FuzzOptions(examples=2, timeout=30.0)
    with connected(anyio_backend, raw_client(tmp_path / "calls.jsonl")) as engine:
        report = engine.fuzz("garbled", options)
    assert report.valid_calls == 1  # a zero-argument tool is called once, with {}
    assert kinds(report) == {"malformed_result": 1}
    # littleghost closes a connection that sent garbage: the caller reconnects for the next tool.
    assert report.crashed
    finding = report.groups[0].example
    assert finding.input == {}
    assert "pars" in finding.observed  # "cannot be parsed" or "unparseable"
    assert finding.duration < 10  # it did not wait for the 30 s timeout
    assert report.notes == ["stopped: the connection closed"]


def test_per_tool_timeouts_and_timeouts_are_never_resent(
    anyio_backend: str, tmp_path: Path
) -> None:
    records = tmp_path / "calls.jsonl"
    tight = FuzzOptions(examples=2, timeout=0.2)
    generous = FuzzOptions(examples=2, timeout=0.2, tool_timeouts={"slow": 5.0})
    with connected(anyio_backend, raw_client(records)) as engine:
        timed_out = engine.fuzz("slow", tight)
        answered = engine.fuzz("slow", generous)
    assert kinds(timed_out) == {"timeout": 1, "unexercised": 1}
    assert timed_out.groups[0].example.expected == "an answer within 0.2 s"
    assert kinds(answered) == {}
    assert answered.answers.success == 1
    assert [tool for tool, _ in recorded(records)] == ["slow", "slow"]


def test_error_answers_that_leak_are_violations(anyio_backend: str, tmp_path: Path) -> None:
    options = FuzzOptions(examples=3, shrink_budget=5.0)
    with connected(anyio_backend, raw_client(tmp_path / "calls.jsonl")) as engine:
        traceback = engine.fuzz("leaky", options)
        credential = engine.fuzz("leaky_rpc", options)
    leak = next(g.example for g in traceback.groups if g.example.kind == "leaked_error_detail")
    assert leak.observed == "a Python stack trace (Traceback (most recent call last))"
    assert leak.input == {}  # shrunk to the smallest input that still leaks
    assert traceback.answers.is_error == traceback.valid_calls
    found = {g.example.kind: g.example for g in credential.groups}
    assert set(found) == {"jsonrpc_error", "leaked_error_detail", "unexercised"}
    observed = found["leaked_error_detail"].observed
    assert observed.startswith("a URL with a user and password (")
    assert "hunter2" not in observed  # the report does not repeat the credential
    assert credential.violation_count > 0


def test_shrinking_reduces_an_input_to_the_keys_that_matter(
    anyio_backend: str, tmp_path: Path
) -> None:
    records = tmp_path / "calls.jsonl"
    options = FuzzOptions(examples=30, shrink_budget=20.0)
    with connected(anyio_backend, raw_client(records)) as engine:
        report = engine.fuzz("nine_keys", options)
    (group,) = [g for g in report.groups if g.example.kind == "jsonrpc_error"]
    assert group.example.input == {"a": 0, "b": 0}
    clashes = [args for tool, args in recorded(records) if {"a", "b"} <= set(args)]
    assert max(len(args) for args in clashes) > 2  # found with more keys than it needs


def test_a_dying_server_is_a_crash_and_the_tool_stops(anyio_backend: str, tmp_path: Path) -> None:
    records = tmp_path / "calls.jsonl"
    with connected(anyio_backend, raw_client(records)) as engine:
        report = engine.fuzz("die", FAST)
        after = engine.fuzz("leaky", FAST)
    assert report.crashed and kinds(report) == {"crash": 1}
    assert report.groups[0].example.observed.startswith("MCP connection closed")
    assert report.notes == ["stopped: the connection closed"]
    # The connection stays closed: the caller must reconnect before the next tool.
    assert after.crashed and after.calls == 1
    assert [tool for tool, _ in recorded(records)] == ["die"]


@pytest.mark.parametrize("stop", ["deadline", "should_stop"])
def test_a_run_stops_between_calls(anyio_backend: str, tmp_path: Path, stop: str) -> None:
    records = tmp_path / "calls.jsonl"
    calls: list[int] = []
    with connected(anyio_backend, raw_client(records)) as engine:
        if stop == "deadline":
            report = engine.fuzz(
                "slow",
                FuzzOptions(examples=5),
                deadline=0.0,
                on_call=lambda report: calls.append(report.calls),
            )
        else:
            report = engine.fuzz(
                "read_notes",
                FAST,
                should_stop=lambda: len(calls) >= 2,
                on_call=lambda report: calls.append(report.calls),
            )
    expected = 0 if stop == "deadline" else 2
    assert report.calls == len(recorded(records)) == expected
    assert calls == list(range(1, expected + 1))
    reason = "out of time" if stop == "deadline" else "asked to stop"
    assert report.notes == [f"stopped early: {reason}"]


def test_zero_argument_tools_are_called_with_an_empty_object_and_no_notes(
    anyio_backend: str, tmp_path: Path
) -> None:
    records = tmp_path / "calls.jsonl"
    with connected(anyio_backend, raw_client(records)) as engine:
        sealed = engine.fuzz("sealed", FAST)
        open_zero = engine.fuzz("open_zero", FAST)
    # No arguments allowed: {} is the one valid input; invalid ones add a key.
    assert (sealed.valid_calls, sealed.answers.success, sealed.notes) == (1, 1, [])
    assert [g.example.kind for g in sealed.groups] == ["ignored_unknown_property"]
    sent = [args for tool, args in recorded(records) if tool == "sealed"]
    assert sent[0] == {} and all(len(args) == 1 for args in sent[1:])
    # Unknown keys allowed (and "required": []): {} once, nothing invalid to send.
    assert (open_zero.calls, open_zero.answers.success, open_zero.notes) == (1, 1, [])
    assert [args for tool, args in recorded(records) if tool == "open_zero"] == [{}]


def test_an_unexercised_tool_reads_as_one_line(anyio_backend: str, tmp_path: Path) -> None:
    with connected(anyio_backend, raw_client(tmp_path / "calls.jsonl")) as engine:
        report = engine.fuzz("leaky", FAST)
    lines = details(report, lambda tool, value, command: f"littleghost {command} {tool}")
    valid = report.valid_calls
    line = (
        f"leaky: unexercised (warning): no valid call of {valid} succeeded "
        f"({valid} isError, 0 JSON-RPC errors, 0 without an answer); "
        'the first answered "withheld: it leaks"; give inputs that work with --inputs FILE'
    )
    at = lines.index(line)
    assert lines[at - 1] == "" and not lines[at + 1 :]  # no input, took or reproduce lines
    assert "  reproduce: littleghost call leaky" in lines  # the leak still says how to repeat it


def test_the_hypothesis_database_keeps_the_examples_of_shrunk_findings(
    anyio_backend: str, tmp_path: Path
) -> None:
    database = tmp_path / "db"
    options = FuzzOptions(examples=10, shrink_budget=10.0, hypothesis_database=database)
    with connected(anyio_backend, raw_client(tmp_path / "calls.jsonl")) as engine:
        engine.fuzz("open_zero", options)
        assert not database.exists()  # nothing shrunk, nothing saved
        report = engine.fuzz("nine_keys", options)
    assert {"jsonrpc_error", "accepted_invalid"} <= {g.example.kind for g in report.groups}
    saved = [path for path in database.rglob("*") if path.is_file()]
    assert len(saved) >= 2  # a failing example per shrunk finding, for the next run to replay
