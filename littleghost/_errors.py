"""The error hierarchy.

Ordinary failures derive from ``LittleGhostError`` (an ``Exception``). Control
flow -- cancellation and deadlines -- derives from ``BaseException`` so that an
``except Exception`` inside tool code cannot swallow it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CancelledError",
    "CleanupError",
    "ConfigurationError",
    "DeadlineExceededError",
    "LittleGhostError",
    "ProtocolError",
    "ProviderError",
    "ToolError",
]


class LittleGhostError(Exception):
    """Base class of every ordinary littleghost failure."""


class ConfigurationError(LittleGhostError):
    """The application declared something invalid (a schema, a name, an entry)."""


class ProviderError(LittleGhostError):
    """A remote provider (an MCP server, a model) failed or could not be reached."""


class ProtocolError(ProviderError):
    """A provider sent data that is malformed, oversized or breaks the protocol."""


class ToolError(LittleGhostError):
    """A failure whose message is safe to show to the model."""


class CleanupError(LittleGhostError):
    """Closing resources failed; ``errors`` lists every failure, in close order."""

    def __init__(self, message: str, errors: Sequence[BaseException]) -> None:
        super().__init__(message)
        self.errors: tuple[BaseException, ...] = tuple(errors)

    @classmethod
    def from_failures(cls, what: str, errors: Sequence[BaseException]) -> CleanupError:
        details = "; ".join(f"{type(error).__name__}: {error}" for error in errors)
        noun = "failure" if len(errors) == 1 else "failures"
        return cls(f"Closing {what} failed ({len(errors)} {noun}): {details}", errors)


class CancelledError(BaseException):
    """The run was cancelled through its ``CancellationToken``."""


class DeadlineExceededError(BaseException):
    """The run's deadline passed."""
