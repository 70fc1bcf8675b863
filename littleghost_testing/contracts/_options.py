"""How hard and how long the contract checks try."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Verbosity, settings

import littleghost as lg

__all__ = ["DEFAULTS", "ContractSettings", "Options", "binding_factory"]


@dataclass(frozen=True, slots=True)
class ContractSettings:
    """How hard and how long the checks try: each default is declared here, once.

    ``max_examples`` is the Hypothesis budget of each input-driven check and
    ``seed`` seeds its search; left ``None``, both come from the active
    Hypothesis settings profile (and ``--hypothesis-seed``), as in any
    ``@given`` test. ``backend`` is the event loop the tool runs on.
    ``cancel_within`` is how soon, in seconds, a cancelled or expired call
    must stop; ``call_timeout`` bounds one call (or close). ``time_budget``
    bounds each input-driven check's search, in seconds (``None``: no bound):
    a slow tool would otherwise take ``max_examples`` times its call time.
    """

    max_examples: int | None = None
    seed: int | None = None
    backend: str = "asyncio"
    cancel_within: float = 0.25
    call_timeout: float = 10.0
    time_budget: float | None = 30.0

    def __post_init__(self) -> None:
        if self.max_examples is not None and self.max_examples < 1:
            raise ValueError(f"max_examples must be at least 1, not {self.max_examples}")
        for name in ("cancel_within", "call_timeout", "time_budget"):
            seconds = getattr(self, name)
            if name == "time_budget" and seconds is None:
                continue
            if not isinstance(seconds, int | float) or not seconds > 0:
                raise ValueError(f"{name} must be a positive number of seconds, not {seconds!r}")


DEFAULTS = ContractSettings()
"""The settings of ``check_tool``, ``check_toolset`` and the contract classes by default."""


@dataclass(frozen=True, slots=True)
class Options(ContractSettings):
    """The settings, plus what one run of the checks is given: a binding and examples."""

    binding: Callable[[], lg.Binding] = lg.Binding
    examples: Sequence[Any] = ()

    @property
    def budget(self) -> int:
        """``max_examples``, or the active profile's when it was left unset."""
        return self.max_examples or settings().max_examples  # settings() is the profile's

    def profile_settings(self) -> settings:
        """The active profile (its database, derandomization, phases), with our budget.

        Only what the checks need differs: no per-example deadline (calls
        are bounded by ``call_timeout``), quiet output and one failure (the
        check reports it itself), and no too-slow health check (tools are slow).
        """
        profile = settings()  # unset options inherit from the active profile
        return settings(
            max_examples=self.budget,
            deadline=None,
            verbosity=Verbosity.quiet,
            report_multiple_bugs=False,
            print_blob=False,
            suppress_health_check=[*profile.suppress_health_check, HealthCheck.too_slow],
        )


def binding_factory(
    binding: lg.Binding | Callable[[], lg.Binding] | None,
) -> Callable[[], lg.Binding]:
    """A zero-argument factory from what a user passed: nothing, a Binding or a factory."""
    if binding is None:
        return lg.Binding
    if isinstance(binding, lg.Binding):
        return lambda: binding
    if callable(binding):
        return binding
    raise TypeError(f"binding must be a Binding or a callable returning one, not {binding!r}")
