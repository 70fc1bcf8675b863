"""``littleghost_testing._compat``: Hypothesis' internals behave as the kit needs, on every
supported version (``.ci/lowest`` runs these on the lowest)."""

from __future__ import annotations

from pathlib import Path

import hypothesis.core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from littleghost_testing import _compat

TEXTS = st.lists(st.integers(0, 1000), min_size=1) | st.text()


def _draw(data: _compat.ConjectureData, strategy: st.SearchStrategy[object]) -> object:
    with _compat.building(data, _draw):
        return data.draw(strategy)


def test_the_same_seed_draws_the_same_value_and_its_choices_rebuild_it() -> None:
    first, second = _compat.seeded_data(7), _compat.seeded_data(7)
    value = _draw(first, TEXTS)
    assert _draw(second, TEXTS) == value
    replay = _compat.simplest_data()
    with _compat.forced(replay, _compat.choices_of(first)):
        assert _draw(replay, TEXTS) == value
    assert _draw(_compat.simplest_data(), st.integers(3, 9)) == 3  # forcing was undone


def test_a_prefix_fixes_the_first_choices() -> None:
    assert _draw(_compat.simplest_data([True]), st.booleans()) is True
    assert _draw(_compat.seeded_data(1, [5]), st.integers(0, 9)) == 5


def test_a_check_before_each_choice_can_stop_a_draw() -> None:
    class Stop(BaseException):
        pass

    checked: list[None] = []

    def check() -> None:
        checked.append(None)
        if len(checked) > 3:
            raise Stop

    data = _compat.seeded_data(3)
    _compat.before_each_choice(data, check)
    with pytest.raises(Stop):
        _draw(data, st.lists(st.integers(), min_size=10))


def test_a_draw_without_a_value_raises_stop_test() -> None:
    with pytest.raises(_compat.StopTest):
        _draw(_compat.seeded_data(0), st.integers().filter(lambda _: False))


def test_the_home_directory_moves_and_comes_back(tmp_path: Path) -> None:
    previous = _compat.home_directory()
    assert isinstance(previous, Path)
    _compat.set_home_directory(tmp_path)
    try:
        assert _compat.home_directory() == tmp_path
    finally:
        _compat.set_home_directory(previous)
    assert _compat.home_directory() == previous


def test_draws_inside_a_test_are_the_tests() -> None:
    seen: list[int] = []

    @given(st.just(None))
    def inner(_: None) -> None:
        assert _compat.in_test()
        seen.append(_compat.draw_in_test(st.integers(4, 4)))

    assert not _compat.in_test()
    inner()
    assert seen and set(seen) == {4}


def test_a_failing_example_is_saved_under_the_database_key() -> None:
    database = InMemoryExampleDatabase()

    @settings(database=database, max_examples=5)
    @given(st.integers(0, 9))
    def test(number: int) -> None:
        raise AssertionError(number)

    _compat.set_database_key(test, b"key")
    with pytest.raises(AssertionError):
        test()
    assert list(database.fetch(b"key"))  # the failure is stored under the key given


def test_the_global_seed_is_pytests_hypothesis_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hypothesis.core, "global_force_seed", 5)
    assert _compat.global_seed() == 5
    monkeypatch.setattr(hypothesis.core, "global_force_seed", None)
    assert _compat.global_seed() is None


@pytest.mark.parametrize(
    "choices",
    [
        (5, "text"),  # an integer where the strategy now draws a string
        ("x", 99),  # the string fits; 99 is past the list's bound
        ("x",),  # too few: the rest is drawn as usual
    ],
)
def test_choices_that_no_longer_fit_end_the_forcing_and_the_value_stays_valid(
    choices: tuple[object, ...],
) -> None:
    strategy = st.tuples(st.text(max_size=3), st.integers(0, 9))
    data = _compat.seeded_data(7)
    with _compat.forced(data, choices):
        text, number = _draw(data, strategy)
    assert isinstance(text, str) and len(text) <= 3 and 0 <= number <= 9
    assert text == ("x" if choices[0] == "x" else text)
