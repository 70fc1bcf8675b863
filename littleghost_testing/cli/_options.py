"""The command line of ``littleghost``: its parser, and defaults from ``pyproject.toml``.

``[tool.littleghost.check]`` in the current directory's ``pyproject.toml``
holds defaults for ``check`` keyed by the long option names
(``exclude = ["delete_*"]``, ``allow-side-effects = true``); ``call``, ``read`` and ``get`` read
its connection options and ``timeout`` from there too. The command line wins:
a repeatable option given there replaces the file's list.
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from littleghost.mcp import _PROTOCOLS

from .._identity import CLIENT_INFO
from ..providers import DEFAULT_PROVIDERS, PROVIDERS

__all__ = ["UsageError", "parse"]

PYPROJECT = "pyproject.toml"
DEFAULT_EXAMPLES = 20
DEFAULT_TIMEOUT = 10.0
DEFAULT_SHRINK_BUDGET = 10.0
DEFAULT_LOCK = "littleghost.lock"
# Options of `check` that `call`, `read` and `get` share: what to connect to, how long to wait.
_CALL_KEYS = (
    "header",
    "env",
    "cwd",
    "inherit-tmpdir",
    "config",
    "server",
    "server-log",
    "timeout",
    "protocol",
)


class UsageError(Exception):
    """A bad command line or ``pyproject.toml`` table; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


class _Repeatable(argparse.Action):
    """``append``, except that the first use replaces a default list (from pyproject.toml)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        current = getattr(namespace, self.dest, None)
        items = [] if current is None or current is self.default else list(current)
        setattr(namespace, self.dest, [*items, values])


def _number(
    kind: Callable[[str], Any], expected: str, *, zero: bool = False
) -> Callable[[str], Any]:
    """An argparse type: ``kind(text)`` if it is a finite number above zero (or zero)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = -1
        in_range = value >= 0 if zero else value > 0
        if not in_range or not value < float("inf"):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


positive = _number(int, "a positive integer")
seconds = _number(float, "a positive number of seconds")
seconds_or_zero = _number(float, "a number of seconds, 0 or more", zero=True)


def _tool_timeout(text: str) -> tuple[str, float]:
    name, equals, value = text.rpartition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=SECONDS, got {text!r}")
    return name, seconds(value)


def _env_pair(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError("expected KEY=VALUE")  # never echo: VALUE is a secret
    return key, value


def _connection(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("connecting")
    group.add_argument(
        "--header",
        action=_Repeatable,
        metavar="'NAME: VALUE'",
        help="an HTTP header (repeatable); ${VAR} is expanded from the environment",
    )
    group.add_argument(
        "--env",
        action=_Repeatable,
        type=_env_pair,
        metavar="KEY=VALUE",
        help="an environment variable for a stdio server (repeatable); ${VAR} is expanded",
    )
    group.add_argument("--cwd", metavar="DIR", help="the stdio server's working directory")
    group.add_argument(
        "--inherit-tmpdir",
        action="store_true",
        help="give a stdio server our TMPDIR (default: a private one, removed after the run)",
    )
    group.add_argument(
        "--config", type=Path, metavar="FILE", help="an MCP client's mcpServers JSON file"
    )
    group.add_argument("--server", metavar="NAME", help="the server of --config to connect to")
    group.add_argument(
        "--server-log",
        type=Path,
        metavar="PATH",
        help="where a stdio server's stderr goes (default: a new file in the temp folder)",
    )
    group.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"seconds per call and for connecting (default {DEFAULT_TIMEOUT:g})",
    )
    group.add_argument(
        "--protocol",
        choices=_PROTOCOLS,
        default="auto",
        help="auto: 2026-07-28 stateless when offered, the initialize handshake when the server "
        "wants it; stateless: 2026-07-28 only; legacy: the initialize handshake (default auto)",
    )


def _check(commands: Any) -> argparse.ArgumentParser:
    check = commands.add_parser(
        "check",
        help="fuzz an MCP server's tools and report contract violations",
        description="Call the tools of an MCP server with inputs generated from their schemas "
        "and report contract violations. Only tools annotated readOnlyHint: true are called "
        "unless --allow-side-effects is given. TARGET is a Streamable HTTP URL or "
        "module:attribute; for a stdio server, put the command after --.",
        epilog="Point it at a disposable instance of the server (a sandbox folder, a test "
        "database), never at one holding data you care about. See docs/cli.md.",
    )
    check.add_argument("target", nargs="?", metavar="TARGET")
    _connection(check)
    choose = check.add_argument_group("choosing tools")
    choose.add_argument(
        "--allow-side-effects",
        action="store_true",
        help="also call tools not annotated readOnlyHint: true (they may change state)",
    )
    choose.add_argument(
        "--include", action=_Repeatable, metavar="GLOB", help="only tools matching (repeatable)"
    )
    choose.add_argument(
        "--exclude", action=_Repeatable, metavar="GLOB", help="never tools matching (repeatable)"
    )
    choose.add_argument(
        "--no-resources",
        action="store_true",
        help="do not read resources and resource templates (read by default: reads change nothing)",
    )
    choose.add_argument(
        "--no-prompts",
        action="store_true",
        help="do not get prompts (got by default: prompts/get changes nothing)",
    )
    choose.add_argument(
        "--dry-run", action="store_true", help="connect and print the plan; call nothing"
    )
    inputs = check.add_argument_group("inputs and verdicts")
    inputs.add_argument(
        "--examples",
        type=positive,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"generated inputs per tool, valid and as many invalid (default {DEFAULT_EXAMPLES})",
    )
    inputs.add_argument("--seed", type=int, help="seed (default: the same inputs every run)")
    inputs.add_argument(
        "--inputs", type=Path, metavar="FILE", help="JSON: tool name -> list of valid inputs"
    )
    inputs.add_argument(
        "--strict", action="store_true", help="an ignored unknown property is a violation"
    )
    inputs.add_argument(
        "--hypothesis-database",
        type=Path,
        metavar="PATH",
        help="keep Hypothesis's example database there (default: none)",
    )
    time = check.add_argument_group("time")
    time.add_argument(
        "--tool-timeout",
        action=_Repeatable,
        type=_tool_timeout,
        metavar="NAME=SECONDS",
        help="seconds per call of one tool (repeatable)",
    )
    time.add_argument(
        "--max-time", type=seconds, metavar="SECONDS", help="stop after this long; report what ran"
    )
    time.add_argument("--max-failures", type=positive, metavar="N", help="stop after N violations")
    time.add_argument(
        "--shrink-budget",
        type=seconds_or_zero,
        default=DEFAULT_SHRINK_BUDGET,
        metavar="SECONDS",
        help=f"time to shrink the findings of one tool (default {DEFAULT_SHRINK_BUDGET:g})",
    )
    time.add_argument(
        "--workers", type=positive, default=1, metavar="N", help="check N tools at a time"
    )
    out = check.add_argument_group("output")
    out.add_argument(
        "--lock",
        type=Path,
        metavar="FILE",
        help="also compare the catalog with a lock (littleghost lock); drift fails the run",
    )
    out.add_argument(
        "--providers",
        type=_providers,
        metavar="LIST",
        help="also warn about schema features these model providers reject "
        f"(comma-separated: {', '.join(PROVIDERS)})",
    )
    out.add_argument("--json", type=Path, metavar="PATH", help="write a JSON report")
    out.add_argument("--junit-xml", type=Path, metavar="PATH", help="write a JUnit XML report")
    out.add_argument("-q", "--quiet", action="store_true", help="no progress, only the summary")
    out.add_argument(
        "-v", "--verbose", action="store_true", help="also print the plan first, and every note"
    )
    return check


def _call(commands: Any) -> argparse.ArgumentParser:
    call = commands.add_parser(
        "call",
        help="call one tool once and print its raw result as JSON",
        description="Call one tool of an MCP server once with INPUT exactly as given (no "
        "validation) and print the raw result as JSON. Running it is your consent to that "
        "call, whatever the tool's annotations. Exit 0 success, 1 an error answer, 2 a usage "
        "or connection error, 130 interrupted (Ctrl-C cancels the call).",
        epilog="example: littleghost call https://mcp.example.com/mcp lookup '{\"id\": 1}'",
    )
    call.add_argument("words", nargs="+", metavar="[TARGET] TOOL INPUT")
    _connection(call)
    return call


def _read(commands: Any) -> argparse.ArgumentParser:
    read = commands.add_parser(
        "read",
        help="read one resource once and print its raw result as JSON",
        description="Read one resource of an MCP server once (resources/read, which changes "
        "nothing by the protocol) and print the raw result as JSON; reproduces a resource's "
        "or template's finding of check. Exit 0 contents, 1 an error answer, 2 a usage or "
        "connection error, 130 interrupted.",
        epilog="example: littleghost read https://mcp.example.com/mcp docs://books/7",
    )
    read.add_argument("words", nargs="+", metavar="[TARGET] URI")
    _connection(read)
    return read


def _get(commands: Any) -> argparse.ArgumentParser:
    get = commands.add_parser(
        "get",
        help="get one prompt once and print its raw result as JSON",
        description="Get one prompt of an MCP server once (prompts/get, which changes nothing "
        "by the protocol) with ARGUMENTS exactly as given (a JSON object of strings, default "
        "none) and print the raw result as JSON; reproduces a prompt's finding of check. "
        "Exit 0 messages, 1 an error answer, 2 a usage or connection error, 130 interrupted.",
        epilog='example: littleghost get https://mcp.example.com/mcp review \'{"chapter": "2"}\'',
    )
    get.add_argument("words", nargs="+", metavar="[TARGET] PROMPT [ARGUMENTS]")
    _connection(get)
    return get


def _providers(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in PROVIDERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"expected a comma-separated list of {', '.join(PROVIDERS)}, got {text!r}"
        )
    return names


_Option = tuple[tuple[str, ...], dict[str, Any]]
"""An option of a catalog command: its flags, and ``add_argument``'s keywords."""


def _catalog_command(
    commands: Any, name: str, help: str, description: str, *options: _Option
) -> argparse.ArgumentParser:
    """``lock``, ``diff`` and ``lint``: a target, their own ``options``, the connection's."""
    command = commands.add_parser(name, help=help, description=description)
    command.add_argument("target", nargs="?", metavar="TARGET")
    for flags, settings in options:
        command.add_argument(*flags, **settings)
    _connection(command)
    return command


_LOCK_FILE: dict[str, Any] = {
    "type": Path,
    "default": Path(DEFAULT_LOCK),
    "metavar": "FILE",
    "help": f"the lock file (default {DEFAULT_LOCK})",
}


def _lock(commands: Any) -> argparse.ArgumentParser:
    return _catalog_command(
        commands,
        "lock",
        "pin an MCP server's catalog to a lock file",
        "Connect, list the server's tools, resources, resource templates and prompts and write "
        "their names, descriptions, schemas, annotations, arguments and digests to a lock file "
        "(JSON, stable order). Calls no tool and reads nothing.",
        (("-o", "--output"), _LOCK_FILE),
        (("--update",), {"action": "store_true", "help": "rewrite an existing lock file"}),
    )


def _diff(commands: Any) -> argparse.ArgumentParser:
    return _catalog_command(
        commands,
        "diff",
        "compare an MCP server's catalog with its lock file",
        "Connect, list the server's catalog and classify every change since the "
        "lock: breaking, suspicious or compatible. Exit 0 nothing or only compatible changes, "
        "1 breaking or suspicious ones, 2 a usage or connection error. Calls no tool.",
        (("--lock",), _LOCK_FILE),
        (("--json",), {"type": Path, "metavar": "PATH", "help": "write a JSON report"}),
        (("--junit-xml",), {"type": Path, "metavar": "PATH", "help": "write a JUnit XML report"}),
    )


def _lint(commands: Any) -> argparse.ArgumentParser:
    return _catalog_command(
        commands,
        "lint",
        "warn about tool schemas that model providers reject",
        "Connect, list the server's tools and warn, per tool and provider, about "
        "schema features that provider's tool calling rejects or ignores. Calls no tool. "
        "Exit 0 (warnings only) unless --strict.",
        (
            ("--providers",),
            {
                "type": _providers,
                "default": DEFAULT_PROVIDERS,
                "metavar": "LIST",
                "help": f"comma-separated, of {', '.join(PROVIDERS)} "
                f"(default {','.join(DEFAULT_PROVIDERS)})",
            },
        ),
        (("--strict",), {"action": "store_true", "help": "any warning fails (exit 1)"}),
    )


def parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``littleghost`` parser, and its subcommands' parsers by name."""
    top = _Parser(prog="littleghost", description="Check MCP servers against their own schemas.")
    top.add_argument("--version", action="version", version=f"littleghost {CLIENT_INFO.version}")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    return top, {
        "check": _check(commands),
        "call": _call(commands),
        "read": _read(commands),
        "get": _get(commands),
        "lock": _lock(commands),
        "diff": _diff(commands),
        "lint": _lint(commands),
    }


def parse(argv: Sequence[str], cwd: Path | None = None) -> tuple[argparse.Namespace, list[str]]:
    """The parsed options, and the stdio command after ``--``."""
    arguments, command = list(argv), []
    if "--" in arguments:
        split = arguments.index("--")
        arguments, command = arguments[:split], arguments[split + 1 :]
    top, subparsers = parser()
    first = top.parse_args(arguments)  # --version, --help and unknown commands end here
    subparser = subparsers[first.command]
    defaults = _pyproject_defaults(subparser, first.command, (cwd or Path.cwd()) / PYPROJECT)
    if defaults:
        subparser.set_defaults(**defaults)
        first = top.parse_args(arguments)
    return first, command


def _pyproject_defaults(
    subparser: argparse.ArgumentParser, command: str, path: Path
) -> dict[str, Any]:
    """``[tool.littleghost.check]`` parsed by the same option parsers as the command line."""
    try:
        with path.open("rb") as file:
            table = tomllib.load(file).get("tool", {}).get("littleghost", {}).get("check", {})
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    if not isinstance(table, dict):
        raise UsageError(f"[tool.littleghost.check] in {path} must be a table")
    if command != "check":
        table = {key: value for key, value in table.items() if key in _CALL_KEYS}
    options = {
        option[2:]: action
        for action in subparser._actions
        for option in action.option_strings
        if option.startswith("--") and action.dest != "help"
    }
    words: list[str] = []
    for key, value in table.items():
        action = options.get(key)
        if action is None:
            raise UsageError(f"unknown option {key!r} in [tool.littleghost.check] of {path}")
        words += _words(key, value, action, path)
    sub = _Parser(prog=f"{PYPROJECT} [tool.littleghost.check]", add_help=False)
    for action in set(options.values()):
        sub._add_action(action)  # the subcommand's own option parsers
    try:
        namespace = sub.parse_args(words)
    except UsageError as error:
        raise UsageError(f"[tool.littleghost.check] in {path}: {error}") from None
    given = {options[key].dest for key in table}
    return {dest: value for dest, value in vars(namespace).items() if dest in given}


def _words(key: str, value: object, action: argparse.Action, path: Path) -> list[str]:
    flag = f"--{key}"
    if action.nargs == 0:  # a switch
        if not isinstance(value, bool):
            raise UsageError(f"{key} in [tool.littleghost.check] of {path} must be true or false")
        return [flag] if value else []
    if isinstance(action, _Repeatable):
        values = value if isinstance(value, list) else [value]
        if isinstance(value, dict):  # header, env, tool-timeout as a table
            joiner = ": " if key == "header" else "="
            values = [f"{name}{joiner}{item}" for name, item in value.items()]
        return [word for item in values for word in (flag, str(item))]
    if isinstance(value, list | dict | bool):
        raise UsageError(f"{key} in [tool.littleghost.check] of {path} must be a single value")
    return [flag, str(value)]
