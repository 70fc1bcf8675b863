"""Secrets a hostile server quotes back never reach output: every command, every transport.

The server (``servers/echo_secrets.py``) is a real subprocess -- stdio, or
HTTP on 127.0.0.1 -- that quotes what it received (env values, argv, the
request line, every header including the ``Basic`` pair httpx makes of the
URL's ``user:password``) raw, URL-encoded, JSON-escaped and in base64: when
connecting, in its ``tools/list`` answer, in a tool's result, or on stderr
before it dies. Nothing printed or written may hold any of those spellings;
what is too short to be a secret (``SHORT=abc``, ``X-Trace: on``) is printed as the server wrote it.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

import littleghost as lg
import littleghost.mcp
from littleghost.mcp import Toolset
from littleghost_testing._targets import resolve
from littleghost_testing.cli import main
from tests.hostile.servers.clients import REPO

TOKEN = 'tok-"3n/Secret+Value=1'  # --env API_TOKEN=${LG_ECHO_TOKEN}
PASSWORD = "hunter2-literal"  # --env DB_PASSWORD=... written as is
ARGUMENT = "argv-s3cret-9876"  # ${LG_ECHO_ARG} in the server's command
KEY = "key-0123456789abcdef"  # --header 'X-Api-Key: ${LG_ECHO_KEY}'
COOKIE = "cookie-value-123"  # --header 'Cookie: session=...; theme=dark'
QUERY = "qtok-1234567890"  # the URL's ?token=
USER, URL_PASSWORD = "alice", "pa55-w0rd-x"  # the URL's user:password
ENVIRON = {"LG_ECHO_TOKEN": TOKEN, "LG_ECHO_ARG": ARGUMENT, "LG_ECHO_KEY": KEY}

SECRETS = {
    "stdio": [TOKEN, PASSWORD, ARGUMENT],
    "http": [KEY, COOKIE, QUERY, URL_PASSWORD, f"{USER}:{URL_PASSWORD}"],
}
SHOWN = {"stdio": "SHORT: abc ", "http": "X-Trace: on "}
"""What the server echoed that is no secret, printed as is: the echo did reach the output."""


def spellings(secret: str) -> set[str]:
    encoded = base64.b64encode(secret.encode()).decode()
    return {secret, quote(secret, safe=""), json.dumps(secret)[1:-1], encoded}


def decoded_base64(text: str) -> str:
    """Each run of base64 characters in ``text``, decoded: a whole request line, say."""
    runs = re.findall(r"[A-Za-z0-9+/]{12,}", text)
    return "\n".join(base64.b64decode(run[: len(run) // 4 * 4]).decode("latin-1") for run in runs)


def assert_no_secret(transport: str, *texts: str) -> None:
    everything = "\n".join(texts)
    decoded = decoded_base64(everything)
    for secret in SECRETS[transport]:
        for spelling in spellings(secret):
            assert spelling not in everything, f"{spelling!r} leaked:\n{everything}"
        assert secret not in decoded, f"{secret!r} leaked in base64:\n{everything}"
    basic = base64.b64encode(f"{USER}:{URL_PASSWORD}".encode()).decode()
    assert basic not in everything
    assert "[redacted]" in everything, everything


@pytest.fixture(autouse=True)
def _secrets_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENVIRON.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def http_servers() -> Iterator[dict[str, str]]:
    """One echoing HTTP server per place it echoes; their URLs, with the secrets in them."""
    processes: list[subprocess.Popen[str]] = []
    urls: dict[str, str] = {}
    try:
        for when in ("connect", "list", "call"):
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.hostile.servers.echo_secrets", "http", when],
                cwd=REPO,
                stdout=subprocess.PIPE,
                text=True,
            )
            processes.append(process)
            assert process.stdout is not None
            port = int(process.stdout.readline())
            urls[when] = f"http://{USER}:{URL_PASSWORD}@127.0.0.1:{port}/mcp?token={QUERY}"
        yield urls
    finally:
        for process in processes:
            process.kill()
            process.wait()
            if process.stdout is not None:
                process.stdout.close()


def connection(transport: str, when: str, urls: dict[str, str]) -> tuple[list[str], list[str]]:
    """(words before the command's own, words after them) reaching the echoing server."""
    if transport == "http":
        headers = ["--header", "X-Api-Key: ${LG_ECHO_KEY}"]
        headers += ["--header", f"Cookie: session={COOKIE}; theme=dark"]
        headers += ["--header", "X-Trace: on"]
        return [urls[when]], headers
    options = ["--env", "API_TOKEN=${LG_ECHO_TOKEN}", "--env", f"DB_PASSWORD={PASSWORD}"]
    options += ["--env", "SHORT=abc", "--cwd", str(REPO)]
    module = "tests.hostile.servers.echo_secrets"
    command = ["--", sys.executable, "-m", module, "stdio", when, "--token", "${LG_ECHO_ARG}"]
    return [], [*options, *command]


def run_cli(
    capsys: pytest.CaptureFixture[str], command: str, before: list[str], after: list[str]
) -> tuple[int, str, str]:
    code = main([command, *before, *after])
    out, err = capsys.readouterr()
    return code, out, err


COMMANDS = {
    "lock": lambda tmp: ["lock", "-o", str(tmp / "new.lock")],
    "diff": lambda tmp: ["diff", "--lock", str(tmp / "old.lock")],
    "lint": lambda tmp: ["lint"],
    "call": lambda tmp: ["call"],
    "check": lambda tmp: ["check", "--examples", "1"],
    "check --dry-run": lambda tmp: ["check", "--dry-run"],
    "check --json --junit-xml": lambda tmp: [
        "check",
        "--examples",
        "1",
        "--json",
        str(tmp / "report.json"),
        "--junit-xml",
        str(tmp / "report.xml"),
    ],
}


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(
    ("command", "when"),
    [(command, "connect") for command in COMMANDS]
    + [(command, "list") for command in COMMANDS if command != "call"],  # call lists nothing
)
def test_a_server_quoting_secrets_when_connecting_or_listing_shows_none(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    http_servers: dict[str, str],
    transport: str,
    when: str,
    command: str,
) -> None:
    littleghost.mcp.CatalogLock.from_tools([]).write(tmp_path / "old.lock")
    name, *options = COMMANDS[command](tmp_path)
    before, after = connection(transport, when, http_servers)
    if name == "call":
        before = [*before, "probe", "{}"] if before else ["probe", "{}"]
    code, out, err = run_cli(capsys, name, before, [*options, *after])
    assert code == 2 or (name == "check" and code == 1), (code, out, err)
    written = [path.read_text() for path in tmp_path.glob("report.*")]
    if command == "check --json --junit-xml" and when == "list":
        assert len(written) == 2  # the (tools/list) finding is in both reports
    assert_no_secret(transport, out, err, *written)
    assert SHOWN[transport] in out + err + "".join(written)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_tool_result_quoting_secrets_is_redacted_for_call(
    capsys: pytest.CaptureFixture[str], http_servers: dict[str, str], transport: str
) -> None:
    before, after = connection(transport, "call", http_servers)
    before = [*before, "probe", "{}"] if before else ["probe", "{}"]
    code, out, err = run_cli(capsys, "call", before, after)
    assert code == 0, err
    assert_no_secret(transport, out, err)
    assert SHOWN[transport] in out


def test_a_crashed_servers_stderr_tail_is_redacted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before, after = connection("stdio", "crash", {})
    code, out, err = run_cli(capsys, "call", [*before, "probe", "{}"], after)
    assert code == 2
    assert "server stderr: received API_TOKEN: [redacted]" in err
    assert_no_secret("stdio", out, err)
    assert SHOWN["stdio"] in err


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_toolset_hands_the_model_a_redacted_result(
    http_servers: dict[str, str], transport: str
) -> None:
    if transport == "http":
        made: Any = lambda: littleghost.mcp.client(  # noqa: E731
            http_servers["call"],
            headers={"X-Api-Key": KEY, "Cookie": f"session={COOKIE}; theme=dark", "X-Trace": "on"},
        )
    else:
        command = [sys.executable, "-m", "tests.hostile.servers.echo_secrets", "stdio", "call"]
        made = lambda: littleghost.mcp.client(  # noqa: E731
            [*command, "--token", ARGUMENT],
            env={"API_TOKEN": TOKEN, "DB_PASSWORD": PASSWORD, "SHORT": "abc"},
            cwd=REPO,
            secrets=[ARGUMENT],
        )

    class Echoing(Toolset):
        def client(self, binding: lg.Binding) -> Any:
            return made()

    async with lg.Run() as run:
        binding = lg.Binding(run=run)
        [probe] = await Echoing.tools(binding)
        result = await probe(binding).execute({})
    assert_no_secret(transport, result.content)
    assert SHOWN[transport] in result.content


@pytest.mark.anyio
async def test_a_toolset_connect_error_is_redacted_with_its_causes(
    http_servers: dict[str, str],
) -> None:
    class Refusing(Toolset):
        def client(self, binding: lg.Binding) -> Any:
            return littleghost.mcp.client(http_servers["connect"], headers={"X-Api-Key": KEY})

    with pytest.raises(lg.ProviderError) as raised:
        await Refusing.tools()
    chain: list[str] = []
    error: BaseException | None = raised.value
    while error is not None:
        chain.append(repr(error))
        error = error.__cause__ or error.__context__
    assert "[redacted]" in str(raised.value)
    for spelling in spellings(KEY) | spellings(QUERY) | spellings(URL_PASSWORD):
        assert spelling not in "\n".join(chain)


@pytest.mark.anyio
async def test_from_targets_server_stderr_reaches_ours_redacted(
    capfd: pytest.CaptureFixture[str],
) -> None:
    _, after = connection("stdio", "crash", {})
    options, command = after[: after.index("--")], after[after.index("--") + 1 :]
    env = dict(option.split("=", 1) for option in options[1:6:2])
    target = resolve(None, command=command, env=env, cwd=REPO)

    class Crashing(Toolset):
        def client(self, binding: lg.Binding) -> Any:
            return target.client()

    async with lg.Run() as run:
        binding = lg.Binding(run=run)
        [probe] = await Crashing.tools(binding)
        assert (await probe(binding).execute({})).status == "error"
    out, err = capfd.readouterr()
    assert "received API_TOKEN: [redacted]" in err
    assert_no_secret("stdio", out, err)
    assert SHOWN["stdio"] in err
