from pathlib import Path

import pytest
from lock_cli import BEFORE, run


@pytest.fixture
def locked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    """``littleghost lock`` of ``lock_servers.before``, written and checked."""
    path = tmp_path / "littleghost.lock"
    code, out, _ = run(capsys, "lock", BEFORE, "-o", str(path))
    assert code == 0
    assert out == f"{path}: 4 tools, 0 resources, 0 resource templates, 0 prompts of catalog\n"
    return path
