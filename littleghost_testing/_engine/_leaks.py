"""Spotting error text that tells a caller more than it should: stack frames and credentials.

littleghost promises its own tools never show a caller their traceback or
secrets; ``leaked_detail`` applies that promise to any error text, so the
fuzzing engine and the pytest contract checks judge servers by one rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_SCANNED_CHARS", "Leak", "find_credential", "find_leak", "leaked_detail", "redact"]

MAX_SCANNED_CHARS = 64 * 1024
"""Only the first 64 KiB of an error text are scanned: enough for any traceback's head."""

_SHOWN_CHARS = 60
"""A stack frame is quoted up to this many characters; a credential is never quoted whole."""

_FRAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a Python stack trace", re.compile(r"Traceback \(most recent call last\)")),
    ("a Python stack frame", re.compile(r'File "[^"\n]+", line \d+')),
    (
        "a Java stack frame",
        re.compile(
            r"\bat [\w$]+(?:\.[\w$<>]+)+\((?:[\w$]+\.java:\d+|Native Method|Unknown Source)\)"
        ),
    ),
    (
        "a JavaScript stack frame",
        re.compile(
            r"\bat (?:async )?(?:\S+ \()?(?:file://)?[^\s():]+\.(?:[cm]?js|tsx?|jsx):\d+:\d+"
        ),
    ),
    ("a Node.js stack frame", re.compile(r"\bat (?:\S+ \()?node:[\w/]+:\d+:\d+")),
    ("a Go stack trace", re.compile(r"goroutine \d+ \[[\w ,]+\]:")),
    ("a Go stack frame", re.compile(r"\S+\.go:\d+ \+0x[0-9a-f]+")),
)
_CREDENTIALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a URL with a user and password",
        re.compile(r"\b[a-zA-Z][\w+.-]*://[^/\s:@]+:[^/\s@]+@[^\s/]+"),
    ),
    (
        "a password",
        re.compile(r"\b(?:password|passwd|pwd|client_secret)=[^\s&'\";,]+", re.IGNORECASE),
    ),
    ("a bearer token", re.compile(r"\bBearer\s+[A-Za-z0-9\-._~+/]{16,}=*", re.IGNORECASE)),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z\-_]{35}\b")),
    ("a GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
)


@dataclass(frozen=True, slots=True)
class Leak:
    """What leaked (``a Python stack frame``), the matched text, and a safe way to show it."""

    what: str
    text: str
    shown: str

    def describe(self) -> str:
        return f"{self.what} ({self.shown})"


def find_leak(text: str) -> Leak | None:
    """The first stack frame or credential in ``text``, or ``None``."""
    head = text[:MAX_SCANNED_CHARS]
    for what, pattern in _FRAMES:
        match = pattern.search(head)
        if match is not None:
            found = match.group()
            return Leak(what, found, found[:_SHOWN_CHARS])
    return find_credential(head)


def find_credential(text: str) -> Leak | None:
    """The first credential in ``text`` (a password, a token, a URL's userinfo), or ``None``."""
    head = text[:MAX_SCANNED_CHARS]
    for what, pattern in _CREDENTIALS:
        match = pattern.search(head)
        if match is not None:
            found = match.group()
            return Leak(what, found, _redacted(found))
    return None


def redact(text: str) -> str:
    """``text`` with every credential ``find_credential`` knows cut to its first characters."""
    for _, pattern in _CREDENTIALS:
        text = pattern.sub(lambda match: _redacted(match.group()), text)
    return text


def leaked_detail(text: str) -> str | None:
    """What ``text`` leaks, in a few words with a redacted quote, or ``None``.

    >>> leaked_detail('File "/srv/app.py", line 3, in handler')
    'a Python stack frame (File "/srv/app.py", line 3)'
    """
    leak = find_leak(text)
    return None if leak is None else leak.describe()


def _redacted(secret: str) -> str:
    """The first few characters only: a report must not carry the credential it found."""
    keep = min(8, len(secret) // 3)
    return f"{secret[:keep]}... ({len(secret)} characters)"
