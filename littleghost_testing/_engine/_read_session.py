"""The connection ``check`` reads resources and gets prompts through, and its listings.

The client is entered and left by a task of its own (as ``littleghost.mcp``
hosts its connections), so connecting can time out without breaking the
caller's cancel scopes, and a connection that broke is dropped and opened
again for the next read. Listings are paginated within the same limits as
``tools/list`` (``Toolset.max_pages``, ``Toolset.max_cursor_bytes``, a
repeated cursor) and stop once they hold more than the caller asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import anyio
import mcp
from anyio.abc import TaskGroup

from littleghost.mcp import MalformedMessage, Toolset, translate_error

__all__ = ["CLOSE_SECONDS", "Attempt", "ConnectFailed", "Listed", "ReadSession", "list_pages"]

CLOSE_SECONDS = 5.0
"""How long closing a connection may take politely before it is cancelled."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Attempt:
    """One ``resources/read`` (``input`` is the URI) or ``prompts/get`` (the arguments).

    ``generated`` says the request holds values ``check`` made up (a
    template's variables, a prompt's arguments): the server may refuse those
    with "invalid params" or "not found". Attempts of one ``round`` stop at
    the first success.
    """

    input: Any
    generated: bool
    round: str = ""


class ConnectFailed(Exception):
    """No connection for the next read; the message says why in one line."""


class ReadSession:
    """A connected client on demand: ``await client()``; ``drop()`` after it broke."""

    def __init__(self, connect: Callable[[], mcp.Client], group: TaskGroup, seconds: float) -> None:
        self._connect = connect
        self._group = group
        self.seconds = seconds
        self._current: _Hosted | None = None

    async def client(self) -> mcp.Client:
        """The open client, or a fresh one connected within ``seconds``."""
        if self._current is not None and not self._current.done.is_set():
            return self._current.client
        await self.drop()
        hosted = _Hosted(self._connect())
        self._current = hosted
        self._group.start_soon(hosted.host)
        with anyio.move_on_after(self.seconds):
            await hosted.ready.wait()
        if not hosted.ready.is_set():
            await self.drop()
            raise ConnectFailed(f"no connection within {self.seconds:g} s")
        if hosted.error is not None:
            await self.drop()
            raise ConnectFailed(f"connecting failed: {translate_error(hosted.error)}")
        return hosted.client

    async def drop(self) -> None:
        """Close the current connection, if any (the next ``client()`` opens another)."""
        hosted, self._current = self._current, None
        if hosted is not None:
            await hosted.close()


class _Hosted:
    def __init__(self, client: mcp.Client) -> None:
        self.client = client
        self.ready = anyio.Event()
        self.done = anyio.Event()
        self.error: BaseException | None = None
        self._closing = anyio.Event()
        self._scope = anyio.CancelScope()

    async def host(self) -> None:
        try:
            with self._scope:
                async with self.client:
                    self.ready.set()
                    await self._closing.wait()
        except Exception as error:  # the transport's own failure; reads report theirs
            self.error = error
        finally:
            self.ready.set()
            self.done.set()

    async def close(self) -> None:
        self._closing.set()
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(CLOSE_SECONDS):
                await self.done.wait()
            self._scope.cancel()
            await self.done.wait()


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
