"""``check`` asks a server's completions within bounds (issue 30, points 3 and 8).

A hostile stdio server (``servers/read_hostile.py``, a real subprocess) names
many variables, answers each ``completion/complete`` slowly, or too big: the
asking stays within ``--max-time`` and ``MAX_COMPLETION_REQUESTS``, and a
completion that breaks a bound is named, never blamed on the next read.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from servers.cli_harness import run

from littleghost.mcp import Toolset
from littleghost_testing._engine._completions import MAX_COMPLETION_REQUESTS
from littleghost_testing._engine._uri_templates import variables

HOSTILE = Path(__file__).parent / "servers" / "read_hostile.py"


def _server(events: Path, variables: int, seconds: float, size: int) -> list[str]:
    return [
        "--",
        sys.executable,
        str(HOSTILE),
        str(variables),
        str(seconds),
        str(size),
        str(events),
    ]


def _events(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_max_time_bounds_the_completions_phase(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events = tmp_path / "events"
    started = time.monotonic()
    # 20 variables answered after 1 s each: 20 s of completions without a bound.
    code, out, _ = run(
        capsys, "check", "-q", "--max-time", "1.5", "--timeout", "10", *_server(events, 20, 1, 5)
    )
    took = time.monotonic() - started
    assert took < 8, took  # 1.5 s, then closing a server still busy with its answer
    assert code == 0
    assert "stopped early: --max-time 1.5 s ran out" in out
    asked = [event for event in _events(events) if event.startswith("complete ")]
    assert 1 <= len(asked) <= 2
    assert not any(event.startswith("read ") for event in _events(events))


def test_completion_requests_per_template_are_bounded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events = tmp_path / "events"
    code, out, _ = run(capsys, "check", "-v", *_server(events, 1000, 0, 5))
    assert code == 0
    asked = [event for event in _events(events) if event.startswith("complete ")]
    assert len(asked) == MAX_COMPLETION_REQUESTS
    reads = [event for event in _events(events) if event.startswith("read ")]
    assert len(reads) == 1  # the first value worked: the template is read
    more = 1000 - MAX_COMPLETION_REQUESTS
    assert f"{more} more variables or arguments were not completed" in out


def test_an_oversized_completion_is_named_and_the_next_read_is_not_blamed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Toolset, "max_result_bytes", 4096)
    events = tmp_path / "events"
    code, out, _ = run(capsys, "check", "-q", *_server(events, 1, 0, 8192))
    assert code == 1
    lines = out.splitlines()
    assert (
        "wide://t/{v0}: malformed_result (violation): completion/complete of 'v0': MCP server "
        "exceeded max_result_bytes (4096): a message longer than that"
    ) in lines
    # The read after it, on a fresh connection, was answered and blamed for nothing.
    assert lines[-1].endswith(
        "1 resource (1 read): 1 violation, 0 warnings in 0 calls, 1 read: FAILED"
    )
    assert _events(events) == ["complete v0", "read wide://t/example"]


def test_completions_within_the_bounds_give_no_finding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Toolset, "max_result_bytes", 4096)
    events = tmp_path / "events"
    code, out, _ = run(capsys, "check", "-q", *_server(events, 2, 0, 1000))
    assert code == 0
    assert out.splitlines()[-1].endswith("0 violations, 0 warnings in 0 calls, 1 read: passed")
    assert _events(events)[:2] == ["complete v0", "complete v1"]


def test_a_completion_without_an_answer_is_a_timeout_and_reading_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events = tmp_path / "events"
    # The server is stuck on the request for 0.5 s more: reconnecting waits for it to end.
    code, out, _ = run(capsys, "check", "-q", "--timeout", "3", *_server(events, 3, 3.5, 5))
    assert code == 1
    assert (
        "wide://t/{v0}/{v1}/{v2}: timeout (violation): completion/complete of 'v0': no answer"
        in out.splitlines()
    )
    # One request timed out: no more were asked, and the read got its own connection.
    assert _events(events) == ["complete v0", "read wide://t/example/example/example"]


def test_a_wide_template_is_read_in_linear_time() -> None:
    template = "wide://t/" + "".join(f"{{v{n}}}" for n in range(40_000))
    started = time.process_time()
    names = variables(template)
    assert time.process_time() - started < 2  # 8 s when each name was looked up in a list
    assert len(names) == 40_000 and names[:2] == ["v0", "v1"]


def test_a_dry_run_asks_completions_within_one_timeout_per_template(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events = tmp_path / "events"
    started = time.monotonic()
    code, out, _ = run(capsys, "check", "--dry-run", "--timeout", "1", *_server(events, 20, 2, 5))
    assert time.monotonic() - started < 6  # 40 s of completions without the bound
    assert code == 0
    assert "resource template wide://t/{v0}/" in out
    assert [event for event in _events(events) if event.startswith("read ")] == []
