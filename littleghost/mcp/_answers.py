"""Answers JSON-RPC forbids but the SDK would take: judged on the raw JSON, before the SDK's models.

The SDK's models keep one of ``result`` and ``error`` when an answer carries
both, and take the string ``"1"`` as the id of request 1; over Streamable
HTTP's event streams the SDK even overwrites an answer's id with the id of the
request it posted, so the string never reaches a model. The transports
(``_stdio.py``, ``_http.py``) judge every parsed message here; ``_wire.py``
judges the models of transports that hand over no bytes. Either breach is a
``MalformedMessage`` that closes the connection.
"""

from __future__ import annotations

from typing import Any

from ._exceptions import MalformedMessage

__all__ = ["breach", "string_id"]


def breach(raw: Any, *, string_ids_sent: bool) -> MalformedMessage | None:
    """What JSON-RPC forbids in one parsed message, or ``None`` if it keeps the rules.

    ``string_ids_sent``: whether the client ever sent a request id that is a
    string (the SDK sends integers), so that an answer's string id can be one.
    """
    if not isinstance(raw, dict):
        return None
    message: dict[str, Any] = raw  # pyright: ignore[reportUnknownVariableType]
    if "result" in message and "error" in message:
        return MalformedMessage(
            "MCP server sent an answer with both 'result' and 'error'; connection closed",
            connection_closed=True,
        )
    answer_id = message.get("id")
    is_answer = ("result" in message or "error" in message) and "method" not in message
    if is_answer and isinstance(answer_id, str) and not string_ids_sent:
        return string_id(answer_id)
    return None


def string_id(answer_id: str) -> MalformedMessage:
    """An answer to a request id that is a string, though every id sent was an integer."""
    return MalformedMessage(
        f"MCP server answered request id {answer_id[:40]!r}, a string, though "
        "every request id sent was an integer; connection closed",
        connection_closed=True,
    )
