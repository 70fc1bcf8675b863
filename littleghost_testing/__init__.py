"""littleghost_testing: the pytest kit for littleghost tools.

Fixtures come from the pytest plugin (``littleghost_testing.plugin``), active
once the package is installed; strategies live in
``littleghost_testing.strategies``. ``FakeMCPServer`` is imported on first use:
the MCP server stack costs ~0.4 s, which suites that don't use it shouldn't pay.
"""

from typing import TYPE_CHECKING, Any

from .scripted_model import ScriptedModel

if TYPE_CHECKING:
    from .fake_server import FakeMCPServer

__all__ = ["FakeMCPServer", "ScriptedModel"]


def __getattr__(name: str) -> Any:
    if name == "FakeMCPServer":
        from .fake_server import FakeMCPServer

        return FakeMCPServer
    raise AttributeError(f"module 'littleghost_testing' has no attribute {name!r}")
