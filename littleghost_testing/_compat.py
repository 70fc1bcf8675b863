"""Every use of Hypothesis' internals, in one place.

The kit draws values apart from any test (the strategies' seeds, the
engine's prefix-stable examples), forces or times each choice a draw makes,
names a contract test's example-database key and moves Hypothesis' cache
folder. ``SeedsFirst`` (strategies/_in_turn.py) is a ``SearchStrategy`` with
a ``do_draw`` of its own, calling ``ConjectureData.draw``, ``draw_boolean``
and ``draw_integer`` (with ``weights``: ``draw_index``). None of that is
public API: when Hypothesis changes, this module (and that method) is what
to change, with the pin in pyproject.toml. The MCP SDK's internals are in
``littleghost/mcp/_compat.py``; the kit uses no other dependency's.

Tested with hypothesis 6.168.0, the lowest supported (``.ci/lowest``), and
6.170.17, the newest on PyPI (checked with ``pip index versions hypothesis``
on 2026-12-01); pyproject.toml allows ``>=6.168,<6.171``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from random import Random
from typing import Any, TypeVar

import hypothesis.core
from hypothesis import configuration
from hypothesis.control import BuildContext, current_build_context, currently_in_test_context
from hypothesis.errors import StopTest
from hypothesis.internal.conjecture.choice import ChoiceTemplate, choice_permitted
from hypothesis.internal.conjecture.data import ConjectureData
from hypothesis.strategies import SearchStrategy

__all__ = [
    "RANDOM_TRIES",
    "ConjectureData",
    "StopTest",
    "before_each_choice",
    "building",
    "choices_of",
    "draw_in_test",
    "draw_index",
    "forced",
    "global_seed",
    "home_directory",
    "in_test",
    "seeded_data",
    "set_database_key",
    "set_home_directory",
    "simplest_data",
]

T = TypeVar("T")

RANDOM_TRIES = 11
"""How often Hypothesis draws a new example's choices at random before it picks among
the values not yet tried (``DataTree.generate_novel_prefix``: ``attempts <= 10``)."""

_CHOICE_KINDS = ("integer", "float", "string", "bytes", "boolean")
"""The kinds of choice a ``ConjectureData`` makes: one ``draw_<kind>`` method each."""


def simplest_data(prefix: Sequence[Any] = ()) -> ConjectureData:
    """Choices that draw a strategy's simplest value, after the fixed ``prefix``."""
    return ConjectureData.for_choices([*prefix, ChoiceTemplate("simplest", count=None)])


def seeded_data(seed: int, prefix: Sequence[Any] | None = None) -> ConjectureData:
    """Random choices from ``seed`` (the same in every process), after the fixed ``prefix``."""
    return ConjectureData(random=Random(seed), prefix=None if prefix is None else list(prefix))


def building(data: ConjectureData, test: Callable[..., Any]) -> BuildContext:
    """The context ``data.draw`` needs outside a test; ``test`` names the caller in reports.

    A draw that gives no value (a filter ran dry) raises ``StopTest``.
    """
    return BuildContext(data, wrapped_test=test)


def choices_of(data: ConjectureData) -> tuple[Any, ...]:
    """The choices ``data`` made so far: replayed (``forced``), they rebuild its value."""
    return tuple(data.choices)


def draw_index(data: ConjectureData, count: int, weights: dict[int, float] | None) -> int:
    """An index below ``count``: ``weights`` maps some to their chance (below 1 in all,
    at most 255 of them), the rest of the chance spread over every index alike."""
    return data.draw_integer(0, count - 1, weights=weights)


def _wrap_choices(data: ConjectureData, wrap: Callable[[Callable[..., Any]], Any]) -> None:
    for kind in _CHOICE_KINDS:
        setattr(data, f"draw_{kind}", wrap(getattr(data, f"draw_{kind}")))


_KIND_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "float": (float,),
    "string": (str,),
    "bytes": (bytes,),
    "boolean": (bool,),
}


def _fits(choice: Any, kind: str, constraints: Any) -> bool:
    if isinstance(choice, bool) and kind != "boolean":
        return False
    return isinstance(choice, _KIND_TYPES[kind]) and choice_permitted(choice, constraints)


@contextmanager
def forced(data: ConjectureData, choices: Sequence[Any]) -> Iterator[None]:
    """Every draw on ``data`` takes the next of ``choices``, forced, for the block.

    Only while they fit: a choice of another kind, or outside the draw's
    constraints (the strategy now draws differently from when ``choices`` were
    recorded), ends the forcing, and the rest of the block draws as usual.
    Hypothesis takes a forced choice as given, so forcing a misfit would build
    a value the strategy cannot produce, or fail inside Hypothesis.
    """
    queue = iter(choices)
    aligned = True
    replaced = vars(data).get("_draw")
    draw: Callable[..., Any] = data._draw  # pyright: ignore[reportPrivateUsage]

    def forcing(kind: str, constraints: Any, *, observe: bool, forced: Any) -> Any:
        nonlocal aligned
        if observe and aligned:
            choice = next(queue, _END)  # recorded for a draw Hypothesis forces too
            if not _fits(choice, kind, constraints):
                aligned = False
            elif forced is None:
                forced = choice
        return draw(kind, constraints, observe=observe, forced=forced)

    data._draw = forcing  # pyright: ignore[reportAttributeAccessIssue]
    try:
        yield
    finally:
        if replaced is None:
            del data._draw  # pyright: ignore[reportAttributeAccessIssue]
        else:
            data._draw = replaced  # pyright: ignore[reportAttributeAccessIssue]


_END = object()
"""What ``forced`` takes once its choices run out: a choice no draw fits."""


def before_each_choice(data: ConjectureData, check: Callable[[], None]) -> None:
    """Call ``check`` before every choice ``data`` makes (it may raise to stop the draw)."""

    def checking(method: Callable[..., Any]) -> Callable[..., Any]:
        def choose(*args: Any, **kwargs: Any) -> Any:
            check()
            return method(*args, **kwargs)

        return choose

    _wrap_choices(data, checking)


def in_test() -> bool:
    """Whether a Hypothesis test is running in this thread (its draws are the test's)."""
    return currently_in_test_context()


def draw_in_test(strategy: SearchStrategy[T]) -> T:
    """Draw ``strategy`` as part of the running Hypothesis test (``in_test()`` must be true)."""
    return current_build_context().data.draw(strategy)


def global_seed() -> int | str | None:
    """``--hypothesis-seed`` as pytest was given it (a string when it is not a number)."""
    return hypothesis.core.global_force_seed


def set_database_key(test: Any, key: bytes) -> None:
    """Store ``test``'s examples under ``key`` in the example database (not its qualname)."""
    test._hypothesis_internal_database_key = key


def home_directory() -> Path:
    """Where Hypothesis keeps its caches now (``.hypothesis/`` in the cwd by default)."""
    return configuration.storage_directory(intent_to_write=False).home_directory


def set_home_directory(directory: Path | None) -> None:
    """Point Hypothesis' caches at ``directory`` (``None``: its default again)."""
    configuration.set_hypothesis_home_dir(directory)
