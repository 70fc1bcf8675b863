"""``littleghost call``, ``read`` and ``get``: one request, sent exactly as given, its raw answer.

``call TARGET TOOL 'JSON'`` reproduces a tool's finding of ``check``, ``read
TARGET URI`` a resource's or template's, ``get TARGET PROMPT ['JSON']`` a
prompt's: the input is not validated (an invalid input must reach the server
as it did then), and the answer is the server's JSON as received, not
littleghost's reading of it. Running ``call`` is the user's consent to the
call, whatever the tool's annotations say.

An error answer comes with what the server said about it: the records an
in-process server (``module:attribute``) logged during the request, its
traceback included, or the last lines of a stdio server's stderr and where
the whole log is.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import traceback
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import mcp
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict

import littleghost as lg
from littleghost.mcp import JSONRPCError, translate_error

from .._targets import Target, TargetError
from ._connect import ServerLog, connection_failure, show_tail, target_of
from ._stdout import reader_may_leave
from ._text import json_text, visible

__all__ = ["EXIT_ANSWERED", "EXIT_ERROR", "EXIT_OK", "call", "get", "read"]

EXIT_OK, EXIT_ANSWERED, EXIT_ERROR = 0, 1, 2
MAX_SERVER_LOG_LINES = 40
"""Lines of what an in-process server logged during the request shown after an error answer
(the last ones)."""


class CallUsageError(Exception):
    """The words after the command do not name what to send."""


@dataclass(frozen=True)
class _Request:
    """One request to send: its name (a tool, URI or prompt) and how to send it raw."""

    name: str
    send: Callable[[mcp.Client], Awaitable[dict[str, Any]]]
    failed: Callable[[dict[str, Any]], bool]


def call(args: argparse.Namespace, command: list[str]) -> int:
    """``call [TARGET] TOOL INPUT``: exit 0 success, 1 an error answer (``isError`` too)."""

    def request(words: list[str], usage: str) -> _Request:
        tool, text = words
        arguments = _json_object(text, usage, tool, "INPUT", "MCP tool arguments are one")
        params = types.CallToolRequestParams(name=tool, arguments=arguments)
        return _Request(tool, _raw(types.CallToolRequest(params=params)), _is_error)

    return _one_request(args, command, ("TOOL", "INPUT"), 0, request)


def read(args: argparse.Namespace, command: list[str]) -> int:
    """``read [TARGET] URI``: exit 0 contents, 1 an error answer."""

    def request(words: list[str], usage: str) -> _Request:
        [uri] = words
        params = types.ReadResourceRequestParams(uri=uri)
        return _Request(uri, _raw(types.ReadResourceRequest(params=params)), _is_error)

    return _one_request(args, command, ("URI",), 0, request)


def get(args: argparse.Namespace, command: list[str]) -> int:
    """``get [TARGET] PROMPT [ARGUMENTS]``: exit 0 messages, 1 an error answer."""

    def request(words: list[str], usage: str) -> _Request:
        name, *text = words
        arguments = (
            _json_object(text[0], usage, name, "ARGUMENTS", "MCP prompt arguments are one")
            if text
            else {}
        )
        if any(not isinstance(value, str) for value in arguments.values()):
            raise CallUsageError("ARGUMENTS must map names to strings (MCP types them so)")
        params = types.GetPromptRequestParams(name=name, arguments=arguments or None)
        return _Request(name, _raw(types.GetPromptRequest(params=params)), _is_error)

    return _one_request(args, command, ("PROMPT", "ARGUMENTS"), 1, request)


def _one_request(
    args: argparse.Namespace,
    command: list[str],
    names: tuple[str, ...],
    optional: int,
    request_of: Callable[[list[str], str], _Request],
) -> int:
    """Parse the words, connect, send once, print the answer and what the server logged."""
    try:
        target, words, usage = _words(args, command, names, optional)
        request = request_of(words, usage)
        resolved = target_of(args, command, target)
    except (CallUsageError, TargetError) as error:
        return _error(str(error))
    log = ServerLog(args.server_log, resolved.redact) if resolved.kind == "stdio" else None
    logged = _LoggedRecords()
    try:
        with logged.capturing(in_process=resolved.kind == "module"):
            code, answer = anyio.run(_send_once, resolved, request, args.timeout, log)
    except TargetError as error:
        return _error(str(error))
    finally:
        if log is not None:
            log.close()
    if isinstance(answer, str):
        _write_server_log(log, logged, with_path=False)
        return _error(answer)
    with reader_may_leave():
        print(json_text(answer, indent=2))
        if code == EXIT_ANSWERED:
            _write_server_log(log, logged, with_path=True)
    return code


def _words(
    args: argparse.Namespace, command: list[str], names: tuple[str, ...], optional: int
) -> tuple[str | None, list[str], str]:
    """The target word (if given there) and the others; ``names`` name them, the last
    ``optional`` of them may be left out."""
    words: list[str] = args.words
    named_elsewhere = bool(command) or args.config is not None
    required = len(names) - optional
    shown = [name if n < required else f"[{name}]" for n, name in enumerate(names)]
    usage = f"{args.command} takes {' '.join(shown if named_elsewhere else ['TARGET', *shown])}"
    given = len(words) - (0 if named_elsewhere else 1)
    if not required <= given <= len(names):
        raise CallUsageError(f"{usage}, got {len(words)} words")
    if named_elsewhere:
        return None, list(words), usage
    return words[0], list(words[1:]), usage


def _json_object(text: str, usage: str, before: str, what: str, why: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except RecursionError:
        raise CallUsageError(f"{what} is nested too deeply to parse") from None
    except ValueError as error:
        if before.lstrip().startswith("{"):  # `call TOOL '{...}' URL`: the target put last
            raise CallUsageError(f"{what} is not JSON: {usage}, in that order") from None
        raise CallUsageError(f"{what} is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise CallUsageError(f"{what} must be a JSON object ({why})")
    return value


async def _send_once(
    target: Target, request: _Request, seconds: float, log: ServerLog | None
) -> tuple[int, dict[str, Any] | str]:
    """The exit status and the raw answer, or a one-line failure.

    One cancel scope bounds connecting, then (its deadline moved) the request:
    the client's task groups must live inside it.
    """
    client = target.client(errlog=log.file() if log is not None else None)
    connected = False
    answer: dict[str, Any] = {}
    scope = anyio.CancelScope(deadline=anyio.current_time() + seconds)
    name = request.name
    try:
        with scope:
            async with client:
                connected = True
                scope.deadline = anyio.current_time() + seconds
                answer = await request.send(client)
    except Exception as error:
        failure = translate_error(error)
        if connected and isinstance(failure, lg.ProtocolError):
            return EXIT_ERROR, f"{name}: the answer breaks the protocol: {failure}"
        if connected and target.refused_status is None:
            return EXIT_ERROR, f"{name}: the connection failed during the request: {failure}"
        return EXIT_ERROR, connection_failure(target, failure, seconds)
    if scope.cancelled_caught:
        if connected:
            return EXIT_ERROR, f"{name} gave no answer within {seconds:g} s (--timeout)"
        return EXIT_ERROR, connection_failure(target, TimeoutError(), seconds)
    return (EXIT_ANSWERED if request.failed(answer) else EXIT_OK), answer


class _Raw(BaseModel):
    """Any JSON object, kept whole."""

    model_config = ConfigDict(extra="allow")


def _raw(request: Any) -> Callable[[mcp.Client], Awaitable[dict[str, Any]]]:
    """``request`` sent as is, its answer raw JSON (the SDK's result checks would hide what
    came back): ``{"result": ...}`` or, for the server's JSON-RPC error, ``{"error": ...}``."""

    async def send(client: mcp.Client) -> dict[str, Any]:
        try:
            result = await client.session.send_request(request, _Raw)
        except MCPError as error:
            if not isinstance(translate_error(error), JSONRPCError):
                raise  # a transport failure the SDK reports as a JSON-RPC error
            return {"error": error.error.model_dump(mode="json", exclude_none=True)}
        return {"result": result.model_dump(mode="json")}

    return send


def _is_error(answer: dict[str, Any]) -> bool:
    return "error" in answer or answer["result"].get("isError") is True


class _LoggedRecords(logging.Handler):
    """What an in-process server logged during the request: each record's message and, for
    an exception, the traceback of its first cause (the server's own code, not the SDK's
    wrappers around it)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: deque[str] = deque(maxlen=MAX_SERVER_LOG_LINES)

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("littleghost"):
            return  # our own, not the server's
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            cause = _first_cause(record.exc_info[1])
            text += "\n" + "".join(traceback.format_exception(cause, chain=False))
        self.lines.extend(line for line in text.splitlines() if line.strip())

    @contextlib.contextmanager
    def capturing(self, *, in_process: bool) -> Iterator[None]:
        """Listen on the root logger and on the SDK's (which ``main`` keeps from the root)."""
        if not in_process:
            yield
            return
        loggers = [logging.getLogger(), logging.getLogger("mcp")]
        for logger in loggers:
            logger.addHandler(self)
        try:
            yield
        finally:
            for logger in loggers:
                logger.removeHandler(self)


def _write_server_log(log: ServerLog | None, logged: _LoggedRecords, *, with_path: bool) -> None:
    """The server's last log lines on stderr: a stdio server's stderr (and where the whole
    log is), or what an in-process server logged."""
    if log is not None:
        if with_path and log.tail():
            print(f"last lines of the server's stderr ({log.path}):", file=sys.stderr)
        show_tail(log)
        return
    if logged.lines:
        print("the server logged:", file=sys.stderr)
    for line in logged.lines:
        print(f"  server log: {visible(line)}", file=sys.stderr)


def _first_cause(error: BaseException) -> BaseException:
    """The exception that started the chain ``error`` ends (``raise ... from``, or during)."""
    seen = {id(error)}
    while True:
        cause = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
        if cause is None or id(cause) in seen:
            return error
        seen.add(id(cause))
        error = cause


def _error(message: str) -> int:
    print(f"littleghost: error: {visible(message)}", file=sys.stderr)
    return EXIT_ERROR
