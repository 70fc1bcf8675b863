"""Reading a pattern before any engine compiles it: ECMA-262 syntax, and a bounded size.

Engines compile a counted repetition by writing its atom out once per count:
the ``regex`` package spends about 260 bytes on each, so ``^a{100000000}$``
(14 bytes of schema) takes gigabytes, and nesting multiplies the counts
(``^(a{10000}){1000}$``). One linear pass over the pattern, with no recursion
(a pattern may open thousands of groups), measures that size and finds syntax
that ECMA-262 does not have but other engines accept and read their own way
(Python's ``(?P<name>...)``, inline flags, ``\\A``, POSIX classes), so that a
pattern means the same to the validator, the strategies and the schema's
author. Other syntax errors are left to the engines, which name them.
"""

from __future__ import annotations

import functools
import re

import jsonschema_rs

from .._schema import LETTER_ESCAPES

__all__ = ["MAX_PATTERN_REPETITIONS", "pattern_problem", "pattern_size"]

MAX_PATTERN_REPETITIONS = 100_000
"""Atoms one pattern may stand for once its counted repetitions are written out.

``a{100000}`` is that size: it compiles in a fifth of a second and about
30 MB on the backtracking engine, and the linear-time engine refuses ten
times more. Nesting multiplies: ``(a{1000}){100}`` counts 100 000 too.
"""

# Group openings after ``(?``: non-capturing, lookaround, a named group, and
# ECMA-262 2025's modifiers (``(?i:...)``, ``(?-s:...)``).
_GROUP = re.compile(r"\?(?::|=|!|<=|<!|<(?:[^\W\d]|\$)[\w$]*>|[ims]*(?:-[ims]+)?:)")
_COUNTED = re.compile(r"\{(\d+)(,(\d*))?\}")
# Digits past this many make a count past any limit (and ``int`` refuses thousands).
_MAX_COUNT_DIGITS = 9
_SATURATED = MAX_PATTERN_REPETITIONS + 1


class NotEcma(ValueError):
    """A construct ECMA-262 does not have (the message names it)."""


@functools.lru_cache(maxsize=1024)
def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` must not reach an engine, in a few words; ``None`` if it may (cached)."""
    try:
        size = pattern_size(pattern)
    except NotEcma as error:
        return f"pattern {pattern!r:.120} is not ECMA-262: {error}"
    if size > MAX_PATTERN_REPETITIONS:
        return (
            f"pattern {pattern!r:.120} stands for more than {MAX_PATTERN_REPETITIONS:,} atoms "
            f"once its counted repetitions are written out (MAX_PATTERN_REPETITIONS)"
        )
    return None


def pattern_size(pattern: str) -> int:
    """How many atoms ``pattern`` stands for with every count written out, nesting multiplied.

    Saturates just past ``MAX_PATTERN_REPETITIONS``. Raises ``NotEcma`` for
    syntax ECMA-262 lacks.
    """
    return _Reader(pattern).size()


class _Reader:
    """One pass over a pattern: a stack of open groups, each with its size so far."""

    __slots__ = ("last", "pattern", "pos", "quantifiable", "repeated", "totals")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.totals = [0]  # per open group (the pattern itself first)
        self.last = 0  # the size of the atom a quantifier would repeat
        self.quantifiable = False
        self.repeated = False  # the last thing read was a quantifier

    def size(self) -> int:
        pattern = self.pattern
        while self.pos < len(pattern):
            char = pattern[self.pos]
            if char == "\\":
                self.escape()
            elif char == "[":
                self.char_class()
                self.atom(1)
            elif char == "(":
                self.open_group()
            elif char == ")" and len(self.totals) > 1:
                self.pos += 1
                inner = self.totals.pop()
                self.atom(max(inner, 1))
            elif char in "*+?":
                self.pos += 1
                self.repeat(1, char)
            elif char == "{" and (counted := _COUNTED.match(pattern, self.pos)):
                self.pos = counted.end()
                self.repeat(_count(counted), counted.group(0))
            elif char in "|^$":
                self.pos += 1
                self.assertion()
            else:
                self.pos += 1
                self.atom(1)
        return min(sum(self.totals), _SATURATED)

    def atom(self, size: int) -> None:
        self.totals[-1] = min(self.totals[-1] + size, _SATURATED)
        self.last, self.quantifiable, self.repeated = size, True, False

    def assertion(self) -> None:
        """``^``, ``$``, ``|``, ``\\b``: one node, and nothing a quantifier may repeat."""
        self.totals[-1] = min(self.totals[-1] + 1, _SATURATED)
        self.last, self.quantifiable, self.repeated = 0, False, False

    def repeat(self, count: int, spelled: str) -> None:
        if self.repeated:
            raise NotEcma(f"the quantifier {spelled!r} follows another (possessive or doubled)")
        if not self.quantifiable:
            raise NotEcma(f"the quantifier {spelled!r} repeats nothing")
        if self.pattern.startswith("?", self.pos):
            self.pos += 1  # lazy
        self.totals[-1] = min(self.totals[-1] + self.last * (count - 1), _SATURATED)
        self.last, self.quantifiable, self.repeated = 0, False, True

    def open_group(self) -> None:
        self.pos += 1
        if self.pattern.startswith("?", self.pos):
            opening = _GROUP.match(self.pattern, self.pos)
            if opening is None:
                spelled = self.pattern[self.pos - 1 : self.pos + 3]
                raise NotEcma(f"the group syntax {spelled!r}")
            self.pos = opening.end()
        self.totals.append(0)
        self.last, self.quantifiable, self.repeated = 0, False, False

    def escape(self) -> None:
        """An escape outside a class: an atom, or ``\\b``/``\\B`` (which repeat nothing)."""
        letter = self.escaped()
        if letter in ("b", "B"):
            self.assertion()
        else:
            self.atom(1)

    def escaped(self) -> str:
        """Read one escape (past its braces or name); the letter after the backslash."""
        pattern = self.pattern
        letter = pattern[self.pos + 1 : self.pos + 2]
        self.pos += 2
        if letter.isascii() and letter.isalpha() and letter not in LETTER_ESCAPES:
            raise NotEcma(f"the escape '\\{letter}'")
        closing = {"p": "}", "P": "}", "u": "}", "k": ">"}.get(letter)
        if closing is not None and pattern.startswith("{<"[closing == ">"], self.pos):
            end = pattern.find(closing, self.pos)
            escape = pattern[self.pos - 2 : end + 1]
            if letter in "pP" and end >= 0 and not _names_a_property(escape):
                raise NotEcma(f"{escape!r} names no Unicode property")
            self.pos = len(pattern) if end < 0 else end + 1
        return letter

    def char_class(self) -> None:
        pattern = self.pattern
        self.pos += 1
        if pattern.startswith("^", self.pos):
            self.pos += 1
        while self.pos < len(pattern):
            char = pattern[self.pos]
            if char == "]":
                self.pos += 1
                return
            if char == "\\":
                self.escaped()
                continue
            if char == "[" and pattern.startswith((":", "=", "."), self.pos + 1):
                raise NotEcma(f"the POSIX class syntax {pattern[self.pos : self.pos + 2]!r}")
            self.pos += 1


@functools.lru_cache(maxsize=256)
def _names_a_property(escape: str) -> bool:
    """Whether the validator's engine knows the property of ``escape`` (``\\p{Letter}``).

    Asked here, so that an unknown one is refused naming it, not as a pattern
    that "is not a regex"; the engine's answer keeps the refusal its own.
    """
    try:
        jsonschema_rs.validator_for({"pattern": escape}, validate_formats=False)
    except jsonschema_rs.ValidationError:
        return False
    return True


def _count(counted: re.Match[str]) -> int:
    """A counted quantifier's largest count (its lower one when unbounded above)."""
    low, high = counted.group(1), counted.group(3)
    largest = max(low.lstrip("0"), (high or low).lstrip("0"), key=lambda d: (len(d), d))
    if len(largest) > _MAX_COUNT_DIGITS:
        return _SATURATED
    return max(int(largest or "0"), 1)
