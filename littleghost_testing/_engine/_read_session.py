"""The connection ``check`` reads resources and gets prompts through, and its listings.

Reads go over the connection the tools were called on (for a stdio server, a
second connection would be a second server process). Its owner hosts it: a
read that breaks it only ``drop()``s it, and the next read asks the owner to
``reopen`` one, the way a tool that crashed the server gets a fresh
connection. Listings are paginated within the same limits as ``tools/list``
(``Toolset.max_pages``, ``Toolset.max_cursor_bytes``, a repeated cursor) and
stop once they hold more than the caller asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import anyio
import mcp

import littleghost as lg
from littleghost.mcp import ConnectionClosed, MalformedMessage, Toolset, translate_error

from ._findings import describe

__all__ = ["Attempt", "ConnectFailed", "Listed", "ReadSession", "connection_fault", "list_pages"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Attempt:
    """One ``resources/read`` (``input`` is the URI) or ``prompts/get`` (the arguments).

    ``generated`` says the request holds values ``check`` chose (a template's
    variables, a prompt's arguments: made up, or offered by the server's
    completions): the server may refuse those, and a refusal is no finding.
    Values the user gave (``--inputs``) and listed URIs are not generated.
    Attempts of one ``round`` stop at the first success.
    """

    input: Any
    generated: bool
    round: str = ""


class ConnectFailed(Exception):
    """No connection for the next read; the message says why in one line."""


class ReadSession:
    """The tools' connected client, borrowed: ``await client()``; ``drop()`` after it broke.

    ``current`` is the client the tools left open (``None`` when they left it
    broken); ``reopen()`` connects again through its owner, which closes the
    old connection, and returns the new client.
    """

    def __init__(
        self,
        reopen: Callable[[], Awaitable[mcp.Client]],
        seconds: float,
        current: mcp.Client | None = None,
    ) -> None:
        self._reopen = reopen
        self.seconds = seconds
        self._current = current

    async def client(self) -> mcp.Client:
        """The open client, or a fresh one connected within ``seconds``."""
        if self._current is not None:
            return self._current
        try:
            with anyio.fail_after(self.seconds):
                self._current = await self._reopen()
        except TimeoutError:
            raise ConnectFailed(f"no connection within {self.seconds:g} s") from None
        except Exception as error:
            raise ConnectFailed(f"connecting failed: {translate_error(error)}") from None
        return self._current

    def drop(self) -> None:
        """Stop using the current client: the next ``client()`` reopens."""
        self._current = None


@dataclass
class Listed(Generic[T]):
    """What a listing gave: its items (at most ``limit``), and whether it held more."""

    items: list[T]
    more: bool = False


async def list_pages(
    fetch: Callable[[str | None], Awaitable[Any]],
    items_of: Callable[[Any], Sequence[T]],
    what: str,
    limit: int,
) -> Listed[T]:
    """Every page of a listing, up to ``limit`` items; a broken pagination raises.

    ``fetch(cursor)`` gets one page; ``items_of(page)`` its items.
    """
    listed: Listed[T] = Listed([])
    cursors: set[str] = set()
    cursor: str | None = None
    for _ in range(Toolset.max_pages):
        page = await fetch(cursor)
        listed.items.extend(items_of(page))
        cursor = page.next_cursor
        if len(listed.items) > limit:
            del listed.items[limit:]
            listed.more = True
            return listed
        if cursor is None:
            return listed
        if len(cursor.encode()) > Toolset.max_cursor_bytes:
            raise MalformedMessage(
                f"{what}: a pagination cursor over max_cursor_bytes ({Toolset.max_cursor_bytes})"
            )
        if cursor in cursors:
            raise MalformedMessage(f"{what}: a repeated pagination cursor (endless pagination)")
        cursors.add(cursor)
    raise MalformedMessage(f"{what}: more than max_pages ({Toolset.max_pages}) pages")


def connection_fault(error: BaseException) -> tuple[str, str, str]:
    """A request that failed without an answer: the finding's kind, expected and observed."""
    expected = "an answer over a working connection"
    if isinstance(error, ConnectionClosed):
        return "crash", expected, str(error)
    if isinstance(error, lg.ProtocolError):
        return "malformed_result", "an answer that follows the protocol", str(error)
    if isinstance(error, lg.ProviderError):
        return "transport_error", expected, str(error)
    return "malformed_result", "an answer littleghost can read", describe(error)
