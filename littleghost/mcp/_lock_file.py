"""A lock file as a whole: one shape (``lock.schema.json``), one size bound, no torn writes.

Locks are committed and merged by hand, so reading one checks all of it
before any comparison trusts a field: a wrong type, a key written twice, a
version that is not exactly ``1``. Writing refuses what reading would refuse
(a lock over ``MAX_LOCK_BYTES`` would silently disable the drift gate) and
replaces the file in one step, so a full disk or Ctrl-C leaves the old lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import unicodedata
from importlib import resources
from typing import Any

import jsonschema_rs

import littleghost as lg

__all__ = [
    "IDENTIFIER",
    "LOCK_FORMAT",
    "LOCK_SCHEMA",
    "MAX_LOCK_BYTES",
    "bounded",
    "dumps",
    "is_lock",
    "member",
    "parse",
    "quoted",
    "read",
    "replace",
]

LOCK_FORMAT = 1
"""The lock file's format version; a lock of another version is refused."""

MAX_LOCK_BYTES = 16 * 1024 * 1024
"""A lock file larger than this is refused, and ``lock`` refuses to write one."""

LOCK_SCHEMA: dict[str, Any] = json.loads(
    resources.files("littleghost.mcp").joinpath("lock.schema.json").read_text(encoding="utf-8")
)
"""The lock format's JSON Schema (``littleghost/mcp/lock.schema.json``)."""

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A key written ``.key`` in a JSON path (others are ``["key"]``)."""

_SHAPE = jsonschema_rs.validator_for(LOCK_SCHEMA)
_SHOWN_CHARS = 200  # of a schema error's message, whose instance may be megabytes of text
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NOT_PLAIN = re.compile(r"[^\x20-\x7e\n]")


class _DuplicateKey(ValueError):
    pass


def read(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the lock file at ``path``; a missing or oversized one is a
    ``ConfigurationError``."""
    where = os.fspath(path)
    if os.path.exists(where) and not os.path.isfile(where):
        raise lg.ConfigurationError(f"lock {where} is not a regular file")
    try:
        with open(where, "rb") as file:
            data = file.read(MAX_LOCK_BYTES + 1)
    except OSError as error:
        raise lg.ConfigurationError(f"cannot read lock {where}: {error.strerror}") from None
    if len(data) > MAX_LOCK_BYTES:
        raise lg.ConfigurationError(
            f"lock {where} is larger than MAX_LOCK_BYTES ({MAX_LOCK_BYTES} bytes)"
        )
    return data


def parse(text: str | bytes, where: str) -> dict[str, Any]:
    """The lock document in ``text``, its whole shape checked: a ``ConfigurationError`` names
    the first entry that is wrong."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as error:
        raise lg.ConfigurationError(
            f"{where}: the key {error} appears twice in one object (a reviewer may read the "
            "first, a JSON reader keeps the last): remove one"
        ) from None
    except (ValueError, RecursionError) as error:
        raise lg.ConfigurationError(f"{where} is not JSON: {error}") from None
    version = data.get("littleghost_lock") if isinstance(data, dict) else None
    if type(version) is not int or version != LOCK_FORMAT:  # ``true == 1`` in Python
        raise lg.ConfigurationError(
            f"{where} is not a littleghost lock of format {LOCK_FORMAT} "
            "(write one with: littleghost lock TARGET)"
        )
    for error in _SHAPE.iter_errors(data):
        at = "$" + "".join(
            f"[{step}]" if isinstance(step, int) else member(step) for step in error.instance_path
        )
        message = error.message
        if len(message) > _SHOWN_CHARS:
            message = message[:_SHOWN_CHARS] + "..."
        raise lg.ConfigurationError(
            f"{where}: {at}: {message.encode('ascii', 'backslashreplace').decode()} "
            "(the lock format: littleghost/mcp/lock.schema.json)"
        )
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(json.dumps(key))
            seen.add(key)
    return found


def member(key: str) -> str:
    """``.key``, or ``["key"]`` when it is not a plain name: a step of a JSON path."""
    plain = IDENTIFIER.fullmatch(key) is not None
    return f".{key}" if plain else f"[{json.dumps(key)}]"


def dumps(document: dict[str, Any]) -> str:
    """The lock's text: sorted keys, one entry a block, invisible characters escaped.

    A bidi override or a zero-width character written raw would hide from the
    reviewer of the lock's git diff; ``\\uXXXX`` decodes to the same text.
    """
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return _NOT_PLAIN.sub(_escaped, text)


def quoted(value: Any) -> str:
    """``value`` as JSON, for a message: readable characters kept, invisible ones escaped."""
    return _NOT_PLAIN.sub(_escaped, json.dumps(value, ensure_ascii=False))


def bounded(text: str) -> bytes:
    """``text`` encoded, refused when a reader would refuse it."""
    data = text.encode("utf-8")
    if len(data) > MAX_LOCK_BYTES:
        raise lg.ConfigurationError(
            f"the lock would be {len(data)} bytes, over MAX_LOCK_BYTES ({MAX_LOCK_BYTES}): "
            "diff, check --lock and Toolset.lock would refuse to read it"
        )
    return data


def _escaped(match: re.Match[str]) -> str:
    character = match.group()
    if unicodedata.category(character) not in _HIDDEN_CATEGORIES:
        return character
    return json.dumps(character)[1:-1]


def is_lock(path: str) -> bool:
    """Whether ``path`` holds a lock, even one a merge left broken (``lock --update`` mends it)."""
    try:
        with open(path, "rb") as file:
            return b'"littleghost_lock"' in file.read(MAX_LOCK_BYTES)
    except OSError:
        return False


def replace(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a new file beside ``path`` and rename it over ``path`` in one step.

    A symbolic link is written through to the file it points to (the link
    stays); one pointing to nothing is refused rather than followed to
    create a file elsewhere.
    """
    where = os.fspath(path)
    if os.path.islink(where):
        if not os.path.exists(where):
            raise lg.ConfigurationError(
                f"{where} is a symbolic link to a missing file: remove it or write elsewhere"
            )
        where = os.path.realpath(where)
    try:
        mode = stat.S_IMODE(os.stat(where).st_mode)
    except FileNotFoundError:
        mode = 0o644
    folder, name = os.path.split(os.path.abspath(where))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, where)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
