import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from field.summary import pytest_terminal_summary  # noqa: F401 - the field's table, a hook
from hypothesis import Phase, settings

pytest_plugins = ["pytester"]

TYPESCRIPT = Path(__file__).resolve().parent / "corpus" / "ts"
"""The TypeScript SDK, pinned in its package.json: the planted-bug corpus installs it here too."""

# The suite draws the same inputs everywhere: the settings Hypothesis loads on
# CI machines (its "ci" profile), loaded on every machine. Without the explain phase:
# after a failure is shrunk, it re-runs the test hundreds of times only to comment the
# report (a `find` of the 16-site order schema took 15 s of CPU for it, 0.4 s without).
settings.register_profile(
    "littleghost-suite",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    phases=[phase for phase in Phase if phase is not Phase.explain],
)
settings.load_profile("littleghost-suite")


@pytest.fixture(scope="session", autouse=True)
def session_temp_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The temp folder of the session and of every subprocess it starts: under pytest's own.

    ``littleghost check`` keeps a stdio server's stderr log in the temp folder when the
    server wrote to it (so a user can read why it crashed); the suite's crashing servers
    would leave hundreds in ``/tmp``. Here they go where pytest keeps (and rotates) its own.
    A fake server's stdio connection removes its folder when it closes: one still there at
    the end of the session is an error.
    """
    folder = tmp_path_factory.mktemp("tmp", numbered=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(folder))
        patch.setattr(tempfile, "tempdir", str(folder))
        yield folder
    left = sorted(path.name for path in folder.glob("littleghost-fake-*"))
    assert not left, f"FakeMCPServer temp folders outlived the session: {left}"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Every async test runs on both event loops anyio supports."""
    return request.param


@pytest.fixture(scope="session")
def fastmcp_python(request: pytest.FixtureRequest) -> str:
    """A Python with FastMCP 2.x (which needs mcp 1.x), in a venv cached across runs."""
    return _cached_venv(request, "fastmcp2-venv", "fastmcp>=2,<3")


@pytest.fixture(scope="session")
def fastmcp3_python(request: pytest.FixtureRequest) -> str:
    """A Python with FastMCP 3.x (its server part: ``fastmcp-slim[server]``, what
    ``fastmcp`` 3 installs less its client extras), in a venv cached across runs."""
    return _cached_venv(request, "fastmcp3-venv", "fastmcp-slim[server]>=3,<4")


def _cached_venv(request: pytest.FixtureRequest, name: str, requirement: str) -> str:
    """The Python of a venv with ``requirement``, in pytest's cache, made once.

    Made under a lock: xdist workers that need it at the same time wait for one venv.
    """
    home = request.config.cache.mkdir(name)
    python = home / "bin" / "python"
    with (home.parent / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (home / "installed").exists():  # a half-made venv is made again
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(home)], check=True)
            # No bytecode at install: the corpus server compiles the few modules it imports.
            install = [str(python), "-m", "pip", "install", "-q", "--no-compile"]
            subprocess.run([*install, requirement], check=True)
            (home / "installed").touch()
    return str(python)


@pytest.fixture(scope="session")
def typescript_modules() -> Path:
    """``tests/corpus/ts/node_modules``, with the pinned TypeScript SDK.

    The same ``npm install``, under the same lock, as the planted-bug corpus's, so a
    fresh clone installs the SDK once for the whole suite.
    """
    npm = shutil.which("npm")
    assert npm is not None, "the TypeScript SDK tests need node and npm on PATH"
    with (TYPESCRIPT / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (TYPESCRIPT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
            subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=TYPESCRIPT,
                check=True,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
    return TYPESCRIPT / "node_modules"
