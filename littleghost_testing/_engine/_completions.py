"""The server's completions (``completion/complete``), asked within bounds before a read.

Before a template is read or a prompt got, each variable or argument may be
completed. A server decides how long each answer takes and how many
variables a template names, so the asking is bounded: at most
``MAX_COMPLETION_REQUESTS`` requests per template or prompt, each within the
read timeout and the run's deadline (``--max-time``); once the run must stop
or one request failed, no more are sent. A request that fails in a way that
breaks the connection (an answer over ``max_result_bytes``, a dead server,
no answer) is a finding that names ``completion/complete``: the next read
gets a fresh connection and is not blamed for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
import mcp
import mcp_types as types
from pydantic import ValidationError

from littleghost.mcp import JSONRPCError, translate_error

from ._findings import KINDS, Finding
from ._read_session import connection_fault

__all__ = ["MAX_COMPLETION_REQUESTS", "Completions"]

MAX_COMPLETION_REQUESTS = 10
"""``completion/complete`` requests per resource template or prompt, at most; the other
variables or arguments get only the values ``check`` has without asking."""

Ref = types.ResourceTemplateReference | types.PromptReference


class Completions:
    """One subject's completion requests: ``await values(ref, name)`` per variable or argument.

    ``failure`` is the finding of the request that failed, if one did;
    ``broke`` says it left the connection unusable; ``left_out`` counts the
    names not asked once ``MAX_COMPLETION_REQUESTS`` were.
    """

    def __init__(
        self,
        client: mcp.Client,
        seconds: float,
        *,
        deadline: float | None = None,
        stopped: Callable[[], bool] = lambda: False,
    ) -> None:
        self._client = client
        self._seconds = seconds
        self._deadline = deadline
        self._stopped = stopped
        self.asked = 0
        self.left_out = 0
        self.failure: Finding | None = None
        self.broke = False

    async def values(self, ref: Ref, name: str) -> list[str]:
        """The server's completions of ``name`` from an empty prefix; ``[]`` when none are
        offered, the request is refused, or it may not be sent."""
        if self._client.server_capabilities.completions is None or self.failure is not None:
            return []
        if self._stopped():
            return []
        if self.asked >= MAX_COMPLETION_REQUESTS:
            self.left_out += 1
            return []
        wait, cut_short = self._seconds, False
        if self._deadline is not None:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                return []
            wait, cut_short = min(wait, remaining), remaining < wait
        self.asked += 1
        started = time.monotonic()
        request = f"completion/complete of {name!r}"
        try:
            with anyio.fail_after(wait):
                completed = await self._client.complete(ref, {"name": name, "value": ""})
        except TimeoutError:
            if not cut_short:  # else the run's deadline came first: no fault of the server's
                observed = f"{request}: no answer"
                self._fail("timeout", f"an answer within {wait:g} s", observed, started)
                self.broke = True
            return []
        except ValidationError as error:
            observed = f"{request}: {error.error_count()} invalid field(s)"
            self._fail("malformed_result", "an answer the MCP types accept", observed, started)
            return []
        except Exception as error:
            translated = translate_error(error)
            if isinstance(translated, JSONRPCError):
                return []  # no completion for it: generated values still get a read
            kind, expected, observed = connection_fault(translated)
            self._fail(kind, expected, f"{request}: {observed}", started)
            self.broke = True
            return []
        return [value for value in completed.completion.values if isinstance(value, str)]

    def _fail(self, kind: str, expected: str, observed: str, started: float) -> None:
        self.failure = Finding(
            kind=kind,
            valid=True,
            keyword=None,
            path=None,
            input=None,
            expected=expected,
            observed=observed,
            duration=time.monotonic() - started,
            severity=KINDS[kind][0],
        )
