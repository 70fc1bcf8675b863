"""The fuzzing engine over Streamable HTTP (127.0.0.1, ephemeral port) against a FakeMCPServer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import mcp
import pytest
from servers.engine_fakes import JS_STACK, arm, shop
from servers.engine_harness import Engine, connected

from littleghost._validation import SchemaValidator
from littleghost_testing._engine import FuzzOptions, ServerReport, ToolReport, plan
from littleghost_testing.fake_server import Call, Hang

OPTIONS = FuzzOptions(examples=8, timeout=5.0, shrink_budget=5.0)


@pytest.fixture
def engine(anyio_backend: str) -> Iterator[Engine]:
    url = shop.url  # started before the leak snapshot: it outlives the connection
    arm()
    try:
        with connected(anyio_backend, lambda: mcp.Client(url)) as engine:
            yield engine
    finally:
        shop.close()


@pytest.fixture
def sent() -> Callable[[], list[Call]]:
    """The calls the shop received since the test started (its records outlive tests)."""
    start = len(shop.calls)
    return lambda: shop.calls[start:]


def by_kind(report: ToolReport) -> dict[str, int]:
    return {group.example.kind: group.count for group in report.groups}


def test_schema_examples_and_defaults_go_first_then_given_inputs(
    engine: Engine, sent: Callable[[], list[Call]]
) -> None:
    options = FuzzOptions(
        examples=8,
        inputs={"search": [{"query": "given", "limit": 2}, {"limit": 3}]},
        shrink_budget=0.0,
    )
    report = engine.fuzz("search", options)
    sent = [call.arguments for call in sent()]
    assert sent[:3] == [
        {"query": "alpha", "limit": 5},
        {"query": "beta", "limit": 5},
        {"query": "given", "limit": 2},
    ]
    # Then the coverage phase: the smallest and fullest inputs (limit at its default, 5),
    # and the schema's edges.
    assert sent[3:8] == [
        {"query": ""},
        {"query": "", "limit": 5},
        {"query": "é"},
        {"query": "é", "limit": 5},
        {"query": "", "limit": 1},
    ]
    assert report.notes == ["inputs['search'][1] not sent: it breaks 'required' at $.query"]
    assert report.valid_calls == 3 + 6 + 8  # limit's edges: 1, and 5.0 on the fullest
    # The shop breaks its outputSchema for a limit over 100, valid input or not.
    schema = engine.plan(options)["search"].tool.input_schema
    valid = [args for args in sent if not SchemaValidator(schema).violations(args)]
    assert len(valid) == report.valid_calls
    too_many = sum(1 for args in valid if args.get("limit", 5) > 100)
    assert report.answers.success == report.valid_calls - too_many


def test_a_tool_is_not_called_again_after_a_timeout(
    engine: Engine, sent: Callable[[], list[Call]]
) -> None:
    shop.fault("find", Hang())
    report = engine.fuzz("find", FuzzOptions(examples=8, timeout=0.3))
    assert [call.tool for call in sent()] == ["find"]
    assert by_kind(report) == {"timeout": 1, "unexercised": 1}
    assert report.notes == [
        "stopped early: a call took over 0.3 s "
        "(more time: --tool-timeout NAME=SECONDS, or tool_timeouts)"
    ]


def test_findings_are_shrunk_grouped_and_json(engine: Engine) -> None:
    report = engine.fuzz("search", OPTIONS)
    groups = {(g.example.kind, g.example.keyword): g.example for g in report.groups}
    # The output breaks its schema above 100 hits: shrunk to the boundary.
    assert groups["output_schema", None].input == {"query": "", "limit": 101}
    assert groups["output_schema", None].valid is True
    # Each broken keyword the server failed to refuse is a bug of its own.
    keywords = {keyword for kind, keyword in groups if kind == "accepted_invalid"}
    assert {"type", "minimum"} <= keywords
    assert groups["ignored_unknown_property", "additionalProperties"].severity == "warning"
    server = ServerReport("shop", OPTIONS.summary(), [report])
    document = json.loads(json.dumps(server.to_json()))
    entry = document["tools"][0]
    assert entry["called"] is True and entry["reason"] == "annotated readOnlyHint: true"
    assert set(entry["answers"]) == {
        "success",
        "is_error",
        "jsonrpc_error",
        "reads_as_error",
        "hollow",
        "worked",
    }
    for finding in entry["findings"]:
        assert {"kind", "valid", "keyword", "path", "input", "duration", "count"} <= set(finding)
    assert document["violation_count"] == server.violation_count > 0


def test_zero_argument_tools_get_one_empty_object(
    engine: Engine, sent: Callable[[], list[Call]]
) -> None:
    report = engine.fuzz("ping", OPTIONS)
    assert [call.arguments for call in sent()] == [{}]
    assert (report.valid_calls, report.invalid_calls, report.groups, report.notes) == (
        1,
        0,
        [],
        [],
    )


def test_a_tool_that_never_succeeds_is_unexercised(engine: Engine) -> None:
    report = engine.fuzz("find", OPTIONS)
    assert report.unexercised
    assert report.answers.is_error == report.valid_calls > 0
    (group,) = report.groups
    assert (group.example.kind, group.example.severity) == ("unexercised", "warning")
    assert group.example.observed.endswith("give inputs that work with --inputs FILE")


def test_a_stack_trace_in_a_json_rpc_error_is_a_leak(engine: Engine) -> None:
    report = engine.fuzz("stock", OPTIONS)
    found = {group.example.kind: group.example for group in report.groups}
    assert found["leaked_error_detail"].observed == (
        "a JavaScript stack frame (at lookup (/app/dist/index.js:41:17)"
    )
    assert "index.js" not in found["jsonrpc_error"].observed  # withheld, not repeated
    assert JS_STACK.splitlines()[1].strip() in found["leaked_error_detail"].observed + ")"


def test_side_effect_tools_are_never_called(engine: Engine, sent: Callable[[], list[Call]]) -> None:
    quick = FuzzOptions(examples=2, shrink_budget=0.0)
    reports = [engine.fuzz(planned.name, quick) for planned in plan(engine.tools, quick)]
    skipped = {report.name: report.reason for report in reports if not report.called}
    assert skipped == {
        "reprice": "not annotated readOnlyHint: true, so it may change state; "
        "--allow-side-effects includes it",
        "delete_catalog": "annotated destructiveHint: true; --allow-side-effects includes it",
    }
    assert {call.tool for call in sent()} == {"search", "ping", "find", "stock"}


def test_a_database_is_written_only_where_it_is_asked_for(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    engine.fuzz("search", FuzzOptions(examples=4, hypothesis_database=tmp_path / "db"))
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["db"]
