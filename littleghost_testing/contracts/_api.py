"""``check_tool`` / ``check_toolset`` and their asserting forms."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import littleghost as lg
from littleghost.mcp import Toolset

from .._threads import in_fresh_thread
from ._options import DEFAULTS, Options, binding_factory
from ._report import Check, Report
from ._runner import running
from ._subject import Subject
from ._tool_checks import TOOL_CHECKS
from ._toolset_checks import TOOLSET_CHECKS, run_toolset_checks

__all__ = ["assert_tool_contract", "assert_toolset_contract", "check_tool", "check_toolset"]

BindingArg = lg.Binding | Callable[[], lg.Binding] | None


def check_tool(
    tool_class: type[lg.Tool],
    *,
    binding: BindingArg = None,
    examples: Sequence[Any] = (),
    checks: Collection[str] | None = None,
    max_examples: int | None = DEFAULTS.max_examples,
    seed: int | None = DEFAULTS.seed,
    backend: str = DEFAULTS.backend,
    cancel_within: float = DEFAULTS.cancel_within,
    call_timeout: float = DEFAULTS.call_timeout,
    time_budget: float | None = DEFAULTS.time_budget,
) -> Report:
    """Run the contract battery on ``tool_class`` and report every check.

    ``binding`` (a Binding or a factory of them) binds each instance the
    checks build; ``examples`` are valid inputs tried before generated ones;
    ``checks`` picks checks by name (all of ``TOOL_CHECKS`` by default).
    ``max_examples`` and ``seed`` left ``None`` come from the active
    Hypothesis settings profile; ``time_budget`` ends each input-driven check's
    search after that many seconds (its report says how many inputs ran).
    """
    if not (isinstance(tool_class, type) and issubclass(tool_class, lg.Tool)):
        raise TypeError(f"check_tool needs a Tool subclass, not {tool_class!r}")
    selected = _select(checks, tuple(TOOL_CHECKS))
    options = Options(
        max_examples,
        seed,
        backend,
        cancel_within,
        call_timeout,
        time_budget,
        binding=binding_factory(binding),
        examples=tuple(examples),
    )

    def run_checks() -> tuple[Check, ...]:
        with running(options) as runner:
            subject = Subject(tool_class, runner)
            return tuple(TOOL_CHECKS[name](subject) for name in selected)

    return Report(tool_class.tool_name, in_fresh_thread(run_checks))


def check_toolset(
    toolset_class: type[Toolset],
    *,
    binding: BindingArg = None,
    examples: Mapping[str, Sequence[Any]] | None = None,
    checks: Collection[str] | None = None,
    max_examples: int | None = DEFAULTS.max_examples,
    seed: int | None = DEFAULTS.seed,
    backend: str = DEFAULTS.backend,
    cancel_within: float = DEFAULTS.cancel_within,
    call_timeout: float = DEFAULTS.call_timeout,
    time_budget: float | None = DEFAULTS.time_budget,
) -> Report:
    """Discover ``toolset_class``'s tools and run the battery on each, plus discovery and cleanup.

    ``examples`` maps a generated tool name to valid inputs to try first.
    """
    if not (isinstance(toolset_class, type) and issubclass(toolset_class, Toolset)):
        raise TypeError(f"check_toolset needs a Toolset subclass, not {toolset_class!r}")
    selected = _select(checks, TOOLSET_CHECKS)
    given = dict(examples or {})
    options = Options(
        max_examples,
        seed,
        backend,
        cancel_within,
        call_timeout,
        time_budget,
        binding=binding_factory(binding),
    )

    def run_checks() -> tuple[Check, ...]:
        with running(options) as runner:
            return tuple(
                run_toolset_checks(
                    toolset_class, runner, selected, lambda name: tuple(given.get(name, ()))
                )
            )

    return Report(toolset_class.__name__, in_fresh_thread(run_checks))


def assert_tool_contract(tool_class: type[lg.Tool], **options: Any) -> Report:
    """``check_tool``, raising ``AssertionError`` with the explanation when a check fails."""
    return _asserted(check_tool(tool_class, **options))


def assert_toolset_contract(toolset_class: type[Toolset], **options: Any) -> Report:
    """``check_toolset``, raising ``AssertionError`` with the explanation when a check fails."""
    return _asserted(check_toolset(toolset_class, **options))


def _asserted(report: Report) -> Report:
    if not report.passed:
        raise AssertionError(report.explain())
    return report


def _select(checks: Collection[str] | None, known: Sequence[str]) -> tuple[str, ...]:
    if checks is None:
        return tuple(known)
    if isinstance(checks, str):
        raise TypeError("checks must be a collection of check names, not a str")
    unknown = sorted(set(checks) - set(known))
    if unknown:
        raise ValueError(f"unknown checks {unknown}: choose from {list(known)}")
    return tuple(name for name in known if name in checks)
