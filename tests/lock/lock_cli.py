"""``littleghost`` run in-process for the lock tests: its exit code, stdout and stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from littleghost_testing.cli import main

BEFORE, AFTER = "lock_servers:before", "lock_servers:after"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def diff_since(
    capsys: pytest.CaptureFixture[str], lock: Path, before: str, after: str
) -> tuple[int, str]:
    """``diff`` of ``lock_servers.<after>`` against a fresh lock of ``<before>``: code, stdout."""
    assert run(capsys, "lock", f"lock_servers:{before}", "-o", str(lock))[0] == 0
    code, out, _ = run(capsys, "diff", f"lock_servers:{after}", "--lock", str(lock))
    return code, out
