"""littleghost_testing: the pytest kit for littleghost tools.

Fixtures come from the pytest plugin (``littleghost_testing.plugin``), active
once the package is installed; strategies live in
``littleghost_testing.strategies``, leak checks in ``littleghost_testing.leaks``.
``FakeMCPServer`` and the contract checks are imported on first use: the MCP
server stack and Hypothesis cost ~0.4 s, which suites that don't use them
shouldn't pay.

Layout: ``_engine`` is the fuzzing engine (which tools to call, one call and
what its answer means, findings, shrinking); ``cli`` (``littleghost check``)
and the pytest route (``from_target``) drive it and render its reports;
``contracts`` checks one tool or toolset in-process. A private module is
for its own package and the packages inside it; any other package imports it
only through a package's ``__init__``: ``_engine`` lists what it shares in
its ``__all__``, and ``strategies``, ``cli``, ``littleghost`` and
``littleghost.mcp`` end their ``__init__`` with the names they share, under
a leading underscore (not API). Hypothesis' internals are used in
``_compat`` alone, the MCP SDK's in ``littleghost/mcp/_compat.py``.
tests/test_private_imports.py fails on a new exception to either rule.
"""

import importlib
from typing import TYPE_CHECKING, Any

from .leaks import ResourceSnapshot
from .scripted_model import ScriptedModel

if TYPE_CHECKING:
    from ._lock_check import assert_matches_lock, write_lock
    from ._server_fuzzing import FuzzWarning, from_target
    from .auto_model import AutoModel
    from .contracts import (
        ToolContract,
        ToolsetContract,
        assert_tool_contract,
        assert_toolset_contract,
        check_tool,
        check_toolset,
    )
    from .fake_server import FakeMCPServer

__all__ = [
    "AutoModel",
    "FakeMCPServer",
    "FuzzWarning",
    "ResourceSnapshot",
    "ScriptedModel",
    "ToolContract",
    "ToolsetContract",
    "assert_matches_lock",
    "assert_tool_contract",
    "assert_toolset_contract",
    "check_tool",
    "check_toolset",
    "from_target",
    "write_lock",
]

_LAZY = {
    "AutoModel": ".auto_model",
    "FakeMCPServer": ".fake_server",
    "FuzzWarning": "._server_fuzzing",
    "ToolContract": ".contracts",
    "ToolsetContract": ".contracts",
    "assert_matches_lock": "._lock_check",
    "assert_tool_contract": ".contracts",
    "assert_toolset_contract": ".contracts",
    "check_tool": ".contracts",
    "check_toolset": ".contracts",
    "from_target": "._server_fuzzing",
    "write_lock": "._lock_check",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'littleghost_testing' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
