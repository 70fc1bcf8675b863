"""Contract checks: prove a Tool or a Toolset follows littleghost's rules.

``check_tool`` / ``check_toolset`` return a ``Report``; ``assert_*`` raise
``AssertionError`` with a readable account; ``ToolContract`` and
``ToolsetContract`` turn the battery into pytest tests by subclassing.
"""

from ._api import assert_tool_contract, assert_toolset_contract, check_tool, check_toolset
from ._classes import ToolContract, ToolsetContract
from ._options import DEFAULTS, ContractSettings
from ._report import NO_INPUT, Check, Report
from ._tool_checks import TOOL_CHECKS
from ._toolset_checks import TOOLSET_CHECKS

__all__ = [
    "DEFAULTS",
    "NO_INPUT",
    "TOOLSET_CHECKS",
    "TOOL_CHECKS",
    "Check",
    "ContractSettings",
    "Report",
    "ToolContract",
    "ToolsetContract",
    "assert_tool_contract",
    "assert_toolset_contract",
    "check_tool",
    "check_toolset",
]
