"""The fuzzing engine behind ``littleghost check``: real MCP servers against their own schemas.

``plan`` decides which tools are safe to call (``readOnlyHint: true``, or
``allow_side_effects``) and says why; ``fuzz_tool`` calls one tool with the
schema's examples, known-good inputs, generated valid and invalid inputs,
and reports answer counts and findings, each distinct bug shrunk.
``check_reads`` reads the server's resources and resource templates and gets
its prompts, read-only by the protocol, reporting each the same way. No
printing, no exits: the CLI and pytest render the reports.
"""

from ._calls import DECLINE, JudgedToolset, judged_value
from ._coverage import coverage_inputs
from ._crashes import unhandled_exception
from ._faults import TransportFaults
from ._findings import (
    DISCOVERY,
    KINDS,
    Answers,
    Finding,
    FindingGroup,
    ServerReport,
    ToolReport,
    describe,
    show,
)
from ._leaks import Leak, find_credential, find_leak, leaked_detail, redact
from ._mutations import invalid_from
from ._options import DEFAULT_SHRINK_BUDGET, DEFAULT_TIMEOUT, FuzzOptions
from ._planning import PlannedTool, annotations_of, plan, server_name, task_support
from ._read_session import ConnectFailed, ReadSession
from ._reads import (
    MAX_LOCKED_READS,
    MAX_READ_SUBJECTS,
    PlannedRead,
    ReadCatalog,
    ReadPlan,
    check_reads,
    list_reads,
    read_catalog,
)
from ._tool_run import NOT_SHRUNK, fuzz_tool

__all__ = [
    "DECLINE",
    "DEFAULT_SHRINK_BUDGET",
    "DEFAULT_TIMEOUT",
    "DISCOVERY",
    "KINDS",
    "MAX_LOCKED_READS",
    "MAX_READ_SUBJECTS",
    "NOT_SHRUNK",
    "Answers",
    "ConnectFailed",
    "Finding",
    "FindingGroup",
    "FuzzOptions",
    "JudgedToolset",
    "Leak",
    "PlannedRead",
    "PlannedTool",
    "ReadCatalog",
    "ReadPlan",
    "ReadSession",
    "ServerReport",
    "ToolReport",
    "TransportFaults",
    "annotations_of",
    "check_reads",
    "coverage_inputs",
    "describe",
    "find_credential",
    "find_leak",
    "fuzz_tool",
    "invalid_from",
    "judged_value",
    "leaked_detail",
    "list_reads",
    "plan",
    "read_catalog",
    "redact",
    "server_name",
    "show",
    "task_support",
    "unhandled_exception",
]
