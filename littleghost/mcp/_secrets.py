"""What a connection sends a server that must never come back: the values to redact.

Each header value is a secret (and the credentials inside one: the token
after ``Bearer``, a ``Cookie``'s values, a ``Basic`` pair decoded), and so
are a URL's query values and its ``user:password`` -- which httpx sends as
``Authorization: Basic``, so that spelling too -- each environment variable
given to a stdio server whose name or value says it is one (``secret_env``:
an ``API_TOKEN``, not a ``HOME`` whose path the server's answers may
rightly quote), and any ``secrets`` the caller adds (the kit adds what every
``${VAR}`` expanded to).
The connection (``_wire.py``) redacts them from every message the server sends.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator, Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

import mcp_types as types
from mcp.shared.message import SessionMessage

from .._redaction import Redactor

__all__ = ["redacted_message", "secret_env", "secrets_sent"]

_SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASS|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|SIGNATURE|DSN",
    re.IGNORECASE,
)
"""Env variables whose name says they hold a secret."""

_CREDENTIAL_LIKE = re.compile(r"(?=[^/\s]*\d)(?=[^/\s]*[A-Za-z])[A-Za-z0-9_\-+=.~:]{20,}")
"""A value shaped like a credential: one long word of letters and digits mixed."""

_URL_PASSWORD = re.compile(r"\b[a-zA-Z][\w+.-]*://[^/\s:@]+:[^/\s@]+@")
"""A URL with a user and password (a database DSN)."""

_AUTH_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+(\S.*)")
"""``Scheme credentials``, as an ``Authorization`` value is written."""


def secrets_sent(
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
) -> Redactor:
    """The redactor for a connection that sends these (see the module docstring)."""
    values = list(secrets)
    if url is not None:
        values += _url_secrets(url)
    for value in (headers or {}).values():
        values += _header_secrets(value)
    values += (value for name, value in (env or {}).items() if secret_env(name, value))
    return Redactor(values)


def secret_env(name: str, value: str) -> bool:
    """Whether an environment variable holds a secret: its name, or its value, says so."""
    return bool(
        _SECRET_NAME.search(name)
        or _CREDENTIAL_LIKE.fullmatch(value)
        or _URL_PASSWORD.search(value)
    )


def _url_secrets(url: str) -> Iterator[str]:
    parts = urlsplit(url)
    for _, value in parse_qsl(parts.query, keep_blank_values=False):
        yield value
    if parts.password is not None:
        user, password = unquote(parts.username or ""), unquote(parts.password)
        yield password
        yield f"{user}:{password}"
        yield f"Basic {base64.b64encode(f'{user}:{password}'.encode()).decode()}"


def _header_secrets(value: str) -> Iterator[str]:
    yield value
    if (scheme := _AUTH_SCHEME.fullmatch(value)) is not None:
        credentials = scheme.group(2)
        yield credentials
        if scheme.group(1).lower() == "basic":
            yield from _basic_pair(credentials)
    for item in re.split(r"[;,]", value):
        _, equals, cookie = item.partition("=")
        if equals:
            yield cookie.strip()


def _basic_pair(credentials: str) -> Iterator[str]:
    try:
        pair = base64.b64decode(credentials, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return
    yield pair
    yield pair.partition(":")[2]


def redacted_message(item: SessionMessage, redactor: Redactor) -> SessionMessage:
    """``item`` with every string the server wrote in it redacted."""
    message = item.message
    if isinstance(message, types.JSONRPCResponse):
        message = message.model_copy(update={"result": redactor.json(message.result)})
    elif isinstance(message, types.JSONRPCError):
        error = message.error.model_copy(
            update={
                "message": redactor.text(message.error.message),
                "data": redactor.json(message.error.data),
            }
        )
        message = message.model_copy(update={"error": error})
    elif message.params is not None:
        message = message.model_copy(update={"params": redactor.json(message.params)})
    return SessionMessage(message, metadata=item.metadata)
