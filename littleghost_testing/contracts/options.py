"""How hard and how long the contract checks try."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Verbosity, settings

import littleghost as lg

__all__ = ["Options", "binding_factory"]


@dataclass(frozen=True, slots=True)
class Options:
    """The knobs every check shares.

    ``max_examples`` is the Hypothesis budget of each input-driven check.
    With ``seed=None`` the search is derandomized (the same inputs every run);
    an ``int`` seeds it instead. ``cancel_within`` is how soon, in seconds, a
    cancelled or expired call must stop; ``call_timeout`` bounds one call.
    """

    binding: Callable[[], lg.Binding]
    examples: Sequence[Any] = ()
    max_examples: int = 25
    seed: int | None = None
    backend: str = "asyncio"
    cancel_within: float = 0.25
    call_timeout: float = 10.0

    def __post_init__(self) -> None:
        if self.max_examples < 1:
            raise ValueError(f"max_examples must be at least 1, not {self.max_examples}")

    def hypothesis_settings(self) -> settings:
        return settings(
            max_examples=self.max_examples,
            derandomize=self.seed is None,
            database=None,
            deadline=None,
            verbosity=Verbosity.quiet,
            report_multiple_bugs=False,
            print_blob=False,
            suppress_health_check=[HealthCheck.too_slow],
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
