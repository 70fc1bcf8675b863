"""What to connect to: an MCP server by URL, stdio command, ``module:attribute`` or config file.

``resolve`` and ``from_config`` turn what a user wrote (on the command line,
in pytest, in an ``mcpServers`` JSON file) into a ``Target``: a way to get a
fresh ``mcp.Client`` plus the words to name the server without its secrets.

Every client comes from ``littleghost.mcp.client``: the kit reads a server
through the same bounded transports, and gets the same typed errors, as a
``Toolset`` does. Header values and environment variable values are secrets:
they reach the server and nothing else. ``Target.label`` and ``Target.connect_words()``
show them as ``${VAR}`` references, and ``${VAR}`` written by the user is
expanded from the environment only when connecting, in stdio arguments,
header values and env values. What a ``${VAR}`` expanded to is a secret too,
wherever it was written: the client redacts it, with every header, env, query
and password value, from all the server sends back, and ``Target.redact`` from
whatever else of the server's the kit shows (the tail of its stderr).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shlex
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TextIO
from urllib.parse import urlsplit, urlunsplit

import mcp
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

import littleghost.mcp

from ._engine import find_credential
from ._identity import identified
from .fake_server import FakeMCPServer

__all__ = [
    "Target",
    "TargetError",
    "expand",
    "from_config",
    "parse_header",
    "read_json",
    "resolve",
]

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# What an HTTP header value cannot hold (RFC 9110 allows tab among the controls).
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
REFUSED_STATUSES = (401, 403)
#: A config file larger than this is not an MCP client's config.
MAX_CONFIG_BYTES = 1024 * 1024

Kind = Literal["http", "stdio", "module"]


class TargetError(ValueError):
    """The target cannot be used; the message is one line naming the problem."""


@dataclass
class _Refusal:
    """The HTTP status with which the server refused our credentials, once it did."""

    status: int | None = None


@dataclass
class _Sent:
    """How the last client hides what it sent (``littleghost.mcp.client`` knows)."""

    redact: Callable[[str], str] = str


@dataclass(frozen=True)
class Target:
    """A server to connect to: a safe name, and fresh unconnected clients.

    ``label`` names the server without any header or env value. ``positional``,
    ``options`` and ``command`` are the ``littleghost`` command-line words that
    reach the same server (secrets as ``${VAR}`` references); see ``connect_words``.
    """

    label: str
    kind: Kind
    positional: str | None
    options: tuple[str, ...]
    command: tuple[str, ...]
    _connect: Callable[[TextIO | None, _Refusal], mcp.Client] = field(repr=False)
    _refusal: _Refusal = field(default_factory=_Refusal, repr=False, compare=False)
    _sent: _Sent = field(default_factory=_Sent, repr=False, compare=False)
    protocol: littleghost.mcp._Protocol = "auto"

    def client(self, *, errlog: TextIO | None = None) -> mcp.Client:
        """A fresh ``mcp.Client`` presenting the kit's identity (``_identity.py``), negotiating
        by ``protocol``; a stdio server's stderr goes to ``errlog`` (a real file), or line by
        line, redacted, to our stderr (pytest's ``from_target``)."""
        made = identified(self._connect(errlog, self._refusal), self.protocol)
        self._sent.redact = littleghost.mcp._redactor_of(made).text
        return made

    def redact(self, text: str) -> str:
        """``text`` (of the server's) without the secrets the last client sent it."""
        return self._sent.redact(text)

    def speaking(self, protocol: littleghost.mcp._Protocol) -> Target:
        """The same server, negotiated by ``protocol`` (``--protocol``, shown unless ``auto``)."""
        options = self.options if protocol == "auto" else (*self.options, "--protocol", protocol)
        return replace(self, protocol=protocol, options=options)

    @property
    def refused_status(self) -> int | None:
        """401 or 403 once an HTTP server refused the credentials, else ``None``."""
        return self._refusal.status

    def connect_words(self, *middle: str) -> list[str]:
        """``[positional, *middle, *options, "--", *command]``: a command line's connection part."""
        words = [self.positional] if self.positional is not None else []
        words += [*middle, *self.options]
        if self.command:
            words += ["--", *self.command]
        return words


def expand(text: str, environ: Mapping[str, str], *, where: str) -> str:
    """``text`` with every ``${VAR}`` replaced from ``environ``; an unset one is an error."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise TargetError(f"environment variable {name} is not set (used in {where})")
        return environ[name]

    return _REFERENCE.sub(value, text)


def _referenced(texts: Sequence[str], environ: Mapping[str, str]) -> list[str]:
    """The values every ``${VAR}`` in ``texts`` expands to: secrets, wherever they were written."""
    names = {match.group(1) for text in texts for match in _REFERENCE.finditer(text)}
    return [environ[name] for name in sorted(names) if name in environ]


def parse_header(text: str) -> tuple[str, str]:
    """``'Name: value'`` as ``(name, value)``."""
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon:
        raise TargetError("--header takes 'Name: value'; got a value without ':'")
    if not _HEADER_NAME.fullmatch(name):
        raise TargetError(f"--header takes 'Name: value'; {name[:40]!r} is not a header name")
    return name, value.strip()


def resolve(
    target: str | None,
    *,
    command: Sequence[str] = (),
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    inherit_tmpdir: bool = False,
) -> Target:
    """The server ``target`` names (URL or ``module:attribute``), or the stdio ``command``.

    ``headers`` go to an HTTP server; ``env`` and ``cwd`` to a stdio server's
    process, which gets a private temp folder unless ``inherit_tmpdir``.
    ``${VAR}`` in header values, env values and command arguments is
    expanded from ``environ`` (default ``os.environ``) at each connection.
    """
    environ = os.environ if environ is None else environ
    headers, env = dict(headers or {}), dict(env or {})
    if command and target is not None:
        raise TargetError("give either TARGET or -- COMMAND ARGS, not both")
    if command:
        if headers:
            raise TargetError("--header is for HTTP servers; a stdio server takes --env")
        return _stdio(list(command), env, cwd, environ, inherit_tmpdir)
    if target is None:
        raise TargetError("give a TARGET (URL or module:attribute) or -- COMMAND ARGS")
    if env or cwd is not None:
        raise TargetError("--env and --cwd are for a stdio server (-- COMMAND ARGS)")
    if inherit_tmpdir:
        raise TargetError("--inherit-tmpdir is for a stdio server (-- COMMAND ARGS)")
    if target.startswith(("http://", "https://")):
        return _http(target, headers, environ)
    if headers:
        raise TargetError("--header is for HTTP servers (http:// or https:// URLs)")
    if _IMPORT_PATH.fullmatch(target):
        return _in_process(target)
    raise TargetError(
        f"{target!r} is not a URL (http://, https://) or module:attribute; "
        "for a stdio server use: -- COMMAND ARGS"
    )


def from_config(
    path: str | Path,
    server_name: str,
    *,
    environ: Mapping[str, str] | None = None,
    inherit_tmpdir: bool = False,
) -> Target:
    """Server ``server_name`` of an MCP client's config file (``{"mcpServers": {...}}``).

    An entry has ``command`` (with ``args``, ``env``, ``cwd``) or ``url`` (with ``headers``).
    """
    path = Path(path)
    entry = _config_entry(path, server_name)
    where = f"server {server_name!r} in {path}"
    if "command" in entry and "url" in entry:
        raise TargetError(f"{where} has both 'command' and 'url': keep the one to connect to")
    if "command" in entry:
        command = [_string(entry["command"], f"command of {where}")]
        command += [_string(arg, f"args of {where}") for arg in _list(entry.get("args", []), where)]
        env = _strings(entry.get("env", {}), f"env of {where}")
        cwd = entry.get("cwd")
        inner = resolve(
            None,
            command=command,
            env=env,
            cwd=None if cwd is None else _string(cwd, f"cwd of {where}"),
            environ=environ,
            inherit_tmpdir=inherit_tmpdir,
        )
    elif "url" in entry:
        url = _string(entry["url"], f"url of {where}")
        headers = _strings(entry.get("headers", {}), f"headers of {where}")
        inner = resolve(url, headers=headers, environ=environ, inherit_tmpdir=inherit_tmpdir)
    else:
        raise TargetError(f"{where} has neither 'command' nor 'url'")
    return Target(
        label=f"{server_name} ({inner.label})",
        kind=inner.kind,
        positional=None,
        options=("--config", str(path.absolute()), "--server", server_name)
        + (("--inherit-tmpdir",) if inherit_tmpdir else ()),
        command=(),
        _connect=inner._connect,
        _refusal=inner._refusal,
    )


def _stdio(
    command: list[str],
    env: dict[str, str],
    cwd: str | Path | None,
    environ: Mapping[str, str],
    inherit_tmpdir: bool,
) -> Target:
    for key in env:
        if not _ENV_NAME.fullmatch(key):
            raise TargetError(f"--env takes KEY=VALUE with KEY a variable name, got {key!r}")
    shown = _masked_command(command)
    options: list[str] = []
    for key, value in env.items():
        options += ["--env", f"{key}={_env_shown(key, value)}"]
    if cwd is not None:
        # Absolute: a repro line pasted in another folder still runs the server where it ran.
        cwd = os.path.abspath(cwd)
        options += ["--cwd", cwd]
    if inherit_tmpdir:
        options.append("--inherit-tmpdir")

    def connect(errlog: TextIO | None, refusal: _Refusal) -> mcp.Client:
        expanded = [expand(word, environ, where="the server command") for word in command]
        values = {key: expand(value, environ, where=f"--env {key}") for key, value in env.items()}
        return littleghost.mcp.client(
            expanded,
            env=values or None,
            cwd=cwd,
            stderr=_print_to_stderr if errlog is None else errlog,
            secrets=[
                *_referenced([*command, *env.values()], environ),
                *(value for key, value in values.items() if _looks_secret(key, value)),
            ],
            inherit_tmpdir=inherit_tmpdir,
        )

    label = " ".join(shlex.quote(word) for word in shown)
    return Target(label, "stdio", None, tuple(options), tuple(shown), connect)


def _print_to_stderr(line: str) -> None:
    """Our stderr, a line at a time: the client redacts each (a file would get raw bytes)."""
    print(line, file=sys.stderr)


def _env_shown(key: str, value: str) -> str:
    """An env value as a command line shows it: itself, unless it may be a secret.

    A value written with ``${VAR}`` is shown as written; one whose name or
    text looks like a credential becomes ``${KEY}``. Any other value (a
    ``HOME``, a ``PATH``) is shown, so that a pasted command runs the server
    as it ran, not against the user's own ``HOME``.
    """
    if _REFERENCE.search(value) or not _looks_secret(key, value):
        return value
    return f"${{{key}}}"


def _looks_secret(key: str, value: str) -> bool:
    return littleghost.mcp._secret_env(key, value) or find_credential(value) is not None


def _masked_command(command: list[str]) -> list[str]:
    """``env [-i] K=V cmd``: each ``V`` that may be a secret becomes ``${K}``."""
    if Path(command[0]).name != "env":
        return list(command)
    shown = [command[0]]
    for index, word in enumerate(command[1:], start=1):
        key, equals, value = word.partition("=")
        if equals and _ENV_NAME.fullmatch(key):
            shown.append(f"{key}={_env_shown(key, value)}")
        elif word.startswith("-"):
            shown.append(word)  # env's own options (-i, -u NAME) come before the command
        else:
            return shown + command[index:]
    return shown


def _http(url: str, headers: dict[str, str], environ: Mapping[str, str]) -> Target:
    parts = urlsplit(url)
    if not parts.hostname:
        raise TargetError(f"{url!r} is not a valid URL")
    if parts.username is not None and any(name.lower() == "authorization" for name in headers):
        # httpx would send the URL's user and password, silently replacing the header.
        raise TargetError(
            "the URL's user:password and an Authorization header both authenticate: give one"
        )
    options: list[str] = []
    for name, value in headers.items():
        if not _HEADER_NAME.fullmatch(name):
            raise TargetError(f"{name!r} is not a valid header name")
        # A value that names its secrets as ${VAR} is safe to show; any other is replaced.
        shown = value if _REFERENCE.search(value) else f"${{{_variable_for(name)}}}"
        options += ["--header", f"{name}: {shown}"]
    # The label drops the userinfo and query, where URLs carry credentials.
    host = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    label = urlunsplit((parts.scheme, host, parts.path, "", ""))

    def connect(errlog: TextIO | None, refusal: _Refusal) -> mcp.Client:
        expanded = {name: _header_value(name, value, environ) for name, value in headers.items()}
        endpoint = expand(url, environ, where="the URL")

        def note(response: Any) -> None:
            if response.status_code in REFUSED_STATUSES:
                refusal.status = response.status_code

        return littleghost.mcp.client(
            endpoint,
            headers=expanded,
            on_response=note,
            secrets=_referenced([url, *headers.values()], environ),
        )

    return Target(label, "http", _url_shown(url), tuple(options), (), connect)


def _header_value(name: str, value: str, environ: Mapping[str, str]) -> str:
    """``value`` expanded; a line break or control character in it (often the end of a
    pasted token) is an error that names the header, never the value: it is a secret."""
    expanded = expand(value, environ, where=f"--header {name}")
    if _CONTROL.search(expanded):
        raise TargetError(
            f"--header {name}: its value (after ${{VAR}} expansion) holds a line break "
            "or another control character"
        )
    return expanded


def _url_shown(url: str) -> str:
    """``url`` with its password and query values as ``${VAR}`` references (they are secrets)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None and not _REFERENCE.search(parts.password):
        user_info, _, host = netloc.rpartition("@")
        user = user_info.partition(":")[0]
        netloc = f"{user}:${{URL_PASSWORD}}@{host}"
    query = "&".join(
        f"{name}={value if not value or _REFERENCE.search(value) else _url_variable(name)}"
        for name, _, value in (pair.partition("=") for pair in parts.query.split("&") if pair)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _url_variable(name: str) -> str:
    return f"${{URL_{_variable_for(name)}}}"


def _variable_for(header: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", header).upper()


def _in_process(target: str) -> Target:
    module_name, _, attribute = target.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: modules in the working directory
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise TargetError(f"cannot import {module_name!r}: {error}") from None
    except Exception as error:
        raise TargetError(
            f"importing {module_name!r} failed: {type(error).__name__}: {error}"
        ) from None
    value: object = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise TargetError(f"{module_name!r} has no attribute {attribute!r}")
        value = getattr(value, part)
    if isinstance(value, FakeMCPServer):
        fake = value
        return Target(target, "module", target, (), (), lambda errlog, refusal: fake.client())
    if isinstance(value, MCPServer | Server):
        server = value
        return Target(
            target, "module", target, (), (), lambda errlog, refusal: littleghost.mcp.client(server)
        )
    raise TargetError(
        f"{target} is a {type(value).__name__}, not an MCP server "
        "(an SDK MCPServer or Server, or a FakeMCPServer)"
    )


def read_json(path: Path, max_bytes: int, label: str) -> Any:
    """The JSON value in the file at ``path``, at most ``max_bytes`` long; ``label`` names
    the file in the ``TargetError`` that says why it cannot be used."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO with no writer blocks forever
            raise TargetError(f"{label} is not a regular file")
        with path.open("rb") as file:
            raw = file.read(max_bytes + 1)
    except OSError as error:
        raise TargetError(f"cannot read {label}: {error.strerror or error}") from None
    if len(raw) > max_bytes:
        raise TargetError(f"{label} is larger than {max_bytes} bytes")
    try:
        return json.loads(raw)
    except RecursionError:
        raise TargetError(f"{label} is nested too deeply to parse") from None
    except ValueError as error:
        raise TargetError(f"{label} is not valid JSON: {error}") from None


def _config_entry(path: Path, server_name: str) -> dict[str, Any]:
    config = read_json(path, MAX_CONFIG_BYTES, str(path))
    servers = config.get("mcpServers") if isinstance(config, dict) else None
    if not isinstance(servers, dict):
        raise TargetError(f"{path} has no 'mcpServers' object")
    entry = servers.get(server_name)
    if entry is None:
        known = ", ".join(sorted(map(str, servers))) or "none"
        raise TargetError(f"{path} has no server {server_name!r} (servers: {known})")
    if not isinstance(entry, dict):
        raise TargetError(f"server {server_name!r} in {path} is not an object")
    return entry


def _string(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise TargetError(f"{where} must be a string")
    return value


def _list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise TargetError(f"args of {where} must be a list of strings")
    return value


def _strings(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise TargetError(f"{where} must be an object of strings")
    return {str(key): item for key, item in value.items()}
