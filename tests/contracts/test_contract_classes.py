"""ToolContract and ToolsetContract, subclassed in a user's own suite (run with pytester).

The inner suites inherit this suite's ``anyio_backend`` fixture, so every
contract test runs twice: on asyncio and on trio.
"""

from __future__ import annotations

import pytest

HEADER = """
import sys
sys.path.insert(0, {path!r})
from contract_tools import LookupTool, LeakyTool
from toolset_targets import HelpDeskTools
from littleghost_testing.contracts import ToolContract, ToolsetContract
"""


def suite(pytester: pytest.Pytester, body: str) -> None:
    from pathlib import Path

    here = str(Path(__file__).parent)
    pytester.makepyfile(test_user_suite=HEADER.format(path=here) + body)


def test_a_tool_contract_subclass_runs_every_check_as_a_test(pytester: pytest.Pytester) -> None:
    suite(
        pytester,
        """
class TestLookup(ToolContract):
    tool_class = LookupTool
    max_examples = 10


class TestLeaky(ToolContract):
    tool_class = LeakyTool
    max_examples = 10
""",
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=30, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*TestLeaky.test_error_sanitization?asyncio?*",
            "*leaky_tool broke 1 of 1 contract checks:*",
            "*FAILED error_sanitization: an error result shows more than the contract allows*",
        ]
    )


def test_a_toolset_contract_subclass_runs_its_checks_as_tests(pytester: pytest.Pytester) -> None:
    suite(
        pytester,
        """
class TestHelpDesk(ToolsetContract):
    toolset_class = HelpDeskTools
    max_examples = 5
""",
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=14)


def test_a_subclass_without_a_tool_class_fails_clearly(pytester: pytest.Pytester) -> None:
    suite(pytester, "\nclass TestNothing(ToolContract):\n    pass\n")
    result = pytester.runpytest("-q", "-k", "test_schema")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*TestNothing must set tool_class*"])
