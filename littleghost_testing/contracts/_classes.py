"""``ToolContract`` and ``ToolsetContract``: the battery as pytest tests, by subclassing.

Each check is a test method, so a failure names the broken rule. The tests
are sync and run the tool on their own event loop, on the backend of the
``anyio_backend`` fixture (asyncio by default; parametrize it for trio).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

import littleghost as lg
from littleghost.mcp import Toolset

from ._api import check_tool, check_toolset
from ._options import DEFAULTS
from ._report import Report

__all__ = ["ToolContract", "ToolsetContract"]


class _Contract:
    """Settings shared by both base classes; override them as class attributes."""

    max_examples: ClassVar[int | None] = DEFAULTS.max_examples  # None: the profile's
    seed: ClassVar[int | None] = DEFAULTS.seed
    cancel_within: ClassVar[float] = DEFAULTS.cancel_within
    call_timeout: ClassVar[float] = DEFAULTS.call_timeout
    time_budget: ClassVar[float | None] = DEFAULTS.time_budget

    def binding(self) -> lg.Binding:
        """The Binding each checked instance gets; override to supply a workspace, a run, ..."""
        return lg.Binding()

    def _options(self, backend: object) -> dict[str, Any]:
        name = backend[0] if isinstance(backend, tuple) else backend
        return {
            "binding": self.binding,
            "max_examples": self.max_examples,
            "seed": self.seed,
            "backend": str(name),
            "cancel_within": self.cancel_within,
            "call_timeout": self.call_timeout,
            "time_budget": self.time_budget,
        }


def _fail_on(report: Report) -> None:
    """Fail the test with the report's explanation, shown once and without a traceback."""
    if not report.passed:
        pytest.fail(report.explain(), pytrace=False)


class ToolContract(_Contract):
    """Subclass as ``class TestMyTool(ToolContract): tool_class = MyTool``."""

    tool_class: ClassVar[type[lg.Tool] | None] = None
    example_inputs: ClassVar[Sequence[Any]] = ()

    def _check(self, name: str, backend: object) -> None:
        if self.tool_class is None:
            pytest.fail(f"{type(self).__name__} must set tool_class", pytrace=False)
        _fail_on(
            check_tool(
                self.tool_class,
                checks=[name],
                examples=self.example_inputs,
                **self._options(backend),
            )
        )

    def test_schema(self, anyio_backend: object) -> None:
        self._check("schema", anyio_backend)

    def test_specification(self, anyio_backend: object) -> None:
        self._check("specification", anyio_backend)

    def test_valid_inputs(self, anyio_backend: object) -> None:
        self._check("valid_inputs", anyio_backend)

    def test_invalid_inputs(self, anyio_backend: object) -> None:
        self._check("invalid_inputs", anyio_backend)

    def test_error_sanitization(self, anyio_backend: object) -> None:
        self._check("error_sanitization", anyio_backend)

    def test_cancellation(self, anyio_backend: object) -> None:
        self._check("cancellation", anyio_backend)

    def test_deadline(self, anyio_backend: object) -> None:
        self._check("deadline", anyio_backend)

    def test_cleanup(self, anyio_backend: object) -> None:
        self._check("cleanup", anyio_backend)


class ToolsetContract(_Contract):
    """Subclass as ``class TestHelpCenter(ToolsetContract): toolset_class = HelpCenterTools``."""

    toolset_class: ClassVar[type[Toolset] | None] = None
    example_inputs: ClassVar[Mapping[str, Sequence[Any]]] = {}

    def _check(self, names: Sequence[str], backend: object) -> None:
        if self.toolset_class is None:
            pytest.fail(f"{type(self).__name__} must set toolset_class", pytrace=False)
        _fail_on(
            check_toolset(
                self.toolset_class,
                checks=names,
                examples=self.example_inputs,
                **self._options(backend),
            )
        )

    def test_discovery(self, anyio_backend: object) -> None:
        self._check(["discovery", "discovery_cancellation", "discovery_deadline"], anyio_backend)

    def test_schema(self, anyio_backend: object) -> None:
        self._check(["schema", "specification"], anyio_backend)

    def test_valid_inputs(self, anyio_backend: object) -> None:
        self._check(["valid_inputs"], anyio_backend)

    def test_invalid_inputs(self, anyio_backend: object) -> None:
        self._check(["invalid_inputs"], anyio_backend)

    def test_error_sanitization(self, anyio_backend: object) -> None:
        self._check(["error_sanitization"], anyio_backend)

    def test_cancellation(self, anyio_backend: object) -> None:
        self._check(["cancellation", "deadline"], anyio_backend)

    def test_cleanup(self, anyio_backend: object) -> None:
        self._check(["cleanup"], anyio_backend)
