"""One connection to the checked server through ``littleghost.mcp.Toolset``; reopened on a crash.

Tools are called through the generated littleghost tools, so the same bounds,
result conversion and error translation apply as in an agent.
"""

from __future__ import annotations

import contextlib
from typing import TextIO

import anyio
import mcp
from anyio.from_thread import BlockingPortal

import littleghost as lg
import littleghost.mcp
from littleghost.mcp import Toolset, UnusableTool

from .._engine import JudgedToolset, TransportFaults
from .._targets import Target

__all__ = ["DiscoveryTimeout", "Session", "heard"]


class DiscoveryTimeout(TimeoutError):
    """No ``tools/list`` answer within the timeout.

    ``lg.DeadlineExceededError`` is a ``BaseException``: raised through a
    blocking portal, it would stop the portal's event loop, so it crosses as this.
    """


class Session:
    """The server's generated tools, on a connection a ``Run`` owns and closes.

    Resources and prompts are read on the same connection: ``client`` is the
    SDK client it holds, and ``usable`` says the tools did not leave it broken.
    """

    def __init__(
        self, portal: BlockingPortal, target: Target, timeout: float, errlog: TextIO | None
    ) -> None:
        self.portal = portal
        self._timeout = timeout
        self._run: lg.Run | None = None
        self.faults = TransportFaults()
        self.skipped: list[UnusableTool] = []
        """The tools the last ``open()`` left out: their schemas cannot be used."""
        self.client: mcp.Client | None = None
        """The connected client of the last ``open()``, until ``close()``."""
        self.usable = False
        """The last ``open()`` succeeded, and no tool since crashed or hung the server."""
        self.spoken: littleghost.mcp._Spoken | None = None
        """The protocol its connections spoke: one that fell back to the handshake wins."""
        faults, skipped, session = self.faults, self.skipped, self

        class CheckedServer(JudgedToolset):
            def client(self, binding: lg.Binding) -> mcp.Client:
                session.client = faults.attach(target.client(errlog=errlog))
                return session.client

            def on_tool_skipped(self, error: UnusableTool, *, binding: lg.Binding) -> None:
                skipped.append(error)

        self._toolset = CheckedServer

    def open(self) -> list[lg.Tool]:
        """Connect and discover within the timeout; raises what ``Toolset.tools`` raises."""
        return self.portal.call(self.reopen)

    async def reopen(self) -> list[lg.Tool]:
        """``open()`` from the portal's own event loop (where reads run)."""
        await self.aclose()
        self.skipped.clear()
        run = lg.Run(context=lg.RunContext.with_timeout(self._timeout))
        self._run = run
        binding = lg.Binding(run=run)
        classes = await _discover(self._toolset, binding)
        self.usable = True
        return [tool_class(binding) for tool_class in classes]

    async def reopen_client(self) -> mcp.Client:
        """A fresh connection for the reads, through ``reopen()``; its client."""
        await self.reopen()
        assert self.client is not None  # discovery connected it
        return self.client

    def close(self) -> None:
        if self._run is not None:
            self.portal.call(self.aclose)

    async def aclose(self) -> None:
        run, self._run = self._run, None
        if self.client is not None:
            self.spoken = heard(self.spoken, littleghost.mcp._spoken(self.client))
        self.client, self.usable = None, False
        if run is not None:
            await _close_quietly(run)


def heard(
    known: littleghost.mcp._Spoken | None, spoken: littleghost.mcp._Spoken | None
) -> littleghost.mcp._Spoken | None:
    """What to report of two connections' protocols: a fallback says more than its absence."""
    if spoken is None:
        return known
    if known is None or spoken.refusal is not None:
        return spoken
    return known


async def _discover(toolset: type[Toolset], binding: lg.Binding) -> list[type[lg.Tool]]:
    try:
        return await toolset.tools(binding)
    except lg.DeadlineExceededError as error:
        raise DiscoveryTimeout(str(error)) from None


async def _close_quietly(run: lg.Run) -> None:
    """A crashed server's connection may fail to close; the crash is already reported."""
    with anyio.CancelScope(shield=True):
        with contextlib.suppress(lg.CleanupError):
            await run.aclose()
