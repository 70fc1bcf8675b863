import fcntl
import subprocess
import sys

import pytest
from hypothesis import settings

pytest_plugins = ["pytester"]

# The suite draws the same inputs everywhere: the settings Hypothesis loads on
# CI machines (its "ci" profile), loaded on every machine.
settings.register_profile(
    "littleghost-suite", derandomize=True, database=None, deadline=None, print_blob=True
)
settings.load_profile("littleghost-suite")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Every async test runs on both event loops anyio supports."""
    return request.param


@pytest.fixture(scope="session")
def fastmcp_python(request: pytest.FixtureRequest) -> str:
    """A Python with FastMCP 2.x (which needs mcp 1.x), in a venv cached across runs.

    Made once under a lock: xdist workers that need it at the same time wait for one venv.
    """
    home = request.config.cache.mkdir("fastmcp2-venv")
    python = home / "bin" / "python"
    with (home.parent / "fastmcp2-venv.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (home / "installed").exists():  # a half-made venv is made again
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(home)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "-q", "fastmcp>=2,<3"], check=True)
            (home / "installed").touch()
    return str(python)
