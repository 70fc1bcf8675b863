"""Text a user copies: JSON with every invisible character escaped, and shell command lines.

A fuzzed input holds control characters, bidirectional overrides, lone
surrogates: printed raw, they garble the terminal or cannot be encoded, and a
copied input no longer reproduces. Inside JSON strings they are written as
``\\uXXXX`` escapes, which decode to the same value.
"""

from __future__ import annotations

import json
import re
import shlex
import unicodedata
from collections.abc import Sequence
from typing import Any

__all__ = ["command_line", "json_text", "plural", "shell_word", "visible", "xml_text"]

#: Past this width a command line is continued with backslashes, one word group a line.
COMMAND_WIDTH = 100
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NON_ASCII = re.compile(r"[^\x20-\x7e\n]")  # json.dumps escapes the \n in strings
# What XML 1.0 cannot carry (control characters, surrogates, U+FFFE and U+FFFF):
# fuzzed inputs and tool names may hold any of them, and ElementTree would write them verbatim.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON, readable characters kept and invisible ones escaped."""
    separators = None if indent is not None else (",", ":")
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators)
    return _NON_ASCII.sub(_escape_invisible, text)


def _escape_invisible(match: re.Match[str]) -> str:
    character = match.group()
    if unicodedata.category(character) not in _INVISIBLE_CATEGORIES:
        return character
    return json.dumps(character)[1:-1]  # \\u escapes, surrogate pairs for astral characters


def visible(text: str) -> str:
    """Free text (a server's message, a JSON path) with invisible characters escaped."""
    return _NON_ASCII.sub(_escape_invisible, text.replace("\n", "\\n"))


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids written as a ``\\uXXXX`` escape."""
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def shell_word(word: str) -> str:
    """``word`` quoted for a POSIX shell; ``$'...'`` (bash, zsh) when it holds invisible text.

    Inside ``'...'`` a control character would reach the terminal raw and a
    newline would split the line, so such a word is written with escapes.
    """
    if not any(unicodedata.category(character) in _INVISIBLE_CATEGORIES for character in word):
        return shlex.quote(word)
    return "$'" + "".join(map(_ansi_c, word)) + "'"


def _ansi_c(character: str) -> str:
    if character in "\\'":
        return "\\" + character
    if unicodedata.category(character) not in _INVISIBLE_CATEGORIES:
        return character
    code = ord(character)
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def command_line(words: Sequence[str], *, groups: Sequence[int] = ()) -> str:
    """``words`` shell-quoted on one line, or backslash-continued at ``groups`` when too long.

    ``groups`` are word indexes where a continuation line may start; nothing is
    ever wrapped inside a word, so every line pastes back as the same command.
    """
    quoted = [shell_word(word) for word in words]
    single = " ".join(quoted)
    if len(single) <= COMMAND_WIDTH or not groups:
        return single
    lines: list[str] = []
    start = 0
    for end in [*sorted(set(groups)), len(quoted)]:
        if end > start:
            lines.append(" ".join(quoted[start:end]))
            start = end
    return " \\\n    ".join(lines)


def plural(count: int, noun: str) -> str:
    """``1 warning``, ``2 warnings``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
