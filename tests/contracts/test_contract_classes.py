"""ToolContract and ToolsetContract, subclassed in a user's own suite (run with pytester).

The inner suites inherit this suite's ``anyio_backend`` fixture, so every
contract test runs twice: on asyncio and on trio.
"""

from __future__ import annotations

import pytest
import toolset_targets  # noqa: F401 - loads the MCP stack here, not inside a pytester run
from hypothesis import settings

# (pytester's in-process runs unload what they imported; the SDK's crypto cannot be reloaded)

HEADER = """
import sys
sys.path.insert(0, {path!r})
from contract_tools import DividingTool, LookupTool, LeakyTool
from toolset_targets import HelpDeskTools
from littleghost_testing.contracts import ToolContract, ToolsetContract
"""


def suite(pytester: pytest.Pytester, body: str, *, toolsets: bool = True) -> None:
    """A user's test module; ``toolsets=False`` leaves the MCP stack unimported (faster)."""
    from pathlib import Path

    here = str(Path(__file__).parent)
    header = (
        HEADER if toolsets else HEADER.replace("from toolset_targets import HelpDeskTools\n", "")
    )
    pytester.makepyfile(test_user_suite=header.format(path=here) + body)


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
    result.assert_outcomes(passed=28, failed=4)
    result.stdout.fnmatch_lines(
        [
            "*TestLeaky.test_error_sanitization?asyncio?*",
            "*leaky_tool broke 1 of 1 contract checks:*",
            "*FAILED error_sanitization: an error result shows more than the contract allows*",
        ]
    )


def test_a_tool_raising_on_a_valid_input_fails_its_tool_contract(
    pytester: pytest.Pytester,
) -> None:
    suite(
        pytester,
        """
class TestDividing(ToolContract):
    tool_class = DividingTool
    max_examples = 10
""",
        toolsets=False,
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=14, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*TestDividing.test_valid_inputs?asyncio?*",
            "*dividing_tool broke 1 of 1 contract checks:*",
            "*FAILED valid_inputs: a valid input was mishandled*",
            '*input:    {"article": 1}*',
            "*observed: an error result 'Tool failed (ZeroDivisionError)' for ZeroDivisionError(*",
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


def test_a_failure_is_shown_once(pytester: pytest.Pytester) -> None:
    suite(
        pytester, "\nclass TestLeaky(ToolContract):\n    tool_class = LeakyTool\n", toolsets=False
    )
    result = pytester.runpytest("-q", "-k", "test_error_sanitization and asyncio")
    result.assert_outcomes(failed=1)
    # pytest's short summary repeats the message where CI is set: count the report only.
    report = result.stdout.str().split("short test summary info")[0]
    assert report.count("FAILED error_sanitization: ") == 1
    assert "Traceback" not in report and "During handling" not in report


PROFILE_SUITE = """
from hypothesis import settings
from littleghost_testing._engine import coverage_inputs

calls = []


class Counted(LookupTool):
    async def call(self, input):
        calls.append(input)
        return "ok"


settings.register_profile("tiny", max_examples=3, database=None)
settings.load_profile("tiny")


class TestFromProfile(ToolContract):
    tool_class = Counted


class TestExplicit(ToolContract):
    tool_class = Counted
    max_examples = 7


def test_zz_budgets():
    # valid_inputs and error_sanitization's search (injected failures never reach call):
    # the coverage inputs, then the budget's, for each class, on asyncio and trio
    first = len(coverage_inputs(Counted.input_schema))
    assert len(calls) == 2 * (4 * first + 3 + 3 + 7 + 7), len(calls)
"""


def test_unset_options_take_the_active_hypothesis_profile(pytester: pytest.Pytester) -> None:
    suite(pytester, PROFILE_SUITE, toolsets=False)
    checks = ["test_valid_inputs", "test_error_sanitization"]
    chosen = [
        f"test_user_suite.py::{cls}::{name}"
        for cls in ("TestFromProfile", "TestExplicit")
        for name in checks
    ]
    previous = settings.get_current_profile_name()
    try:
        result = pytester.runpytest("-q", *chosen, "test_user_suite.py::test_zz_budgets")
    finally:
        settings.load_profile(previous)  # the inner suite ran in this process and loaded "tiny"
    result.assert_outcomes(passed=9)


BACKEND_SUITE = """
from littleghost_testing.contracts import ToolContract


class TestLookup(ToolContract):
    tool_class = None  # collected only: the backends are what is looked at
"""


def test_the_contract_tests_run_on_every_installed_backend_unless_a_conftest_picks(
    pytester: pytest.Pytester,
) -> None:
    """What docs/contracts.md says: anyio's own ``anyio_backend`` gives asyncio and trio."""
    pytester.makepyfile(test_backends=BACKEND_SUITE)
    listed = pytester.runpytest_subprocess("--collect-only", "-q", "-k", "test_schema")
    listed.stdout.fnmatch_lines(
        [
            "test_backends.py::TestLookup::test_schema[[]asyncio[]]",
            "test_backends.py::TestLookup::test_schema[[]trio[]]",
        ]
    )
    pytester.makeconftest(
        "import pytest\n\n\n@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n"
    )
    picked = pytester.runpytest_subprocess("--collect-only", "-q", "-k", "test_schema")
    picked.stdout.fnmatch_lines(
        ["test_backends.py::TestLookup::test_schema", "1/* tests collected*"]
    )
