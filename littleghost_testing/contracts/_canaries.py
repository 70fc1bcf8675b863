"""Canary exceptions: failures the sanitization check injects, each carrying a unique secret.

Most tools never fail on generated inputs, so waiting for a real failure
proves nothing about what an overridden ``execute`` or ``map_result`` does
with one. A canary is raised from ``call`` itself, and its secret hides in
every place exception text can come from: the message, a ``KeyError``'s key,
an ``OSError``'s filename, an exception group's member, the ``__cause__`` and
``__context__`` chain, ``__notes__`` and a custom ``__str__``. If the secret
reaches the content, the exception's text leaked.
"""

from __future__ import annotations

import errno
import secrets
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Canary", "canaries"]


@dataclass(frozen=True, slots=True)
class Canary:
    """One injected failure: what kind it is, the exception, and the text that must not leak."""

    kind: str
    error: Exception
    secret: str


class _CustomStrError(Exception):
    """An exception whose text comes from ``__str__`` only, not from its arguments."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def __str__(self) -> str:
        return self.text


def _caused(secret: str) -> Exception:
    error = RuntimeError("the lookup failed")
    error.__cause__ = ValueError(f"token={secret}")
    return error


def _in_context(secret: str) -> Exception:
    error = RuntimeError("the lookup failed")
    error.__context__ = KeyError(secret)
    return error


def _noted(secret: str) -> Exception:
    error = RuntimeError("the lookup failed")
    error.add_note(f"while reading row {secret}")
    return error


_BUILDERS: dict[str, Callable[[str], Exception]] = {
    "RuntimeError": lambda secret: RuntimeError(f"database password is {secret}"),
    "KeyError": lambda secret: KeyError(secret),
    "OSError with a filename": lambda secret: OSError(
        errno.ENOENT, "No such file or directory", f"/srv/{secret}.db"
    ),
    "ExceptionGroup": lambda secret: ExceptionGroup(
        "several lookups failed", [ValueError(f"api key {secret}")]
    ),
    "chained __cause__": _caused,
    "chained __context__": _in_context,
    "__notes__": _noted,
    "custom __str__": lambda secret: _CustomStrError(f"credentials {secret} rejected"),
}


def canaries() -> list[Canary]:
    """A fresh canary of every kind, each with its own secret."""
    made: list[Canary] = []
    for kind, build in _BUILDERS.items():
        secret = f"canary-{secrets.token_hex(6)}"
        made.append(Canary(kind, build(secret), secret))
    return made
