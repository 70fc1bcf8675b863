"""Running hostile cases in a child process that may crash without taking the tests down.

``run_limited`` runs a Python snippet in a fresh interpreter with an address-space
limit (``resource.RLIMIT_AS``) and a wall-clock limit. The caller asserts on the
completed process: its return code (a crash is a negative signal number) and
what the snippet printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

__all__ = ["run_limited"]

_ROOT = Path(__file__).resolve().parents[2]
_PRELUDE = """\
import resource
limit = {limit}
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
"""


def run_limited(code: str, *, memory_mb: int, seconds: float) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (dedented) under ``memory_mb`` MiB of address space and ``seconds``.

    Raises ``subprocess.TimeoutExpired`` (after killing the child) when it runs
    too long. The repository root is on ``sys.path``, so the snippet imports
    ``littleghost`` as the tests do.
    """
    script = _PRELUDE.format(limit=memory_mb * 1024 * 1024) + textwrap.dedent(code)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=seconds,
        cwd=_ROOT,
        env=env,
        check=False,
    )
