"""What ``littleghost check`` connects to: a URL, a stdio command, or an in-process server."""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import mcp
from mcp.client.stdio import StdioServerParameters
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from ..fake_server import FakeMCPServer

__all__ = ["Target", "TargetError", "resolve_target"]

_IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


class TargetError(Exception):
    """The target cannot be used; the message is the one line the CLI prints."""


@dataclass(frozen=True, slots=True)
class Target:
    """A server to check: how to name it, and how to get a fresh unconnected client."""

    label: str
    client: Callable[[], mcp.Client]


def resolve_target(target: str | None, command: Sequence[str]) -> Target:
    if command and target is not None:
        raise TargetError("give either TARGET or -- COMMAND ARGS, not both")
    if command:
        parameters = StdioServerParameters(command=command[0], args=list(command[1:]))
        return Target(" ".join(command), lambda: mcp.Client(parameters))
    if target is None:
        raise TargetError("give a TARGET (URL or module:attribute) or -- COMMAND ARGS")
    if target.startswith(("http://", "https://")):
        if not urlsplit(target).hostname:
            raise TargetError(f"{target!r} is not a valid URL")
        return Target(target, lambda: mcp.Client(target))
    if _IMPORT_PATH.fullmatch(target):
        return _in_process(target)
    raise TargetError(
        f"{target!r} is not a URL (http://, https://) or module:attribute; "
        "for a stdio server use: littleghost check -- COMMAND ARGS"
    )


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
        return Target(target, value.client)
    if isinstance(value, MCPServer | Server):
        server = value
        return Target(target, lambda: mcp.Client(server))
    raise TargetError(
        f"{target} is a {type(value).__name__}, not an MCP server "
        "(an SDK MCPServer or Server, or a FakeMCPServer)"
    )
