"""What a contract check found: one ``Check`` per rule, gathered in a ``Report``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .._engine import redact
from ..cli import _visible as visible

__all__ = ["NO_INPUT", "Check", "Report"]


class _NoInput:
    """Marks a check that failed without a particular input (a schema or cleanup rule)."""

    def __repr__(self) -> str:
        return "NO_INPUT"


NO_INPUT: Any = _NoInput()


@dataclass(frozen=True, slots=True)
class Check:
    """One contract rule applied to one tool.

    ``detail`` says what was checked (when it passed) or what went wrong.
    A failed check also carries ``expected`` and ``observed`` and, when an
    input triggered it, the minimal ``input`` Hypothesis found.
    """

    name: str
    passed: bool
    detail: str
    tool: str | None = None
    input: Any = NO_INPUT
    expected: str | None = None
    observed: str | None = None

    @property
    def title(self) -> str:
        """The check's name, qualified by the tool it ran on when a report covers several."""
        return self.name if self.tool is None else f"{self.name}[{self.tool}]"

    def explain(self) -> str:
        """A few indented lines: what failed, on which input, expected versus observed.

        Credentials in them (a DSN's password, a token) are cut, and invisible
        characters (a bidi override, a zero-width space) escaped, as ``check``
        does: these lines end up in CI logs and terminals.
        """
        lines = [f"FAILED {visible(self.title)}: {visible(self.detail)}"]
        if self.input is not NO_INPUT:
            lines.append(f"  input:    {visible(_show(self.input))}")
        if self.expected is not None:
            lines.append(f"  expected: {visible(self.expected)}")
        if self.observed is not None:
            lines.append(f"  observed: {visible(self.observed)}")
        return redact("\n".join(lines))


@dataclass(frozen=True, slots=True)
class Report:
    """Every check run on ``subject`` (a Tool or Toolset class name)."""

    subject: str
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if not check.passed)

    def __getitem__(self, title: str) -> Check:
        """The check titled ``title``: ``"cleanup"``, or ``"valid_inputs[lookup]"`` in toolsets."""
        for check in self.checks:
            if check.title == title:
                return check
        raise KeyError(title)

    def explain(self) -> str:
        """A readable account of the failures (or a one-line success)."""
        if self.passed:
            return f"{self.subject} passed all {len(self.checks)} contract checks"
        failures = self.failures
        header = f"{self.subject} broke {len(failures)} of {len(self.checks)} contract checks:"
        return "\n\n".join([header, *(check.explain() for check in failures)])


def _show(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
