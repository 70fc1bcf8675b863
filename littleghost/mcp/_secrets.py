"""What a connection sends a server that must never come back: the values to redact.

Everything the caller chose to send is a secret: each header value (and the
credentials inside one: the token after ``Bearer``, a ``Cookie``'s values, a
``Basic`` pair decoded), each environment variable given for a stdio server,
a URL's query values and its ``user:password`` -- which httpx sends as
``Authorization: Basic``, so that spelling too -- and any ``secrets`` the
caller adds (the kit adds what ``${VAR}`` expanded to in a command's arguments).
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

__all__ = ["redacted_message", "secrets_sent"]

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
    values += (env or {}).values()
    return Redactor(values)


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
