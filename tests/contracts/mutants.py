"""Tools broken in exactly one way each, for the mutation suite: one per contract check.

Each is ``LookupTool`` (which passes every check) with one rule broken, in a
way the check could once miss: the failure only shows when ``call`` itself
fails, or when the tool's own ``call`` (not a stand-in) is stopped.
"""

from __future__ import annotations

import json
import traceback
from typing import Any

import anyio
from contract_tools import LookupTool

import littleghost as lg
from littleghost._frozen import freeze

SHIELDED_SECONDS = 0.4
"""How long a shielded call ignores a stop: well past the checks' ``cancel_within``."""


class SteadyLookupTool(LookupTool):
    """LookupTool whose ``call`` never fails: no generated input reaches an error path."""

    async def call(self, input: Any) -> Any:
        await anyio.lowlevel.checkpoint()
        return {"article": input["article"], "text": "Refunds within 30 days."}


class QuietlyLeakyTool(SteadyLookupTool):
    """Breaks sanitization only when call fails: puts the exception's message in the content."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        result = await super().execute(input, context=context)
        if result.is_error and not isinstance(result.error, lg.ToolError):
            return lg.ExecutionResult.failure(f"Lookup failed: {result.error}", result.error)
        return result


class TracebackTool(SteadyLookupTool):
    """Breaks sanitization through a ToolError: its message is the whole traceback."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        result = await super().execute(input, context=context)
        if result.is_error and not isinstance(result.error, lg.ToolError):
            trace = "".join(traceback.format_exception(result.error))
            return lg.ExecutionResult.failure(trace, lg.ToolError(trace))
        return result


class WrappingTool(SteadyLookupTool):
    """Breaks sanitization through a ToolError: it wraps every failure, message and all."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        result = await super().execute(input, context=context)
        if result.is_error and not isinstance(result.error, lg.ToolError):
            message = f"Lookup failed: {result.error!r}"
            return lg.ExecutionResult.failure(message, lg.ToolError(message))
        return result


class NoteLeakingTool(SteadyLookupTool):
    """Breaks sanitization only for exceptions with notes: it appends them to the content."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        result = await super().execute(input, context=context)
        notes = getattr(result.error, "__notes__", None)
        if result.is_error and notes:
            content = f"{result.content}: {'; '.join(notes)}"
            return lg.ExecutionResult.failure(content, result.error)
        return result


class CancelShieldedTool(SteadyLookupTool):
    """Breaks cancellation in its own call: shields itself unless the run has a deadline."""

    async def call(self, input: Any) -> Any:
        if input["article"] == 1 and self.context.deadline is None:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(SHIELDED_SECONDS)
        return await super().call(input)


class DeadlineShieldedTool(SteadyLookupTool):
    """Breaks deadlines in its own call: shields itself whenever the run has a deadline."""

    async def call(self, input: Any) -> Any:
        if input["article"] == 1 and self.context.deadline is not None:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(SHIELDED_SECONDS)
        return await super().call(input)


class RaisingCloseTool(SteadyLookupTool):
    """Breaks cleanup: close() raises (every other check still runs and passes)."""

    def close(self) -> None:
        raise RuntimeError("pool already shut down")


class HangingCloseTool(SteadyLookupTool):
    """Breaks cleanup: an async close() that never returns."""

    async def close(self) -> None:
        await anyio.sleep_forever()


class RespecifiedTool(SteadyLookupTool):
    """Breaks the specification: it adds a key the rules do not allow."""

    @classmethod
    def specification(cls) -> Any:
        return freeze({**super().specification(), "version": 2})


class HangingTool(SteadyLookupTool):
    """Never answers an article above 500 (until cancelled); counts those calls."""

    hung = 0

    async def call(self, input: Any) -> Any:
        if input["article"] > 500:
            type(self).hung += 1
            await anyio.sleep_forever()
        return await super().call(input)


class ThawedLookupTool(SteadyLookupTool):
    """Breaks the schema rules: the same schema, swapped for a plain dict after creation."""


ThawedLookupTool.input_schema = json.loads(json.dumps(LookupTool.input_schema))


class VagueRejectionTool(SteadyLookupTool):
    """Breaks invalid-input rejection: it refuses bad input without saying where it is bad."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        result = await super().execute(input, context=context)
        if result.is_error and result.content.startswith("Invalid tool input: "):
            return lg.ExecutionResult.failure("Invalid tool input: rejected", result.error)
        return result
