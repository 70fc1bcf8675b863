"""ECMA-262 patterns the linear-time engine cannot run: lookaround and backreferences.

jsonschema-rs matches patterns with the ``regex`` crate, in linear time, and
rejects what that crate cannot express. Those patterns are still valid
ECMA-262, so they run on the backtracking ``regex`` package instead, with a
time budget per match (``Tool.regex_timeout``): a match that takes longer
fails the input, naming the pattern, instead of hanging the event loop.
"""

from __future__ import annotations

from typing import Any

import regex

from ._schema import CLASS_ESCAPES, EMPTY_CLASS, FULL_CLASS, NOT_LINE_TERMINATOR, WORD_BOUNDARIES

__all__ = ["DEFAULT_REGEX_TIMEOUT", "KEYWORD", "TIMED_OUT", "backtracking_keyword", "compile_ecma"]

# Like the Ruby original's Regexp.timeout.
DEFAULT_REGEX_TIMEOUT = 0.05
# The schema keyword a backtracking ``pattern`` is renamed to before compiling.
KEYWORD = "x-littleghost-backtracking-pattern"
TIMED_OUT = "timed out"


def compile_ecma(pattern: str) -> Any:
    """``pattern`` compiled with ECMA-262 meaning; raises ``regex.error`` if invalid.

    ``\\d``, ``\\w``, ``\\b`` are ASCII, ``\\s`` is ECMA's whitespace, ``.``
    excludes line terminators, ``$`` matches only at the end, and
    ``\\k<name>`` is a named backreference.
    """
    return regex.compile(_translate(pattern), regex.VERSION0)


def _translate(pattern: str) -> str:
    """``pattern`` for the ``regex`` package, which without flags reads classes as Unicode.

    Not the strategies' translation: this one must match exactly, lookaround
    and ``\\k<name>`` included (see ``_schema._ecma`` for why each engine has its own).
    """
    out: list[str] = []
    in_class, i = False, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            letter = pattern[i + 1]
            if letter.lower() in CLASS_ESCAPES:
                body = CLASS_ESCAPES[letter.lower()]
                negated = letter.isupper()
                if in_class and not negated:
                    out.append(body)
                elif in_class:
                    out.append(f"\\{letter}")  # a negated class inside a class: kept as is
                else:
                    out.append(f"[{'^' if negated else ''}{body}]")
            elif letter in "bB" and not in_class:
                out.append(WORD_BOUNDARIES[letter])
            elif letter == "k" and pattern.startswith("<", i + 2):
                end = pattern.index(">", i + 2)
                out.append(f"(?P={pattern[i + 3 : end]})")
                i = end + 1
                continue
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            # ECMA's ``[^]`` matches anything and ``[]`` nothing.
            if pattern.startswith("[^]", i):
                out.append(FULL_CLASS)
                i += 3
                in_class = False
                continue
            if pattern.startswith("[]", i):
                out.append(EMPTY_CLASS)
                i += 2
                in_class = False
                continue
        elif char == ".":
            out.append(NOT_LINE_TERMINATOR)
            i += 1
            continue
        elif char == "$":
            out.append("\\Z")
            i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


def backtracking_keyword(timeout: float) -> type:
    """A jsonschema-rs custom keyword matching one pattern within ``timeout`` seconds."""

    class BacktrackingPattern:
        __slots__ = ("_compiled", "_pattern", "_timed_out")

        def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
            self._pattern = value
            self._compiled = compile_ecma(value)
            # The string that just ran out of time: reporting why the input is invalid
            # validates it once more, which must not spend the budget twice.
            self._timed_out: str | None = None

        def validate(self, instance: Any) -> None:
            if not isinstance(instance, str):
                return
            if instance is self._timed_out:
                self._timed_out = None  # answered once from memory, then matched afresh
                raise ValueError(f"{TIMED_OUT}: {self._pattern}")
            try:
                found = self._compiled.search(instance, timeout=timeout)
            except TimeoutError:
                self._timed_out = instance
                raise ValueError(f"{TIMED_OUT}: {self._pattern}") from None
            if found is None:
                raise ValueError(f"no match: {self._pattern}")

    return BacktrackingPattern
