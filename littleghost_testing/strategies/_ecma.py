"""Translate ECMA-262 regular expressions into Python ``re`` syntax for generation.

Hypothesis generates strings from Python patterns, but JSON Schema patterns are
ECMA-262: ``\\d`` is ASCII, ``.`` stops at line terminators, ``$`` never matches
before a trailing newline. Spelling every class out explicitly keeps the two in
agreement; the validator's own regex engine still has the final word.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ._errors import SchemaError

__all__ = ["Piece", "Translation", "translate"]

# ECMA-262 WhiteSpace and LineTerminator code points (what \s matches).
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_CLASS_ESCAPES = {"d": "0-9", "w": "A-Za-z0-9_", "s": _SPACE}
# Subsets of Unicode properties: generating from a subset is always valid.
_PROPERTY_SUBSETS = {
    "L": "A-Za-z",
    "Letter": "A-Za-z",
    "Lu": "A-Z",
    "Ll": "a-z",
    "N": "0-9",
    "Nd": "0-9",
    "Number": "0-9",
}
_CONTROL_ESCAPES = {"t": "\\t", "n": "\\n", "v": "\\x0b", "f": "\\x0c", "r": "\\r"}
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")


@dataclass(frozen=True, slots=True)
class Piece:
    """One top-level atom matching exactly one character, repeated ``low..high`` times."""

    atom: str
    low: int
    high: float


@dataclass(frozen=True, slots=True)
class Translation:
    """The Python source, plus its shape when the pattern is a plain anchored sequence."""

    source: str
    pieces: tuple[Piece, ...] | None


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
        self.anchored_start = False
        self.anchored_end = False

    def fail(self, what: str) -> SchemaError:
        return SchemaError(f"pattern {self.pattern!r}: {what} cannot be generated")

    def run(self) -> Translation:
        out: list[str] = []
        while self.pos < len(self.pattern):
            out.append(self.term())
        shaped = self.pieces is not None and self.anchored_start and self.anchored_end
        return Translation("".join(out), tuple(self.pieces) if shaped and self.pieces else None)

    def unshaped(self) -> None:
        self.pieces = None

    def term(self) -> str:
        char = self.pattern[self.pos]
        top = self.depth == 0
        if char == "|":
            self.pos += 1
            self.unshaped()
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
        atom, width_one = self.atom()
        low, high, source = self.quantifier()
        if top and self.pieces is not None:
            if width_one:
                self.pieces.append(Piece(atom, low, high))
            else:
                self.unshaped()
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
            return "[^\\n\\r\\u2028\\u2029]", True
        if char == "[":
            return self.char_class(), True
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

    def group(self) -> str:
        rest = self.pattern[self.pos :]
        if rest.startswith("?:"):
            self.pos += 2
            prefix = "(?:"
        elif rest.startswith(("?=", "?!", "?<=", "?<!")):
            raise self.fail("lookaround")
        elif rest.startswith("?<"):
            end = rest.find(">")
            if end < 0:
                raise self.fail("an unterminated group name")
            prefix = f"(?P<{rest[2:end]}>"
            self.pos += end + 1
        elif rest.startswith("?"):
            raise self.fail(f"the group syntax '(?{rest[1:2]}'")
        else:
            prefix = "("
        self.depth += 1
        body: list[str] = []
        while self.pos < len(self.pattern) and self.pattern[self.pos] != ")":
            body.append(self.term())
        if self.pos >= len(self.pattern):
            raise self.fail("an unterminated group")
        self.pos += 1
        self.depth -= 1
        return prefix + "".join(body) + ")"

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
            return "[\\s\\S]" if negated else "(?!)"
        return ("[^" if negated else "[") + "".join(items) + "]"

    def escape(self, *, in_class: bool) -> tuple[str, bool]:
        if self.pos >= len(self.pattern):
            raise self.fail("a trailing backslash")
        char = self.pattern[self.pos]
        self.pos += 1
        if char in _CLASS_ESCAPES:
            body = _CLASS_ESCAPES[char]
            return (body if in_class else f"[{body}]"), True
        if char.lower() in _CLASS_ESCAPES:
            if in_class:
                # Under re.ASCII, \D and \W equal ECMA's; \S is wider (it admits the
                # non-ASCII spaces), and the validator's check drops those rare draws.
                return "\\" + char, True
            return f"[^{_CLASS_ESCAPES[char.lower()]}]", True
        if char in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[char], True
        if char in "bB":
            if in_class:
                return ("\\x08" if char == "b" else "B"), True
            self.unshaped()
            return "\\" + char, False
        if char == "0" and not self.pattern[self.pos : self.pos + 1].isdigit():
            return "\\x00", True
        if char.isdigit() or char == "k":
            raise self.fail("a backreference")
        if char == "c":
            letter = self.pattern[self.pos : self.pos + 1]
            if letter.isascii() and letter.isalpha():
                self.pos += 1
                return f"\\x{ord(letter) % 32:02x}", True
            return "\\\\c", True
        if char == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", self.pattern[self.pos : self.pos + 2]):
            self.pos += 2
            return "\\x" + self.pattern[self.pos - 2 : self.pos], True
        if char == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", self.pattern[self.pos : self.pos + 4]):
            self.pos += 4
            return "\\u" + self.pattern[self.pos - 4 : self.pos], True
        if char in "pP" and self.pattern.startswith("{", self.pos):
            end = self.pattern.find("}", self.pos)
            name = self.pattern[self.pos + 1 : end] if end > 0 else ""
            subset = _PROPERTY_SUBSETS.get(name.removeprefix("General_Category="))
            if char == "P" or subset is None:
                raise self.fail(f"the property escape \\{char}{{{name}}}")
            self.pos = end + 1
            return (subset if in_class else f"[{subset}]"), True
        if char.isascii() and char.isalnum():
            raise self.fail(f"the escape \\{char}")
        return re.escape(char), True
