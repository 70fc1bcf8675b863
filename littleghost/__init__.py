"""littleghost: validated, safe tools for AI agents.

Tools validate the model's input against a JSON Schema, keep unexpected
failure messages away from the model, and let cancellation, deadlines and
cleanup failures propagate.
"""

from . import instrumentation
from .agent import Agent, ToolCallLimitError
from .binding import Binding
from .cancellation import CancellationToken
from .context import RunContext
from .errors import (
    CancelledError,
    CleanupError,
    ConfigurationError,
    DeadlineExceededError,
    LittleGhostError,
    ProtocolError,
    ProviderError,
    ToolError,
)
from .function_tool import tool
from .model import Message, Model, ModelRequest, ModelResponse, ToolCall
from .registry import ToolRegistry
from .results import Artifact, ExecutionResult, Result
from .run import Invocation, Run
from .tool import Tool

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
    "Tool",
    "ToolCall",
    "ToolCallLimitError",
    "ToolError",
    "ToolRegistry",
    "instrumentation",
    "tool",
]
