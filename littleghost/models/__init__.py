"""Real model providers, and the guard that keeps them out of tests.

``OpenAIChatModel`` needs ``httpx`` (``pip install 'littleghost[openai]'``); it
is imported on first use so that the guard works without it.
"""

from typing import TYPE_CHECKING, Any

from ._guard import (
    ModelRequestsBlockedError,
    allow_model_requests,
    check_model_requests_allowed,
    model_requests_allowed,
)

if TYPE_CHECKING:
    from ._openai_chat import OpenAIChatModel

__all__ = [
    "ModelRequestsBlockedError",
    "OpenAIChatModel",
    "allow_model_requests",
    "check_model_requests_allowed",
    "model_requests_allowed",
]

ModelRequestsBlockedError.__module__ = __name__  # tracebacks name the public path


def __getattr__(name: str) -> Any:
    if name == "OpenAIChatModel":
        from ._openai_chat import OpenAIChatModel

        return OpenAIChatModel
    raise AttributeError(f"module 'littleghost.models' has no attribute {name!r}")
