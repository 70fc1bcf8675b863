"""``FuzzOptions``: how hard, how long and on which tools the fuzzing engine tries."""

from __future__ import annotations

import difflib
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = [
    "DEFAULT_SHRINK_BUDGET",
    "DEFAULT_TIMEOUT",
    "PROMPT_INPUTS",
    "TEMPLATE_INPUTS",
    "FuzzOptions",
]

DEFAULT_TIMEOUT = 10.0
"""Seconds one call may take before it is a ``timeout`` finding."""

DEFAULT_SHRINK_BUDGET = 10.0
"""Seconds per tool that shrinking findings may spend calling the server."""

PROMPT_INPUTS = "prompt:"
"""An ``inputs`` key ``prompt:NAME`` holds argument sets for the prompt ``NAME``."""

TEMPLATE_INPUTS = "resource:"
"""An ``inputs`` key ``resource:URI_TEMPLATE`` holds variable values for that template."""

_READ_INPUTS = (PROMPT_INPUTS, TEMPLATE_INPUTS)

_NAMED = 5
"""Unknown tool names an error names one by one; it counts the rest."""


@dataclass(frozen=True, slots=True)
class FuzzOptions:
    """Everything the engine needs to know; the CLI and pytest fill it from their own options.

    ``examples`` is the number of generated valid inputs, and again of invalid
    inputs, per tool. ``seed=None`` derandomizes: every run sends the same inputs.
    ``timeout`` bounds one call; ``tool_timeouts`` overrides it per tool (the
    server's tool name). ``include``/``exclude`` are globs on the server's tool
    names; they narrow the selection, never widen it past ``allow_side_effects``.
    ``strict`` makes ``ignored_unknown_property`` a violation. ``inputs`` maps
    a tool name to inputs known to work, tried after the schema's own examples;
    ``prompt:NAME`` to a prompt's argument sets and ``resource:URI_TEMPLATE``
    to a template's variable values (objects of strings), tried first.
    ``max_failures`` (violations, not warnings) is for the caller to enforce:
    ``on_call`` sees ``ToolReport.violations_so_far`` after every call, and
    ``should_stop`` ends the tool before its next call. ``hypothesis_database`` is a folder for
    Hypothesis' example database, or ``None`` for none (no ``.hypothesis/``).
    ``shrink_budget`` is how many seconds per tool shrinking may take.
    ``resources`` and ``prompts`` say whether resources (and templates) are
    read and prompts got: both change nothing, by the protocol.
    """

    examples: int = 20
    seed: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    tool_timeouts: Mapping[str, float] = field(default_factory=dict[str, float])
    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    allow_side_effects: bool = False
    strict: bool = False
    inputs: Mapping[str, Sequence[Mapping[str, Any]]] = field(
        default_factory=dict[str, Sequence[Mapping[str, Any]]]
    )
    max_failures: int | None = None
    hypothesis_database: Path | None = None
    shrink_budget: float = DEFAULT_SHRINK_BUDGET
    resources: bool = True
    prompts: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.examples, bool) or not isinstance(self.examples, int):
            raise TypeError(f"examples must be an int, not {self.examples!r}")
        if self.examples < 1:
            raise ValueError(f"examples must be at least 1, not {self.examples}")
        _seconds("timeout", self.timeout)
        _seconds("shrink_budget", self.shrink_budget, zero=True)
        for name, seconds in self.tool_timeouts.items():
            _seconds(f"tool_timeouts[{name!r}]", seconds)
        if self.max_failures is not None and self.max_failures < 1:
            raise ValueError(f"max_failures must be at least 1, not {self.max_failures}")
        for name, given in self.inputs.items():
            if isinstance(given, str | bytes | Mapping) or not isinstance(given, Sequence):
                raise TypeError(f"inputs[{name!r}] must be a list of objects, not {given!r}")
            for position, value in enumerate(given):
                if not isinstance(value, Mapping):
                    raise TypeError(
                        f"inputs[{name!r}][{position}] must be an object, not {value!r}"
                    )
                if name.startswith(_READ_INPUTS):
                    _strings(f"inputs[{name!r}][{position}]", value)
        for option in ("include", "exclude"):
            patterns = getattr(self, option)
            if isinstance(patterns, str):
                raise TypeError(f"{option} must be a list of globs, not the string {patterns!r}")
        object.__setattr__(self, "tool_timeouts", MappingProxyType(dict(self.tool_timeouts)))
        object.__setattr__(self, "inputs", MappingProxyType(dict(self.inputs)))
        object.__setattr__(self, "include", tuple(self.include))
        object.__setattr__(self, "exclude", tuple(self.exclude))

    def timeout_for(self, name: str) -> float:
        """Seconds one call of the server's tool ``name`` may take."""
        return self.tool_timeouts.get(name, self.timeout)

    def unknown_tools(self, names: Collection[str], labels: Mapping[str, str]) -> str | None:
        """One line naming each tool ``inputs`` or ``tool_timeouts`` gives that is not among
        ``names`` (a typo would silently drop the user's inputs), with close matches.

        ``labels`` names the two options as the user wrote them (``--inputs``).
        """
        parts = []
        for option in ("inputs", "tool_timeouts"):
            unknown = [
                name
                for name in getattr(self, option)
                if name not in names and not name.startswith(_READ_INPUTS)
            ]
            if unknown:
                shown = ", ".join(_with_close_match(name, names) for name in unknown[:_NAMED])
                if len(unknown) > _NAMED:
                    shown += f" and {len(unknown) - _NAMED} more"
                parts.append(f"{labels[option]} names tools the server does not list: {shown}")
        return "; ".join(parts) or None

    def summary(self) -> dict[str, Any]:
        """The options as JSON for reports (inputs are counted, not copied)."""
        return {
            "examples": self.examples,
            "seed": self.seed,
            "timeout": self.timeout,
            "tool_timeouts": dict(self.tool_timeouts),
            "include": list(self.include),
            "exclude": list(self.exclude),
            "allow_side_effects": self.allow_side_effects,
            "strict": self.strict,
            "inputs": {name: len(values) for name, values in self.inputs.items()},
            "max_failures": self.max_failures,
            "shrink_budget": self.shrink_budget,
            "resources": self.resources,
            "prompts": self.prompts,
        }


def _seconds(name: str, value: Any, *, zero: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")


def _strings(where: str, values: Mapping[Any, Any]) -> None:
    """MCP types a prompt's arguments and a template's variables as strings."""
    for key, value in values.items():
        if not isinstance(value, str):
            raise TypeError(f"{where}[{key!r}] must be a string, not {value!r}")


def _with_close_match(name: str, names: Collection[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=1)
    return f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name)
