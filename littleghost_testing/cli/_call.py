"""``littleghost call TARGET TOOL 'JSON'``: one call, sent exactly as given, its raw answer printed.

This reproduces a finding of ``check``: the input is not validated (an
invalid input must reach the server as it did then), and the result is the
server's JSON as received, not littleghost's reading of it. Running it is the
user's consent to the call, whatever the tool's annotations say.
"""

from __future__ import annotations

import argparse
import json
import sys
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

__all__ = ["EXIT_ANSWERED", "EXIT_ERROR", "EXIT_OK", "call"]

EXIT_OK, EXIT_ANSWERED, EXIT_ERROR = 0, 1, 2


class CallUsageError(Exception):
    """The words after ``call`` do not name a tool and an input."""


def call(args: argparse.Namespace, command: list[str]) -> int:
    try:
        target, tool, arguments = _words(args, command)
        resolved = target_of(args, command, target)
    except (CallUsageError, TargetError) as error:
        return _error(str(error))
    log = ServerLog(args.server_log, resolved.redact) if resolved.kind == "stdio" else None
    try:
        code, answer = anyio.run(_call_once, resolved, tool, arguments, args.timeout, log)
    except TargetError as error:
        return _error(str(error))
    finally:
        if log is not None:
            log.close()
    if isinstance(answer, str):
        show_tail(log)
        return _error(answer)
    with reader_may_leave():
        print(json_text(answer, indent=2))
    return code


def _words(args: argparse.Namespace, command: list[str]) -> tuple[str | None, str, Any]:
    words: list[str] = args.words
    named_elsewhere = bool(command) or args.config is not None
    expected = 2 if named_elsewhere else 3
    shape = "TOOL INPUT" if named_elsewhere else "TARGET TOOL INPUT"
    if len(words) != expected:
        raise CallUsageError(f"call takes {shape}, got {len(words)} words")
    *target, tool, text = words
    try:
        arguments = json.loads(text)
    except RecursionError:
        raise CallUsageError("INPUT is nested too deeply to parse") from None
    except ValueError as error:
        if tool.lstrip().startswith("{"):  # `call TOOL '{...}' URL`: the target put last
            raise CallUsageError(f"INPUT is not JSON: call takes {shape}, in that order") from None
        raise CallUsageError(f"INPUT is not JSON: {error}") from None
    if not isinstance(arguments, dict):
        raise CallUsageError("INPUT must be a JSON object (MCP tool arguments are one)")
    return (target[0] if target else None), tool, arguments


async def _call_once(
    target: Target, tool: str, arguments: dict[str, Any], seconds: float, log: ServerLog | None
) -> tuple[int, dict[str, Any] | str]:
    """The exit status and the raw answer, or a one-line failure.

    One cancel scope bounds connecting, then (its deadline moved) the call:
    the client's task groups must live inside it.
    """
    client = target.client(errlog=log.file() if log is not None else None)
    connected = False
    answer: dict[str, Any] = {}
    scope = anyio.CancelScope(deadline=anyio.current_time() + seconds)
    try:
        with scope:
            async with client:
                connected = True
                scope.deadline = anyio.current_time() + seconds
                answer = await _send(client, tool, arguments)
    except Exception as error:
        failure = translate_error(error)
        if connected and isinstance(failure, lg.ProtocolError):
            return EXIT_ERROR, f"{tool}: the answer breaks the protocol: {failure}"
        if connected and target.refused_status is None:
            return EXIT_ERROR, f"{tool}: the connection failed during the call: {failure}"
        return EXIT_ERROR, connection_failure(target, failure, seconds)
    if scope.cancelled_caught:
        if connected:
            return EXIT_ERROR, f"{tool} gave no answer within {seconds:g} s (--timeout)"
        return EXIT_ERROR, connection_failure(target, TimeoutError(), seconds)
    failed = "error" in answer or answer["result"].get("isError") is True
    return (EXIT_ANSWERED if failed else EXIT_OK), answer


class _Raw(BaseModel):
    """Any JSON object, kept whole."""

    model_config = ConfigDict(extra="allow")


async def _send(client: mcp.Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``tools/call`` as raw JSON (the SDK's own result checks would hide what came back).

    ``{"result": ...}`` or, for the server's JSON-RPC error, ``{"error": ...}``.
    """
    params = types.CallToolRequestParams(name=tool, arguments=arguments)
    try:
        result = await client.session.send_request(types.CallToolRequest(params=params), _Raw)
    except MCPError as error:
        if not isinstance(translate_error(error), JSONRPCError):
            raise  # a transport failure the SDK reports as a JSON-RPC error
        return {"error": error.error.model_dump(mode="json", exclude_none=True)}
    return {"result": result.model_dump(mode="json")}


def _error(message: str) -> int:
    print(f"littleghost: error: {visible(message)}", file=sys.stderr)
    return EXIT_ERROR
