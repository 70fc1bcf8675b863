"""``Redactor``: the secrets littleghost sent, hidden by value in whatever comes back.

A server, a proxy or an error page may quote what it received -- a header, an
environment variable, a URL's query -- in an error message or a result. Text
patterns cannot tell such a value from any other word; littleghost does not
need them to, because it knows every secret it sent. A ``Redactor`` holds
those values and the spellings a server is likely to echo them in (raw,
JSON- and ``repr``-escaped, URL-encoded, HTML-escaped, base64, also inside
the base64 of a longer text), and replaces each occurrence with ``[redacted]``.

A value shorter than ``MIN_SECRET_CHARS`` is not a secret to hide: replacing
``"on"`` or ``"8080"`` everywhere would garble every answer, and a credential
that short is not one.
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = ["MAX_REDACTED_CHAIN", "MIN_SECRET_CHARS", "REDACTED", "Redactor"]

MIN_SECRET_CHARS = 8
"""A sent value (or spelling of one) shorter than this is never redacted."""

REDACTED = "[redacted]"

MAX_REDACTED_CHAIN = 32
"""How many exceptions of a ``__cause__``/``__context__`` chain ``exception()`` scrubs."""


_LOWER_HEX = re.compile(r"%[0-9A-F]{2}")
"""A percent-escape, which some servers write in lower case (``%2f``)."""


class Redactor:
    """Hides every spelling of the given secrets; empty (and free) when given none."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = frozenset(s for s in secrets if len(s) >= MIN_SECRET_CHARS)
        forms = {form for secret in self.secrets for form in _spellings(secret)}
        forms = {form for form in forms if len(form) >= MIN_SECRET_CHARS}
        # Longest first: a secret that contains another is replaced whole.
        ordered = sorted(forms, key=lambda form: (-len(form), form))
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """``text`` with every spelling of every secret replaced by ``[redacted]``."""
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

    def json(self, value: Any) -> Any:
        """A copy of a JSON value (dicts, lists, strings) with every string redacted, keys too."""
        if self._pattern is None:
            return value
        return _walk(value, self.text)

    def exception(self, error: BaseException) -> None:
        """Redact, in place, the messages of ``error`` and of its causes and contexts.

        A traceback prints the whole chain, and the first exception of it may
        be the SDK's or httpx's, quoting a URL with its query.
        """
        if self._pattern is None:
            return
        seen: set[int] = set()
        pending: list[BaseException] = [error]
        while pending and len(seen) < MAX_REDACTED_CHAIN:
            current = pending.pop()
            if id(current) not in seen:
                seen.add(id(current))
                self._scrub(current)
                if isinstance(current, BaseExceptionGroup):
                    pending.extend(current.exceptions)
                pending.extend(e for e in (current.__cause__, current.__context__) if e)

    def _scrub(self, error: BaseException) -> None:
        """One exception's arguments, notes and the text attributes errors keep."""
        error.args = tuple(self.json(arg) for arg in error.args)
        for name in ("server_message", "message", "data", "filename"):
            if isinstance(getattr(error, name, None), str | dict | list):
                with contextlib.suppress(AttributeError):  # a read-only property
                    setattr(error, name, self.json(getattr(error, name)))
        notes = getattr(error, "__notes__", None)
        if isinstance(notes, list):
            error.__notes__ = [self.json(note) for note in notes]  # pyright: ignore[reportUnknownVariableType]


def _spellings(secret: str) -> set[str]:
    """``secret`` as a server may echo it: raw, escaped, URL-encoded (either case), base64."""
    raw = secret.encode("utf-8", "surrogatepass")
    encoded = {
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
    }
    percent = quote(secret, safe="")
    return {
        secret,
        percent,
        _LOWER_HEX.sub(lambda escape: escape.group().lower(), percent),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        quote(secret),
        quote_plus(secret),
        html.escape(secret),
        *encoded,
        *(form.rstrip("=") for form in encoded),
        *_base64_inside(raw),
    }


def _base64_inside(raw: bytes) -> set[str]:
    """``raw`` in the base64 of a longer text (a whole request line, say), at each offset.

    Base64 turns 3 bytes into 4 characters, so ``raw`` has three spellings
    inside a longer text, one per byte offset; the characters at its edges
    mix in its neighbours' bits, so only those made of its own bits are kept.
    """
    forms = set()
    for offset in range(3):
        bits = 8 * (offset + len(raw))
        first, last = -(-8 * offset // 6), bits // 6
        padded = bytes(offset) + raw
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(padded).decode()[first:last])
    return forms


def _walk(value: Any, text: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {_walk(key, text): _walk(item, text) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_walk(item, text) for item in value]  # pyright: ignore[reportUnknownVariableType]
    return value
