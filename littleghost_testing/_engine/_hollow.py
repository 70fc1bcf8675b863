"""Successes that never reached the tool's working path, told by what the kit alone sees.

A pattern list of error shapes always trails the next server: office-word answers
every call ``Document X.docx does not exist`` with ``isError: false``. But the
kit knows which inputs were valid and how the invalid ones were refused, so:

- a valid input's success that reads, once its echoed values are masked out,
  exactly as the server's refusal of an invalid input was refused; or
- one error-like answer (it says "not found", "does not exist", "failed"...)
  given alike to ``MIN_SAME_ANSWERS`` or more different valid inputs; or
- a list of ``MIN_ENTRIES`` or more entries (its lines, separators aside),
  every one of which opens with a refusal's word once the input's values are
  masked out: per-item failures answered as one success (filesystem's
  ``read_multiple_files``: ``PATH: Error - ENOENT ...`` per path). A list
  with one real entry, or entries that merely mention an error, is no refusal

is hollow: the valid path was never reached, and it is no success. A constant
answer that reads as no error (``ping`` answering ``pong``, a tool without
arguments) stays a success, and so do answers that vary with the input.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ._crashes import MAX_EXAMINED_CHARS

__all__ = [
    "MAX_MASKED_VALUES",
    "MIN_ENTRIES",
    "MIN_SAME_ANSWERS",
    "Answered",
    "hollow",
    "masked",
]

MIN_SAME_ANSWERS = 3
"""Valid inputs given one error-like answer, at least, for it to be judged hollow."""

MIN_ENTRIES = 2
"""Lines an answer has, at least, for each to be judged as a per-item refusal of its own."""

MAX_MASKED_VALUES = 50
"""An input's values masked out of its answer, at most (its first strings and numbers)."""

_SHORT = 3
"""An echoed value shorter than this is masked only where it stands as a word of its own."""

_DIGITS = re.compile(r"\d+")
_ERROR_LIKE = re.compile(
    r"\b(?:errors?|exceptions?|fail(?:s|ed|ure)?|invalid|cannot|can't|could ?n[o']t|unable"
    r"|denied|forbidden|unauthori[sz]ed|no such|not (?:found|loaded|exist|allowed|supported"
    r"|available|open(?:ed)?|initiali[sz]ed|connected)|does(?: not|n't) exist)\b",
    re.IGNORECASE,
)
"""Words a refusal uses, in any tool's language: what makes a constant answer suspect."""

_OPENS_REFUSAL = re.compile(rf"[\W_]*(?:{_ERROR_LIKE.pattern})", re.IGNORECASE)
"""An entry whose first words are a refusal's (``: Error - ENOENT`` once a path is masked)."""


@dataclass(frozen=True, slots=True)
class Answered:
    """One answer's text (bounded by ``MAX_EXAMINED_CHARS``) and the input it answered."""

    input: Any
    text: str


def hollow(successes: Sequence[Answered], refusals: Sequence[Answered]) -> list[int]:
    """The positions in ``successes`` (valid inputs' answers) that are hollow.

    ``refusals`` are the answers to invalid inputs that refused them (isError, a
    JSON-RPC error, a success that reads as an error).
    """
    refused = {shape for answer in refusals if (shape := template(answer)) is not None}
    shapes = [template(answer) for answer in successes]
    counts = Counter(shape for shape in shapes if shape is not None)
    entries = [entries_of(shape) for shape in shapes]
    given = Counter(entry for listed in entries for entry in set(listed))
    return [
        position
        for position, shape in enumerate(shapes)
        if shape is not None
        and (
            shape in refused
            or (counts[shape] >= MIN_SAME_ANSWERS and _ERROR_LIKE.search(shape) is not None)
            or every_entry_refused(entries[position], given)
        )
    ]


def entries_of(shape: str | None) -> list[str]:
    """A masked answer's entries: its lines with a letter or digit (``---`` separates)."""
    if shape is None:
        return []
    return [line.strip() for line in shape.splitlines() if any(c.isalnum() for c in line)]


def every_entry_refused(entries: Sequence[str], given: Counter[str]) -> bool:
    """Whether each of an answer's ``entries`` opens with a refusal's word, and they are
    ``MIN_ENTRIES`` or more or, alone, the entry is among ``MIN_SAME_ANSWERS`` answers'."""
    if not entries or not all(_OPENS_REFUSAL.match(entry) for entry in entries):
        return False
    return len(entries) >= MIN_ENTRIES or given[entries[0]] >= MIN_SAME_ANSWERS


def template(answer: Answered) -> str | None:
    """The answer's text with the input's values masked out, every number as ``#`` and
    every quote as ``'``.

    ``None`` for a text too long to be a refusal, or one that is nothing but echoes
    (an echo tool's answers are all alike, and all fine).
    """
    if len(answer.text) > MAX_EXAMINED_CHARS:
        return None
    text = masked(answer.text, answer.input)
    shape = _DIGITS.sub("#", text).replace('"', "'").strip()  # repr picks either quote
    return shape if any(character.isalpha() for character in shape) else None


def masked(text: str, value: Any, *, keys: Collection[str] = (), numbers: bool = True) -> str:
    """``text`` without the strings (and ``numbers``) of the input ``value``, nor its ``keys``.

    A value shorter than 3 characters goes only where it stands as a word of its own.
    """
    echoes = {*_echoes(value, numbers), *(key for key in keys if key)}
    for echoed in sorted(echoes, key=len, reverse=True):
        if len(echoed) >= _SHORT:
            text = text.replace(echoed, "")
        else:
            text = re.sub(rf"(?<![^\W_]){re.escape(echoed)}(?![^\W_])", "", text)
    return text


def _echoes(value: Any, numbers: bool) -> Iterator[str]:
    """The input's strings (and ``numbers``) as a server may echo them, up to
    ``MAX_MASKED_VALUES`` values."""
    for count, item in enumerate(_values(value)):
        if count >= MAX_MASKED_VALUES:
            return
        if isinstance(item, str):
            if item:
                yield item  # and as JSON and Python's repr escape it:
                yield json.dumps(item, ensure_ascii=False)[1:-1]
                yield json.dumps(item)[1:-1]
                yield repr(item)[1:-1]
                yield ascii(item)[1:-1]
        elif numbers:
            yield str(item)


def _values(value: Any) -> Iterator[Any]:
    """Every string and number inside a JSON value (not its keys: a refusal names those)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str | int | float):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _values(item)
