"""The engine's pure parts: the leak detector, options, the schema's own inputs, storage."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from littleghost_testing._engine import KINDS, FuzzOptions, leaked_detail
from littleghost_testing._engine._inputs import is_zero_argument, schema_inputs

LEAKS = [
    (
        '  File "/srv/app.py", line 3, in handler',
        'a Python stack frame (File "/srv/app.py", line 3)',
    ),
    (
        "Traceback (most recent call last):",
        "a Python stack trace (Traceback (most recent call last))",
    ),
    (
        "    at Object.run (/app/server.js:12:5)",
        "a JavaScript stack frame (at Object.run (/app/server.js:12:5)",
    ),
    (
        "at async file:///app/index.mjs:3:9",
        "a JavaScript stack frame (at async file:///app/index.mjs:3:9)",
    ),
    (
        "at process.tick (node:internal/process/task_queues:95:5)",
        "a Node.js stack frame (at process.tick (node:internal/process/task_queues:95:5)",
    ),
    ("at com.acme.Db.get(Db.java:42)", "a Java stack frame (at com.acme.Db.get(Db.java:42))"),
    ("goroutine 1 [running]:", "a Go stack trace (goroutine 1 [running]:)"),
    ("main.handler()\n\t/src/main.go:42 +0x1d", "a Go stack frame (/src/main.go:42 +0x1d)"),
    (
        "dial postgres://admin:hunter2@db:5432/x failed",
        "a URL with a user and password (postgres... (32 characters))",
    ),
    ("login with password=hunter2 refused", "a password (passw... (16 characters))"),
    (
        "sent Authorization: Bearer abcdefghijklmnopqrstu",
        "a bearer token (Bearer a... (28 characters))",
    ),
    ("key AKIAIOSFODNN7EXAMPLE is not allowed", "an AWS access key (AKIAIO... (20 characters))"),
]
CLEAN = [
    "No help center article HC-999",
    "Input should be a valid string [type=string_type, input_value=5, input_type=int]",
    "password: Field required",
    "expected at least 3 items at 12:30",
    "Bearer token missing",
    "see http://example.com:8080/docs",
    "time 12:30:45 at noon",
]


@pytest.mark.parametrize(("text", "leak"), LEAKS)
def test_leaked_detail_names_what_leaked(text: str, leak: str) -> None:
    assert leaked_detail(text) == leak


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_error_messages_leak_nothing(text: str) -> None:
    assert leaked_detail(text) is None


def test_every_kind_has_a_severity_and_a_description() -> None:
    assert {kind for kind, (severity, _) in KINDS.items() if severity == "warning"} == {
        "ignored_unknown_property",
        "error_as_success",
        "unexercised",
        "schema_looser_than_tool",
    }
    assert "leaked_error_detail" in KINDS and all(text for _, text in KINDS.values())


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"examples": 0}, "examples must be at least 1, not 0"),
        ({"timeout": 0}, "timeout must be a positive number of seconds, not 0"),
        ({"tool_timeouts": {"slow": -1}}, "tool_timeouts['slow'] must be a positive number"),
        ({"shrink_budget": float("inf")}, "shrink_budget must be a positive number"),
        ({"max_failures": 0}, "max_failures must be at least 1, not 0"),
        ({"inputs": {"t": {"a": 1}}}, "inputs['t'] must be a list of objects"),
        ({"inputs": {"t": [1]}}, "inputs['t'][0] must be an object, not 1"),
        ({"include": "read_*"}, "include must be a list of globs, not the string 'read_*'"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict[str, object], problem: str) -> None:
    with pytest.raises((TypeError, ValueError), match=re.escape(problem)):
        FuzzOptions(**options)  # type: ignore[arg-type]


def test_options_are_frozen_copies_and_summarized_as_json() -> None:
    timeouts = {"slow": 30.0}
    options = FuzzOptions(tool_timeouts=timeouts, include=["a*"], inputs={"t": [{"x": 1}]})
    timeouts["slow"] = 1.0
    assert options.timeout_for("slow") == 30.0 and options.timeout_for("other") == 10.0
    assert options.summary()["inputs"] == {"t": 1}
    assert options.summary()["include"] == ["a*"]


def test_schema_inputs_come_from_the_root_and_each_property() -> None:
    schema = {
        "type": "object",
        "examples": [{"city": "Oslo"}, "not an object"],
        "properties": {
            "city": {"type": "string", "examples": ["Paris", "Rome"]},
            "days": {"type": "integer", "default": 3},
        },
    }
    assert schema_inputs(schema) == [
        {"city": "Oslo"},
        {"city": "Paris", "days": 3},
        {"city": "Rome", "days": 3},
    ]
    assert schema_inputs({"type": "object", "properties": {"a": {"type": "string"}}}) == []


@pytest.mark.parametrize(
    ("schema", "zero"),
    [
        ({"type": "object"}, True),
        ({"type": "object", "properties": {}, "additionalProperties": False}, True),
        ({"type": "object", "properties": {"a": {}}}, False),
        ({"type": "object", "additionalProperties": {"type": "string"}}, False),
        ({"type": "object", "required": ["a"]}, False),
        ({"type": "object", "properties": {}, "required": []}, True),
    ],
)
def test_zero_argument_schemas(schema: dict[str, object], zero: bool) -> None:
    assert is_zero_argument(schema) is zero


def test_a_run_leaves_no_hypothesis_folder_in_the_working_directory(tmp_path: Path) -> None:
    script = (
        "import mcp, littleghost as lg\n"
        "from anyio.from_thread import start_blocking_portal\n"
        "from littleghost.mcp import Toolset\n"
        "from littleghost_testing.demo_server import server\n"
        "from littleghost_testing._engine import FuzzOptions, fuzz_tool\n"
        "class Demo(Toolset):\n"
        "    def client(self, binding): return mcp.Client(server)\n"
        "with start_blocking_portal() as portal:\n"
        "    run = lg.Run(); binding = lg.Binding(run=run)\n"
        "    (quote,) = [c for c in portal.call(Demo.tools, binding) if 'quote' in c.tool_name]\n"
        "    report = fuzz_tool(portal, quote(binding), FuzzOptions(examples=3))\n"
        "    assert report.calls > 0, report\n"
        "    portal.call(run.aclose)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []
