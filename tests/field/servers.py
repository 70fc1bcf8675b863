"""Install the field's published servers, make their scratch state, run ``check`` once on each.

Each PyPI server gets a venv of its own in pytest's cache (``mcp<2`` beside it when its
manifest entry says so); the npm servers share one ``npm install`` in the cache. Each is
made once, under a file lock, so xdist workers that need the same server wait for one
install while other servers install beside it. The ``check`` run of a server is shared
the same way by every expectation of it, through the session's base temp folder, which
xdist's workers share the parent of.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
MANIFEST = Path(__file__).with_name("manifest.json")
EXAMPLES = 10
"""``--examples`` for every run: half the default, since the suite runs on two cores."""
MAX_TIME = 120
"""``--max-time`` for every run: each takes 3 to 20 s on an idle machine."""
CONNECT_TIMEOUT = 30
"""``--timeout``: a Python server's imports alone take over 10 s on a busy CI machine."""
RUN_TIMEOUT = 300
"""A ``check`` run (or an install) that takes longer than this is broken, not slow."""


def load_manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (made if missing) for the duration."""
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def installed(config: pytest.Config, name: str, spec: dict[str, Any]) -> dict[str, str]:
    """The placeholders of ``name``'s command once it is installed: ``{bin}`` or ``{npm}``."""
    if spec["registry"] == "npm":
        return {"{npm}": str(_npm_modules(config))}
    home = config.cache.mkdir(f"field-{name}-{spec['version']}")
    wanted = [f"{spec['package']}=={spec['version']}", *spec["requires"]]
    marker = home / "installed"  # what was installed: a half-made venv has none
    with locked(home.parent / f"field-{name}.lock"):
        if not marker.exists() or marker.read_text() != json.dumps(wanted):
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(home)], check=True)
            pip = [str(home / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
            subprocess.run([*pip, *wanted], check=True, timeout=RUN_TIMEOUT)
            marker.write_text(json.dumps(wanted))
    return {"{bin}": str(home / "bin")}


def _npm_modules(config: pytest.Config) -> Path:
    """One ``npm install`` of every npm server of the manifest, pinned, in the cache."""
    pins = {
        spec["package"]: spec["version"]
        for spec in load_manifest()["servers"].values()
        if spec["registry"] == "npm"
    }
    package = {"private": True, "dependencies": dict(sorted(pins.items()))}
    home = config.cache.mkdir("field-npm")
    wanted = json.dumps(package, indent=2) + "\n"
    marker = home / "installed"  # the package.json installed: a half-made install has none
    with locked(home.parent / "field-npm.lock"):
        if not marker.exists() or marker.read_text() != wanted:
            (home / "package.json").write_text(wanted)
            npm = shutil.which("npm")
            assert npm is not None, "the field's npm servers need node and npm on PATH"
            subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=home,
                check=True,
                timeout=RUN_TIMEOUT,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
            marker.write_text(wanted)
    return home / "node_modules"


def shared_root(factory: pytest.TempPathFactory) -> Path:
    """The session's base temp folder, shared by every xdist worker of the session."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def checked(request: pytest.FixtureRequest, name: str) -> dict[str, Any]:
    """``littleghost check`` on server ``name``, run once per session: its exit code and report."""
    root = shared_root(request.getfixturevalue("tmp_path_factory")) / "field"
    root.mkdir(exist_ok=True)
    done = root / f"{name}.json"
    with locked(root / f"{name}.lock"):
        if not done.exists():
            done.write_text(json.dumps(_check(request.config, name, root / name)))
    return json.loads(done.read_text())


def _check(config: pytest.Config, name: str, folder: Path) -> dict[str, Any]:
    spec = load_manifest()["servers"][name]
    words = installed(config, name, spec)
    scratch, home = folder / "scratch", folder / "home"
    scratch.mkdir(parents=True)
    home.mkdir()
    words["{scratch}"] = str(scratch)
    _make_scratch(spec.get("scratch"), scratch, words)
    before = _digests(scratch)
    arguments = [_fill(word, words) for word in spec.get("options", [])]
    if "inputs" in spec:
        inputs = folder / "inputs.json"
        inputs.write_text(_fill(json.dumps(spec["inputs"]), words))
        arguments += ["--inputs", str(inputs)]
    report = folder / "report.json"
    command = [sys.executable, "-m", "littleghost_testing.cli", "check", "--quiet"]
    limits = ["--examples", str(EXAMPLES), "--max-time", str(MAX_TIME)]
    limits += ["--timeout", str(CONNECT_TIMEOUT), "--json", str(report)]
    limits += ["--env", f"HOME={home}"]  # what a server keeps in HOME stays in the run's folder
    server = [_fill(word, words) for word in spec["command"]]
    start = time.monotonic()
    run = subprocess.run(
        [*command, *limits, *arguments, "--", *server],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    loaded = json.loads(report.read_text()) if report.exists() else None
    seconds = round(time.monotonic() - start, 1)
    after = _digests(scratch)
    return {
        "exit": run.returncode,
        "stderr": run.stderr[-2000:],
        "report": loaded,
        "seconds": seconds,
        "changed": sorted(
            name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
        ),
    }


def _digests(folder: Path) -> dict[str, str]:
    """Each file under ``folder`` by its path, with its digest; git's index cache left out.

    A read-only git command may refresh ``.git/index`` (its cached file times): that is
    not a change to the repository.
    """
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.relative_to(folder).as_posix() != ".git/index"
    }


def _fill(text: str, words: dict[str, str]) -> str:
    for word, value in words.items():
        text = text.replace(word, value)
    return text


def _make_scratch(kind: str | None, scratch: Path, words: dict[str, str]) -> None:
    """The state a server works on, made fresh for the run (never the user's own)."""
    if kind == "git":  # one commit, one file modified since
        git = ["git", "-c", "user.name=field", "-c", "user.email=field@example.invalid"]
        subprocess.run([*git, "init", "-q", str(scratch)], check=True)
        (scratch / "notes.txt").write_text("first\n")
        subprocess.run([*git, "-C", str(scratch), "add", "notes.txt"], check=True)
        subprocess.run([*git, "-C", str(scratch), "commit", "-qm", "first"], check=True)
        (scratch / "notes.txt").write_text("first\nsecond\n")
    elif kind == "folder":  # a text file and a folder with a JSON file
        (scratch / "notes.txt").write_text("first\nsecond\n")
        (scratch / "sub").mkdir()
        (scratch / "sub" / "data.json").write_text('{"a": 1}\n')
    elif kind == "duckdb":  # a three-row table, made with the server's own duckdb
        make = (
            "import duckdb, sys; c = duckdb.connect(sys.argv[1]);"
            "c.execute('create table items(id integer, name varchar, price double)');"
            "c.execute(\"insert into items values (1, 'pen', 1.5), (2, 'ink', 3.0)\"); c.close()"
        )
        python = str(Path(words["{bin}"]) / "python")
        subprocess.run([python, "-c", make, str(scratch / "shop.duckdb")], check=True)
    elif kind == "memory":  # a knowledge graph of two entities and a relation
        lines = [
            {"type": "entity", "name": "Ada", "entityType": "person", "observations": ["codes"]},
            {"type": "entity", "name": "Engine", "entityType": "machine", "observations": []},
            {"type": "relation", "from": "Ada", "to": "Engine", "relationType": "programs"},
        ]
        (scratch / "memory.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    else:
        assert kind is None, f"unknown scratch kind {kind!r}"
