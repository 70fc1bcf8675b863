"""Seeds first: every shape and every constraint reached early, not by luck.

Hypothesis picks among choices at random, so 50 draws over 30 constraint
sites miss a fifth of them (the coupon collector's problem), and the same
holds for enum values, ``anyOf`` branches and optional keys. So each strategy
first offers a few seeds: draws made once per schema from fixed random seeds
(the same in every process) that between them reach every target the draws
reach. An example takes a seed behind two choices (``True``, then its index)
and replays the seed's own choices, forced: a finite branch of Hypothesis's
choice tree, which Hypothesis never generates again once exhausted (nor
mutates into a new example: the forced choices win). So the first examples go
through the seeds without repeating one, and then every example is drawn as
before (``False``, an unused index, then plain draws).

Hypothesis picks a new example's index at random among the unused ones (up
to ``RANDOM_TRIES`` draws, then among the values not yet tried), so with more
seeds than examples, which seeds come would be luck. Seeds come in tiers
(``Seed.tier``: for invalid inputs, a constraint met at its first pass
through every ``$ref``, then those met again one recursion deeper): the
index runs over the first tier and one more value that stands for the later
tiers (an index of their own follows), and that value carries almost none of
the index's weight. So new examples take the first tier's seeds, in
Hypothesis's order, until none is left, and only then the later tiers'.

Replay and shrinking stay exact: the choices alone rebuild a seed, and when
shrinking turns ``True`` into ``False`` the same choices, no longer forced,
rebuild the same value as a plain draw, which Hypothesis then shrinks as usual.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from hypothesis.strategies import SearchStrategy

from .._compat import (
    RANDOM_TRIES,
    ConjectureData,
    StopTest,
    before_each_choice,
    building,
    choices_of,
    draw_index,
    forced,
    seeded_data,
    simplest_data,
)

__all__ = ["OutOfTime", "Seed", "SeedsFirst", "check_clock", "choices_until", "draw_outside"]

T = TypeVar("T")

# The chance to take a seed with many seeds: while seeds are left, a plain draw
# about never comes. Each plain draw costs up to seven examples: Hypothesis
# mutates every new example up to five times (copies one part over another with
# the same label), and a plain draw's mutations are new examples, where a seed's
# are not (its choices are forced). At one in 500, a plain draw and six mutations
# took seven of firecrawl's `firecrawl_interact`'s first 50 examples (81 seeds,
# one per constraint), and six constraints went unbroken.
_MANY_SEEDS_CHANCE = 1 - 1e-9

LATER_TIERS_WEIGHT = 0.002
"""At most this share of a tier's random index draws stand for the later tiers (the
tier's own seeds share the rest of the weight)."""

MOST_WEIGHTED = 255
"""Seeds of a tier that carry its index's weight (Hypothesis's limit on ``weights``);
past it, the rest of a large tier are drawn about as rarely as the later tiers."""

_choices_end: ContextVar[float | None] = ContextVar("littleghost_choices_end", default=None)


class OutOfTime(BaseException):
    """A draw ran past ``choices_until``; a BaseException, so no strategy takes it for its own."""


@contextmanager
def choices_until(ends: float) -> Iterator[None]:
    """Every choice drawn in the block checks the clock: past ``ends`` it raises ``OutOfTime``.

    That includes the seeds a strategy draws apart from the test on its first
    draw (``draw_outside``), which could otherwise take minutes unchecked.
    """
    token = _choices_end.set(ends)
    try:
        yield
    finally:
        _choices_end.reset(token)


def check_clock(data: ConjectureData) -> None:
    """Make every choice ``data`` draws check the clock ``choices_until`` set, if one is."""
    ends = _choices_end.get()
    if ends is None:
        return

    def check() -> None:
        if time.monotonic() >= ends:
            raise OutOfTime

    before_each_choice(data, check)


@dataclass(frozen=True, slots=True)
class Seed(Generic[T]):
    """A value drawn apart from any test, and the choices that rebuild it."""

    value: T
    choices: tuple[Any, ...]
    # Lower comes first: examples take the lowest tier's seeds before the others.
    tier: int = 0


class SeedsFirst(SearchStrategy[T]):
    """``seeds()`` (computed on first use, then kept), each once, then ``plain`` draws."""

    def __init__(
        self, seeds: Callable[[], Sequence[Seed[T]]], plain: SearchStrategy[T], label: str
    ) -> None:
        super().__init__()
        self._make_seeds = seeds
        self._seeds: Sequence[Seed[T]] | None = None
        self._tiers: list[tuple[list[Seed[T]], dict[int, float]]] = []
        self.plain = plain
        self._label = label

    def seeds(self) -> Sequence[Seed[T]]:
        if self._seeds is None:
            self._seeds = self._make_seeds()
            self._tiers = [(tier, tier_weights(len(tier))) for tier in tiers(self._seeds)]
        return self._seeds

    def do_draw(self, data: ConjectureData) -> T:
        seeds = self.seeds()
        if not seeds:
            return data.draw(self.plain)
        from_seed = data.draw_boolean(_seed_chance(len(seeds)))
        # Drawn by a plain draw too, so the choices stay aligned when shrinking turns
        # True into False.
        seed = self._pick(data)
        if not from_seed:
            return data.draw(self.plain)
        with forced(data, seed.choices):
            return data.draw(self.plain)

    def _pick(self, data: ConjectureData) -> Seed[T]:
        """A seed by its tier's index; a tier's last index stands for the later tiers."""
        *earlier, (last, _) = self._tiers
        for tier, weights in earlier:
            index = draw_index(data, len(tier) + 1, weights)
            if index < len(tier):
                return tier[index]
        # No choice for one seed, where it would be a choice of one.
        return last[draw_index(data, len(last), None)] if len(last) > 1 else last[0]

    def __repr__(self) -> str:
        # Not the plain strategy's: Hypothesis spells out every argument of every
        # layer, tens of kilobytes for a large schema (and warns about it).
        return self._label


def _seed_chance(count: int) -> float:
    """How likely an example is to take one of ``count`` seeds while some are left.

    ``count / (count + 1)`` for few seeds: one example in ``count + 1`` is then a
    plain draw, so the seeds are used up within about ``count + 1`` examples.
    Higher costs every later example: once every seed is used, Hypothesis's
    search for a new example redraws this choice until it comes up ``False``,
    each try a fresh ``ConjectureData`` (about ``count + 1`` tries, 2 for one
    seed). It tries at random at most ``RANDOM_TRIES`` times, though, so once
    ``count + 1`` tries reach that, ``_MANY_SEEDS_CHANCE`` costs no more.
    """
    if count + 1 >= RANDOM_TRIES:
        return _MANY_SEEDS_CHANCE
    return count / (count + 1)


def tiers(seeds: Sequence[Seed[T]]) -> list[list[Seed[T]]]:
    """``seeds`` grouped by tier, lowest first, each in the order given."""
    return [
        [seed for seed in seeds if seed.tier == tier] for tier in sorted({s.tier for s in seeds})
    ]


def tier_weights(size: int) -> dict[int, float]:
    """Weights for the index of a tier of ``size`` seeds and a last value for the later tiers.

    The tier's seeds share ``1 - LATER_TIERS_WEIGHT``; the rest is spread over
    every value alike. So a random draw stands for the later tiers but about once
    in ``(size + 1) / LATER_TIERS_WEIGHT``, and the later tiers come once this
    tier's seeds are all used (Hypothesis then takes the values not yet tried).
    That costs what ``_MANY_SEEDS_CHANCE`` does: once the tier is used up, each
    new example draws its index ``RANDOM_TRIES`` times first.
    """
    weighted = min(size, MOST_WEIGHTED)
    return dict.fromkeys(range(weighted), (1 - LATER_TIERS_WEIGHT) / weighted)


def draw_outside(
    strategy: SearchStrategy[T], seed: int | None = None, prefix: Sequence[Any] = ()
) -> Seed[T] | None:
    """One draw of ``strategy`` apart from any test: its simplest, or from ``seed``.

    The same in every process. ``prefix`` fixes the first choices. None when
    the strategy gave no value (a filter ran dry).
    """
    data = simplest_data(prefix) if seed is None else seeded_data(seed, prefix)
    check_clock(data)
    try:
        with building(data, draw_outside):
            value = data.draw(strategy)
    except StopTest:
        return None
    return Seed(value, choices_of(data))
