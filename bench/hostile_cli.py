"""The CLI against issue 30's hostile servers: peak RSS, CPU, wall time, exit code, output.

Each case runs ``littleghost ARGV`` in a fresh interpreter against a real hostile
subprocess server of ``tests/`` with the issue's own sizes; that interpreter
reports its own peak RSS and CPU time when it exits (the server's are not
counted). The first line of what it printed (stderr if stdout holds none)
is shortened, and a case fails if any secret it was given appears anywhere
in its output or files.

Usage::

    python bench/hostile_cli.py              # every case, a markdown table
    python bench/hostile_cli.py --only 3     # the cases of one issue point
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
TOKEN, ARGUMENT = 'tok-"3n/Secret+Value=1', "argv-s3cret-9876"
CHILD = """
import atexit, json, os, resource, sys
def _report():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["LG_BENCH_USAGE"], "w") as out:
        json.dump([usage.ru_maxrss, usage.ru_utime + usage.ru_stime], out)
atexit.register(_report)
from littleghost_testing.cli import main
sys.exit(main(json.loads(sys.argv[1])))
"""


@dataclass
class Case:
    point: str
    scenario: str
    argv: Callable[[Path], list[str]]
    secrets: tuple[str, ...] = ()
    prepare: Callable[[Path], object] = lambda folder: None
    file_limit: int | None = None
    grep: str = ""  # the line to show, if not the first
    holds: Callable[[Path], bool] = lambda folder: True  # what must be true of its files after


def server(*words: str) -> list[str]:
    return ["--", PY, *words]


def hostile(module: str, *words: str) -> list[str]:
    return server("-m", f"tests.hostile.servers.{module}", *words)


def completions(variables: int, seconds: float, size: int) -> Callable[[Path], list[str]]:
    script = str(ROOT / "tests/cli/servers/read_hostile.py")
    return lambda d: server(script, str(variables), str(seconds), str(size), str(d / "events"))


def locked(server_name: str) -> Callable[[Path], None]:
    def prepare(folder: Path) -> None:
        run_cli(["lock", f"lock_servers:{server_name}", "-o", str(folder / "a.lock")], folder)

    return prepare


def edited(edit: Callable[[str], str]) -> Callable[[Path], None]:
    def prepare(folder: Path) -> None:
        locked("before")(folder)
        path = folder / "a.lock"
        path.write_text(edit(path.read_text()))

    return prepare


def wrong_annotations(text: str) -> str:
    document = json.loads(text)
    document["tools"]["search"]["annotations"] = "readOnly"
    return json.dumps(document)


def well_formed(path: Path) -> bool:
    try:
        ElementTree.parse(path)
    except ElementTree.ParseError:
        return False
    return True


def unchanged_lock(folder: Path) -> bool:
    tools = json.loads((folder / "a.lock").read_text())["tools"]
    return (
        "retired" in tools
        and "added" not in tools
        and not [path for path in folder.iterdir() if path.name.startswith(".")]
    )


def private_tmpdir_gone(folder: Path) -> bool:
    """The server's answer names a private TMPDIR, and the run removed it."""
    answer = json.loads((folder / "out").read_text())
    where = json.loads(answer["result"]["content"][0]["text"])
    return where["TMPDIR"] != tempfile.gettempdir() and not Path(where["TMPDIR"]).exists()


PASSWORD = "hunter2-literal"
ECHO = [
    "--env",
    "API_TOKEN=${LG_ECHO_TOKEN}",
    "--env",
    f"DB_PASSWORD={PASSWORD}",
    "--cwd",
    str(ROOT),
]
ECHO_SERVER = hostile("echo_secrets", "stdio", "list", "--token", "${LG_ECHO_ARG}")
LISTING = hostile("listings", "resources", "99", str(15 << 20))
DIFF = ["diff", "lock_servers:before", "--lock"]
CASES = [
    Case(
        "1",
        "echoed secrets: `lock`",
        lambda d: ["lock", "-o", str(d / "n.lock"), *ECHO, *ECHO_SERVER],
        (TOKEN, ARGUMENT, PASSWORD),
    ),
    Case(
        "1",
        "echoed secrets: `check --json --junit-xml`",
        lambda d: [
            "check",
            "--examples",
            "1",
            "--json",
            str(d / "r.json"),
            "--junit-xml",
            str(d / "r.xml"),
            *ECHO,
            *ECHO_SERVER,
        ],
        (TOKEN, ARGUMENT, PASSWORD),
        grep="malformed",
    ),
    Case(
        "2",
        "99 pages x 15 MiB: `lock`",
        lambda d: ["lock", "-o", str(d / "n.lock"), *LISTING],
        holds=lambda d: not (d / "n.lock").exists(),
    ),
    Case("2", "99 pages x 15 MiB: `check`", lambda d: ["check", "-q", *LISTING], grep="malformed"),
    Case(
        "3",
        "20 variables, 2 s each, `--max-time 5`",
        lambda d: ["check", "-q", "--max-time", "5", *completions(20, 2, 5)(d)],
        grep="--max-time",
    ),
    Case(
        "3",
        "1 000 variables answered at once",
        lambda d: ["check", "-v", *completions(1000, 0, 5)(d)],
        grep="more variables",
    ),
    Case(
        "3",
        "40 000 variables (quadratic parse before)",
        lambda d: ["check", "-v", *completions(40_000, 0, 5)(d)],
        grep="more variables",
    ),
    Case(
        "4",
        "5 000 resources x 4 KiB, 100 a page: `lock`",
        lambda d: [
            "lock",
            "-o",
            str(d / "n.lock"),
            *hostile("listings", "resources", "50", "4096", "100"),
        ],
        holds=lambda d: not (d / "n.lock").exists(),
    ),
    Case(
        "4",
        "3 listings x 2 000 x 4 KiB (each < 10 MiB): `lock`",
        lambda d: [
            "lock",
            "-o",
            str(d / "n.lock"),
            *hostile("listings", "resources,templates,prompts", "20", "4096", "100"),
        ],
        holds=lambda d: not (d / "n.lock").exists(),
    ),
    Case(
        "5",
        "`annotations` a string: `diff`",
        lambda d: [*DIFF, str(d / "a.lock")],
        prepare=edited(wrong_annotations),
    ),
    Case(
        "5",
        "`annotations` a string: `check --lock`",
        lambda d: ["check", "--examples", "1", "--lock", str(d / "a.lock"), "lock_servers:before"],
        prepare=edited(wrong_annotations),
    ),
    Case(
        "6",
        "`lock --update` under RLIMIT_FSIZE",
        lambda d: ["lock", "lock_servers:after", "-o", str(d / "a.lock"), "--update"],
        prepare=locked("before"),
        file_limit=1000,
        holds=unchanged_lock,
    ),
    Case(
        "7",
        "ESC/BEL in a tool name: `diff --junit-xml`",
        lambda d: [
            "diff",
            "lock_servers:control_name",
            "--lock",
            str(d / "a.lock"),
            "--junit-xml",
            str(d / "d.xml"),
        ],
        prepare=locked("before"),
        grep="look",
        holds=lambda d: well_formed(d / "d.xml"),
    ),
    Case(
        "8",
        "17 MiB completion answer",
        lambda d: ["check", "-q", *completions(1, 0, 17 << 20)(d)],
        grep="malformed",
    ),
    Case(
        "9",
        "past MAX_EXPANSIONS, `{}` valid",
        lambda d: ["check", "-v", "--examples", "5", *hostile("schemas")],
        grep="expansive: note",
    ),
    Case(
        "10",
        "stdio server writing to its temp folder",
        lambda d: ["call", "where", "{}", "--cwd", str(ROOT), *hostile("temp_writer")],
        grep="TMPDIR",
        holds=private_tmpdir_gone,
    ),
    Case(
        "Q1",
        '`"littleghost_lock": true`',
        lambda d: [*DIFF, str(d / "a.lock")],
        prepare=edited(lambda t: t.replace('"littleghost_lock": 1', '"littleghost_lock": true')),
    ),
    Case(
        "Q2",
        "a key written twice",
        lambda d: [*DIFF, str(d / "a.lock")],
        prepare=edited(lambda t: t.replace('  "tools": {', '  "tools": {},\n  "tools": {', 1)),
    ),
    Case(
        "Q3",
        "`lock --update -o README.md`",
        lambda d: ["lock", "lock_servers:before", "-o", str(d / "README.md"), "--update"],
        prepare=lambda d: (d / "README.md").write_text("# notes\n"),
        holds=lambda d: (d / "README.md").read_text() == "# notes\n",
    ),
    Case(
        "Q4",
        "bidi override at the first `lock`",
        lambda d: ["lock", "lock_servers:hidden", "-o", str(d / "h.lock")],
        holds=lambda d: (d / "h.lock").read_text().isascii(),
    ),
]


@dataclass
class Measured:
    code: int
    wall: float
    cpu: float
    rss_mib: float
    line: str
    leaked: bool
    holds: bool


def run_cli(argv: list[str], folder: Path, case: Case | None = None) -> Measured:
    usage = folder / "usage.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests/lock")]),
        "LG_ECHO_TOKEN": TOKEN,
        "LG_ECHO_ARG": ARGUMENT,
        "LG_BENCH_USAGE": str(usage),
    }
    limit = case.file_limit if case else None

    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    started = time.perf_counter()
    done = subprocess.run(
        [PY, "-c", CHILD, json.dumps(argv)],
        cwd=ROOT,
        env=env,
        preexec_fn=limited,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=600,
    )
    wall = time.perf_counter() - started
    (folder / "out").write_text(done.stdout)
    rss, cpu = json.loads(usage.read_text()) if usage.exists() else (0, 0.0)
    lines = (done.stdout or done.stderr).splitlines() or [""]
    grep = case.grep if case else ""
    line = next((x for x in lines if grep and grep in x), lines[0])
    written = "".join(p.read_text(errors="replace") for p in folder.iterdir() if p.is_file())
    everything = done.stdout + done.stderr + written
    leaked = any(secret in everything for secret in (case.secrets if case else ()))
    holds = case.holds(folder) if case else True
    return Measured(done.returncode, wall, cpu, rss / 1024, line, leaked, holds)


def shorten(text: str, width: int = 110) -> str:
    text = text.encode("unicode_escape").decode().replace("|", "\\|")
    return text if len(text) <= width else text[: width // 2 - 2] + " … " + text[-width // 2 :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="the cases of one point of issue 30 (1-10, Q1-Q4)")
    arguments = parser.parse_args()
    load, python = os.getloadavg()[0], sys.version.split()[0]
    print(f"load average {load:.1f}, {os.cpu_count()} cores, CPython {python}")
    print("\n| # | scenario | exit | peak RSS | CPU / wall | printed | secret | files |")
    print("|---|---|--:|--:|--:|---|---|---|")
    for case in CASES:
        if arguments.only and case.point != arguments.only:
            continue
        folder = Path(tempfile.mkdtemp(prefix="lg-bench-"))
        try:
            case.prepare(folder)
            got = run_cli(case.argv(folder), folder, case)
        finally:
            shutil.rmtree(folder)
        secret = ("LEAKED" if got.leaked else "none") if case.secrets else "—"
        files = "as expected" if got.holds else "NOT as expected"
        print(
            f"| {case.point} | {case.scenario} | {got.code} | {got.rss_mib:.0f} MiB | "
            f"{got.cpu:.1f} / {got.wall:.1f} s | `{shorten(got.line)}` | {secret} | {files} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
