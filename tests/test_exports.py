"""Each package's public names, pinned: a name added, renamed or dropped is a decision.

One privacy convention (see littleghost/__init__.py): a package's ``__init__``
is its API and ``__all__`` lists it; its implementation modules are private
(``_name.py``). The few public modules are pinned here too. Changing a set
below changes the API: say so in CHANGELOG.md.
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import pytest

PUBLIC = {
    "littleghost": {
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
    },
    "littleghost.instrumentation": {
        "Event",
        "OUTCOMES",
        "Outcome",
        "Subscription",
        "outcome",
        "record_exception_messages",
        "subscribe",
    },
    "littleghost.mcp": {
        "CatalogLock",
        "Change",
        "ServerError",
        "Toolset",
        "ConnectionClosed",
        "JSONRPCError",
        "LimitExceeded",
        "MalformedMessage",
        "OutputSchemaError",
        "TimeoutExceeded",
        "TransportError",
        "client",
        "translate_error",
        "InvalidSchema",
        "SchemaLimitExceeded",
        "UnusableTool",
        "InputRefused",
    },
    "littleghost.models": {
        "ModelRequestsBlockedError",
        "OpenAIChatModel",
        "allow_model_requests",
        "check_model_requests_allowed",
        "model_requests_allowed",
    },
    "littleghost_testing": {
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
    },
    "littleghost_testing.strategies": {
        "InvalidInput",
        "SchemaError",
        "from_schema",
        "invalid_inputs",
        "tool_inputs",
    },
    "littleghost_testing.contracts": {
        "Check",
        "ContractSettings",
        "DEFAULTS",
        "NO_INPUT",
        "Report",
        "TOOLSET_CHECKS",
        "TOOL_CHECKS",
        "ToolContract",
        "ToolsetContract",
        "assert_tool_contract",
        "assert_toolset_contract",
        "check_tool",
        "check_toolset",
    },
    "littleghost_testing._engine": {
        "Answers",
        "DECLINE",
        "DEFAULT_SHRINK_BUDGET",
        "DEFAULT_TIMEOUT",
        "Finding",
        "FindingGroup",
        "FuzzOptions",
        "KINDS",
        "Leak",
        "NOT_SHRUNK",
        "PlannedTool",
        "ServerReport",
        "ToolReport",
        "TransportFaults",
        "annotations_of",
        "coverage_inputs",
        "describe",
        "find_credential",
        "find_leak",
        "fuzz_tool",
        "invalid_from",
        "leaked_detail",
        "plan",
        "redact",
        "server_name",
        "show",
        "task_support",
        "MAX_READ_SUBJECTS",
        "ConnectFailed",
        "check_reads",
        "list_reads",
        "PlannedRead",
        "ReadCatalog",
        "ReadPlan",
        "ReadSession",
        "MAX_LOCKED_READS",
        "read_catalog",
        "unhandled_exception",
        "DISCOVERY",
        "JudgedToolset",
        "judged_value",
    },
    "littleghost_testing.fake_server": {
        "Call",
        "Cancellation",
        "Crash",
        "Delay",
        "ErrorResult",
        "FakeMCPServer",
        "Fault",
        "Hang",
        "HttpStatus",
        "JsonRpcError",
        "Malformed",
        "Oversized",
        "RawBytes",
        "Request",
    },
    "littleghost_testing.cli": {
        "main",
    },
}
# Modules and subpackages without an underscore: namespaces of their own
# (``lg.instrumentation``), the pytest plugin, and documented import paths.
PUBLIC_MODULES = {
    "littleghost": {"instrumentation", "mcp", "models"},
    "littleghost.mcp": set(),
    "littleghost.models": set(),
    "littleghost_testing": {
        "agent_fixtures",
        "auto_model",
        "cli",
        "contracts",
        "demo_server",
        "fake_server",
        "leaks",
        "plugin",
        "providers",
        "scripted_model",
        "strategies",
    },
    "littleghost_testing.strategies": set(),
    "littleghost_testing.contracts": set(),
    "littleghost_testing.fake_server": set(),
    "littleghost_testing.cli": set(),
}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_the_public_names_are_exactly_the_pinned_ones(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) == PUBLIC[package]
    assert len(module.__all__) == len(set(module.__all__))  # each listed once
    for name in module.__all__:
        assert getattr(module, name) is not None


@pytest.mark.parametrize("package", sorted(PUBLIC_MODULES))
def test_implementation_modules_are_private(package: str) -> None:
    directory = Path(importlib.import_module(package).__file__ or "").parent
    public = {
        path.stem if path.suffix == ".py" else path.name
        for path in directory.iterdir()
        if not path.name.startswith("_")
        and (path.suffix == ".py" or (path / "__init__.py").is_file())
    }
    assert public == PUBLIC_MODULES[package]


@pytest.mark.parametrize("package", sorted(PUBLIC_MODULES))
def test_nothing_public_leaks_from_a_private_module(package: str) -> None:
    module = importlib.import_module(package)
    exported = set(module.__all__) | PUBLIC_MODULES[package]
    leaked = sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and name not in exported
        and (
            (isinstance(value, types.ModuleType) and value.__name__.startswith(package + "."))
            or getattr(value, "__module__", "").startswith(package + ".")
        )
    )
    assert not leaked, f"{package} exposes {leaked} without listing them in __all__"


def test_public_exceptions_name_the_package_they_are_imported_from() -> None:
    import littleghost as lg
    from littleghost import mcp, models

    assert lg.DeadlineExceededError.__module__ == "littleghost"
    assert lg.ToolCallLimitError.__module__ == "littleghost"
    assert mcp.ServerError.__module__ == "littleghost.mcp"
    assert mcp.MalformedMessage.__module__ == "littleghost.mcp"
    assert mcp.LimitExceeded.__module__ == "littleghost.mcp"
    assert models.ModelRequestsBlockedError.__module__ == "littleghost.models"
