"""Translate ECMA-262 regular expressions into Python ``re`` syntax for generation.

Hypothesis generates strings from Python patterns, but JSON Schema patterns are
ECMA-262: ``\\d`` is ASCII, ``.`` stops at line terminators, ``$`` never matches
before a trailing newline. Spelling every class out explicitly, from the tables
the validator's backtracking engine spells them from (``littleghost._schema``),
keeps the two in agreement; the validator's own regex engine still has the
final word. Python's ``re`` has no ``\\p{...}`` and cannot generate lookaround,
which is why this translation is not the validator's.

Lookarounds are zero-width: most are dropped from the generator and enforced
by that final match (with ASCII-biased wildcards, so a password-style
``(?=.*[A-Z])(?=.*\\d)`` is met often enough). Backreferences become Python's,
and ``\\p{...}`` classes are computed with the ``regex`` package.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from array import array
from dataclasses import dataclass

from littleghost._schema import (
    CLASS_ESCAPES,
    CONTROL_ESCAPES,
    EMPTY_CLASS,
    FULL_CLASS,
    NOT_LINE_TERMINATOR,
)

from ._errors import SchemaError, Unsupported

__all__ = ["MAX_GROUP_DEPTH", "Piece", "Spans", "Translation", "translate"]

_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_MODIFIERS = re.compile(r"\?[ims]*(?:-[ims]+)?:")
_LOOKAROUND = ("?=", "?!", "?<=", "?<!")
# Printable ASCII offered next to a wide class when lookarounds filter the result.
_ASCII_BIAS = "[\\x20-\\x7e]"
_MAX_CODE_POINT = 0x10FFFF
# Groups nested deeper than this are not translated (the translator recurses per group).
MAX_GROUP_DEPTH = 100

Spans = tuple[tuple[int, int], ...]
"""Inclusive runs of code points, in order: the characters of a ``\\p{...}`` escape."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One top-level atom matching exactly one character, repeated ``low..high`` times."""

    atom: str
    low: int
    high: float
    # The atom's characters when it is a ``\\p{...}`` escape: Hypothesis's ``from_regex``
    # lists a class character by character, over a second for ``\\p{Letter}``.
    spans: Spans | None = None


@dataclass(frozen=True, slots=True)
class Translation:
    """The Python source, plus its shape when the pattern is a plain anchored sequence."""

    source: str
    pieces: tuple[Piece, ...] | None
    # Lookaround or backreferences: the source only approximates the pattern.
    approximate: bool = False


def translate(pattern: str) -> Translation:
    """Translate ``pattern``; raise ``SchemaError`` for constructs we cannot generate."""
    return _Translator(pattern).run()


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.depth = 0
        # Top-level shape tracking: None once the pattern is not a simple sequence.
        self.pieces: list[Piece] | None = []
        # The sequence terms are added to: the top level's, or the body of the group being
        # read (None once that body is not a plain sequence: it then cannot be inlined).
        self.sequence: list[Piece] | None = self.pieces
        # The pieces of the group just read, when its body is a plain sequence.
        self.inner: list[Piece] | None = None
        self.anchored_start = False
        self.anchored_end = False
        self.biased = any("(" + look in pattern for look in _LOOKAROUND)
        self.approximate = False
        # The code points of the atom just read, when it is a bare ``\\p{...}``.
        self.spans: Spans | None = None

    def fail(self, what: str) -> SchemaError:
        return Unsupported(f"pattern {self.pattern!r}: {what} cannot be generated")

    def run(self) -> Translation:
        out: list[str] = []
        while self.pos < len(self.pattern):
            out.append(self.term())
        shaped = self.pieces is not None and self.anchored_start and self.anchored_end
        pieces = tuple(self.pieces) if shaped and self.pieces else None
        return Translation("".join(out), pieces, self.approximate)

    def unshaped(self) -> None:
        self.pieces = None
        self.sequence = None

    def term(self) -> str:
        char = self.pattern[self.pos]
        top = self.depth == 0
        if char == "|":
            self.pos += 1
            if top:
                self.unshaped()
            self.sequence = None  # a group of alternatives is no sequence
            return "|"
        if char == "^":
            self.pos += 1
            if top and self.pos == 1:
                self.anchored_start = True
            else:
                self.unshaped()
            return "^"
        if char == "$":
            self.pos += 1
            if top and self.pos == len(self.pattern):
                self.anchored_end = True
            else:
                self.unshaped()
            return r"\Z"
        self.spans = None
        self.inner = None
        atom, width_one = self.atom()
        spans, inner = self.spans, self.inner
        low, high, source = self.quantifier()
        if self.sequence is not None:
            if width_one:
                self.sequence.append(Piece(atom, low, high, spans))
            elif inner is not None and low == high == 1:
                self.sequence += inner  # `(?:[a-z]*)`: its pieces stand in its place
            elif inner is not None and len(inner) == 1 and inner[0].low == inner[0].high == 1:
                self.sequence.append(Piece(inner[0].atom, low, high, inner[0].spans))
            elif top:
                self.unshaped()
            else:
                self.sequence = None
        return atom + source

    def quantifier(self) -> tuple[int, float, str]:
        rest = self.pattern[self.pos :]
        if rest[:1] in ("*", "+", "?"):
            low, high = {"*": (0, math.inf), "+": (1, math.inf), "?": (0, 1)}[rest[0]]
            self.pos += 1
            source = rest[0]
        elif match := _QUANTIFIER.match(rest):
            low = int(match.group(1))
            if match.group(2) is None:
                high: float = low
            else:
                high = int(match.group(3)) if match.group(3) else math.inf
            if high < low:
                raise self.fail(f"quantifier {match.group(0)}")
            self.pos += match.end()
            source = match.group(0)
        else:
            return 1, 1, ""
        if self.pattern.startswith("?", self.pos):
            self.pos += 1  # lazy: the same language
        following = self.pattern[self.pos : self.pos + 1]
        if following in ("*", "+", "?") or _QUANTIFIER.match(self.pattern, self.pos):
            raise self.fail("a repeated quantifier")
        return low, high, source

    def atom(self) -> tuple[str, bool]:
        """Return the translated atom and whether it always matches exactly one character."""
        char = self.pattern[self.pos]
        self.pos += 1
        if char == ".":
            return self.wide(NOT_LINE_TERMINATOR), True
        if char == "[":
            negated = self.pattern.startswith("^", self.pos)
            source = self.char_class()
            return (self.wide(source) if negated else source), True
        if char == "(":
            return self.group(), False
        if char == "\\":
            return self.escape(in_class=False)
        if char in "*+?":
            raise self.fail(f"a quantifier {char!r} with nothing to repeat")
        if char == ")":
            raise self.fail("an unbalanced ')'")
        if char == "{" and _QUANTIFIER.match(self.pattern, self.pos - 1):
            raise self.fail("a quantifier with nothing to repeat")
        return re.escape(char), True

    def wide(self, source: str) -> str:
        """A class of most of Unicode, offered printable ASCII too when lookarounds filter."""
        return f"(?:{_ASCII_BIAS}|{source})" if self.biased else source

    def group(self) -> str:
        rest = self.pattern[self.pos :]
        look = next((look for look in _LOOKAROUND if rest.startswith(look)), None)
        if rest.startswith("?:"):
            self.pos += 2
            prefix = "(?:"
        elif look is not None:
            self.pos += len(look)
            if self.depth >= MAX_GROUP_DEPTH:
                raise self.fail(f"groups nested more than {MAX_GROUP_DEPTH} deep (MAX_GROUP_DEPTH)")
            self.depth += 1
            body = self.body()
            self.depth -= 1
            self.unshaped()
            self.approximate = True
            # What a positive lookbehind (or a trailing lookahead) sees can be generated
            # where it stands; any other lookaround is left to the final match.
            if look == "?<=" or (look == "?=" and self.pos == len(self.pattern)):
                return f"(?:{body})"
            return ""
        elif rest.startswith("?<"):
            end = rest.find(">")
            if end < 0:
                raise self.fail("an unterminated group name")
            prefix = f"(?P<{rest[2:end]}>"
            self.pos += end + 1
        elif modifiers := _MODIFIERS.match(rest):
            # ECMA-262 2025's ``(?i:...)``: Python spells it alike. ``s`` and ``m`` change
            # what ``.``, ``^`` and ``$`` match, which the translation spells out: approximate.
            self.pos += modifiers.end()
            prefix = f"({modifiers.group(0)}"
            self.approximate = self.approximate or bool(set(modifiers.group(0)) & set("ms"))
        elif rest.startswith("?"):
            raise self.fail(f"the group syntax '(?{rest[1:2]}'")
        else:
            prefix = "("
        if self.depth >= MAX_GROUP_DEPTH:
            raise self.fail(f"groups nested more than {MAX_GROUP_DEPTH} deep (MAX_GROUP_DEPTH)")
        outer, self.sequence = self.sequence, []
        self.depth += 1
        body = self.body()
        self.depth -= 1
        # A modifier group's atoms mean something else outside it (``(?i:a)``).
        plain = prefix in ("(", "(?:") or prefix.startswith("(?P<")
        self.inner = self.sequence if plain else None
        self.sequence = outer
        return prefix + body + ")"

    def body(self) -> str:
        """A group's contents up to and past its closing parenthesis."""
        body: list[str] = []
        while self.pos < len(self.pattern) and self.pattern[self.pos] != ")":
            body.append(self.term())
        if self.pos >= len(self.pattern):
            raise self.fail("an unterminated group")
        self.pos += 1
        return "".join(body)

    def char_class(self) -> str:
        negated = self.pattern.startswith("^", self.pos)
        if negated:
            self.pos += 1
        items: list[str] = []
        while True:
            if self.pos >= len(self.pattern):
                raise self.fail("an unterminated character class")
            char = self.pattern[self.pos]
            self.pos += 1
            if char == "]":
                break
            if char == "\\":
                items.append(self.escape(in_class=True)[0])
            elif char in "[]&~|^\\":
                items.append("\\" + char)
            elif char == "-" and (not items or self.pattern.startswith("]", self.pos)):
                items.append("\\-")
            else:
                items.append(char)
        if not items:
            # ECMA: [] matches nothing, [^] matches any character.
            return FULL_CLASS if negated else EMPTY_CLASS
        return ("[^" if negated else "[") + "".join(items) + "]"

    def escape(self, *, in_class: bool) -> tuple[str, bool]:
        if self.pos >= len(self.pattern):
            raise self.fail("a trailing backslash")
        char = self.pattern[self.pos]
        self.pos += 1
        if char in CLASS_ESCAPES:
            body = CLASS_ESCAPES[char]
            return (body if in_class else f"[{body}]"), True
        if char.lower() in CLASS_ESCAPES:
            if in_class:
                # Under re.ASCII, \D and \W equal ECMA's; \S is wider (it admits the
                # non-ASCII spaces), and the validator's check drops those rare draws.
                return "\\" + char, True
            return f"[^{CLASS_ESCAPES[char.lower()]}]", True
        if char in CONTROL_ESCAPES:
            return CONTROL_ESCAPES[char], True
        if char in "bB":
            if in_class:
                return ("\\x08" if char == "b" else "B"), True
            self.unshaped()
            return "\\" + char, False
        if char == "0" and not self.pattern[self.pos : self.pos + 1].isdigit():
            return "\\x00", True
        if char.isdigit() or (char == "k" and self.pattern.startswith("<", self.pos)):
            return self.backreference(char), False
        return self.character_escape(char, in_class=in_class), True

    def character_escape(self, char: str, *, in_class: bool) -> str:
        """``\\cX``, ``\\xHH``, ``\\uHHHH``, ``\\u{H...}``, ``\\p{...}`` or an escaped
        punctuation character, as Python spells it."""
        if char == "c":
            letter = self.pattern[self.pos : self.pos + 1]
            if letter.isascii() and letter.isalpha():
                self.pos += 1
                return f"\\x{ord(letter) % 32:02x}"
            return "\\\\c"
        if char == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", self.pattern[self.pos : self.pos + 2]):
            self.pos += 2
            return "\\x" + self.pattern[self.pos - 2 : self.pos]
        if char == "u" and (
            braced := re.match(r"\{([0-9A-Fa-f]{1,6})\}", self.pattern[self.pos :])
        ):
            self.pos += braced.end()
            return f"\\U{int(braced.group(1), 16):08x}"
        if char == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", self.pattern[self.pos : self.pos + 4]):
            self.pos += 4
            return "\\u" + self.pattern[self.pos - 4 : self.pos]
        if char in "pP" and self.pattern.startswith("{", self.pos):
            end = self.pattern.find("}", self.pos)
            name = self.pattern[self.pos + 1 : end] if end > 0 else ""
            self.pos = end + 1
            spans = property_spans(name, negated=char == "P")
            if not spans:
                raise self.fail(f"the property escape \\{char}{{{name}}}")
            ranges = "".join(_class_range(first, last) for first, last in spans)
            if in_class:
                return ranges
            self.spans = spans
            return f"[{ranges}]"
        if char.isascii() and char.isalnum():
            raise self.fail(f"the escape \\{char}")
        return re.escape(char)

    def backreference(self, char: str) -> str:
        """``\\1`` or ``\\k<name>``, as Python spells it (groups are numbered alike)."""
        self.unshaped()
        self.approximate = True
        if char == "k":
            end = self.pattern.find(">", self.pos)
            if end < 0:
                raise self.fail("an unterminated group name")
            name = self.pattern[self.pos + 1 : end]
            self.pos = end + 1
            return f"(?P={name})"
        digits = re.match(r"\d*", self.pattern[self.pos :])
        number = char + (digits.group(0) if digits else "")
        self.pos += len(number) - 1
        return f"(?:\\{number})"


@functools.cache
def _every_character() -> str:
    """Every code point but the surrogates, in order (built once, on first use)."""
    points = array("I", range(0xD800)) + array("I", range(0xE000, _MAX_CODE_POINT + 1))
    return points.tobytes().decode(f"utf-32-{sys.byteorder[0]}e")


@functools.lru_cache(maxsize=64)
def property_spans(name: str, *, negated: bool) -> Spans:
    """The code points of ``\\p{name}`` (or ``\\P``), surrogates left out; empty if unknown."""
    import regex  # a dependency of littleghost: the engine for patterns jsonschema-rs cannot run

    try:
        compiled = regex.compile(("\\P{%s}" if negated else "\\p{%s}") % name + "+")
    except regex.error:
        return ()
    out: list[tuple[int, int]] = []
    for match in compiled.finditer(_every_character()):
        first, last = _code_point(match.start()), _code_point(match.end() - 1)
        if first < 0xD800 < last:  # a run across the surrogates: two spans
            out += [(first, 0xD7FF), (0xE000, last)]
        else:
            out.append((first, last))
    return tuple(out)


def _code_point(index: int) -> int:
    return index if index < 0xD800 else index + 0x800


def _class_range(first: int, last: int) -> str:
    return f"\\U{first:08x}" if first == last else f"\\U{first:08x}-\\U{last:08x}"
