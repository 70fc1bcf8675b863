"""littleghost: validated, safe tools for AI agents.

Tools validate the model's input against a JSON Schema, keep unexpected
failure messages away from the model, and let cancellation, deadlines and
cleanup failures propagate.
"""

# General layout (one privacy convention, as in httpx and Hypothesis):
#
# - A package's ``__init__`` is its API and its ``__all__`` lists it: import
#   from ``littleghost``, ``littleghost.mcp`` and ``littleghost.models``.
#   ``littleghost.instrumentation`` is the one public module: a namespace of
#   its own (``lg.instrumentation.subscribe``).
# - Every other module is private (``_tool.py``, ``mcp/_toolset.py``, ...);
#   ``_validation/`` is a private package whose ``__init__`` is what the rest
#   of littleghost and the testing kit use. A private module's ``__all__`` is
#   its internal API for its own package and the packages inside it.
# - Any other package reaches a private module only through a package's
#   ``__init__``: what the testing kit needs of the core is at the end of this
#   file (and of ``mcp/__init__.py``), under names with a leading underscore
#   that are not API. Other names with a leading underscore never leave their
#   module. tests/test_private_imports.py holds the rule.
#
# littleghost/
#   _tool, _function_tool, _injection   Tool, @lg.tool, the RunContext parameter rule
#   _binding, _context, _cancellation   what a tool instance runs with
#   _registry, _run, _agent, _model     calling tools: registry, run, agent loop, model types
#   _results, _errors                   what calls return and raise
#   _schema/, _validation/, _backtracking, _frozen
#                                       JSON Schema: compile once, check input, freeze
#   _closing, _workers                  closing owned resources, worker threads
#   instrumentation                     events and spans
#   mcp/                                MCP toolsets on the official SDK
#   models/                             real model providers and the test guard

from . import instrumentation
from ._agent import Agent, RunWatcher, ToolCallLimitError, watch_runs
from ._binding import Binding
from ._cancellation import CancellationToken
from ._context import RunContext
from ._errors import (
    CancelledError,
    CleanupError,
    ConfigurationError,
    DeadlineExceededError,
    LittleGhostError,
    ProtocolError,
    ProviderError,
    ToolError,
)
from ._function_tool import tool
from ._model import Message, Model, ModelRequest, ModelResponse, ToolCall
from ._registry import ToolRegistry
from ._results import Artifact, ExecutionResult, Result
from ._run import Invocation, Run
from ._tool import Tool

__all__ = [
    "Agent",
    "Artifact",
    "Binding",
    "CancellationToken",
    "CancelledError",
    "CleanupError",
    "ConfigurationError",
    "DeadlineExceededError",
    "ExecutionResult",
    "Invocation",
    "LittleGhostError",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ProtocolError",
    "ProviderError",
    "Result",
    "Run",
    "RunContext",
    "RunWatcher",
    "Tool",
    "ToolCall",
    "ToolCallLimitError",
    "ToolError",
    "ToolRegistry",
    "instrumentation",
    "tool",
    "watch_runs",
]

# Not API: what the testing kit shares with the core, through this file (the
# layout note in littleghost_testing/__init__.py says why).
from ._registry import TOOL_NAME as _TOOL_NAME  # noqa: F401
from ._results import UNSERIALIZABLE as _UNSERIALIZABLE  # noqa: F401
from ._results import render_content as _render_content  # noqa: F401

# Exceptions name the package they are imported from (in tracebacks, events and
# pickles): ``littleghost.ToolError``, not the private module that defines it.
for _name in __all__:
    _value = globals()[_name]
    if isinstance(_value, type) and issubclass(_value, BaseException):
        _value.__module__ = __name__
