"""Tools for the contract tests: well-behaved ones, and ones that break exactly one rule."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel

import littleghost as lg


class LookupTool(lg.Tool):
    """Well-behaved and async: a ToolError for unknown articles."""

    description = "Look up a help center article."
    input_schema = {
        "type": "object",
        "properties": {
            "article": {"type": "integer", "minimum": 1, "maximum": 999},
            "locale": {"enum": ["en", "de"]},
        },
        "required": ["article"],
        "additionalProperties": False,
    }

    async def call(self, input: Any) -> Any:
        await anyio.lowlevel.checkpoint()
        if input["article"] > 500:
            raise lg.ToolError(f"No article {input['article']}")
        return {"article": input["article"], "text": "Refunds within 30 days."}


class SyncLookupTool(LookupTool):
    """Well-behaved and sync."""

    def call(self, input: Any) -> Any:
        return f"article {input['article']}"


class LeakyTool(LookupTool):
    """Crashes for German articles, and breaks sanitization: the exception's message shows."""

    async def call(self, input: Any) -> Any:
        if input.get("locale") == "de":
            raise RuntimeError("database password is hunter2")
        return await super().call(input)

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        result = await super().execute(input, context=context)
        if result.is_error and not isinstance(result.error, lg.ToolError):
            return lg.ExecutionResult.failure(f"failed: {result.error}", result.error)
        return result


class MidLeakyTool(LeakyTool):
    """Leaks like LeakyTool, for articles 600 to 899: at no edge of the schema."""

    async def call(self, input: Any) -> Any:
        if 600 <= input["article"] < 900:
            raise RuntimeError("database password is hunter2")
        return await LookupTool.call(self, input)


class UncheckedTool(LookupTool):
    """Breaks validation: calls straight through, whatever the input."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        return lg.ExecutionResult("success", input, str(input))


class RejectingTool(LookupTool):
    """Breaks valid inputs: rejects everything as invalid."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        return lg.ExecutionResult.failure("Invalid tool input: no", lg.ToolError("no"))


class MisrenderingTool(LookupTool):
    """Breaks result form: success content that is not the value's rendering."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        result = await super().execute(input, context=context)
        if result.is_success:
            return lg.ExecutionResult("success", result.value, "done")
        return result


class StubbornTool(LookupTool):
    """Breaks cancellation: turns a cancelled run into an error result."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        try:
            return await super().execute(input, context=context)
        except lg.CancelledError:
            return lg.ExecutionResult.failure("cancelled", lg.ToolError("cancelled"))


class DeadlineBlindTool(LookupTool):
    """Breaks deadlines: drops the context's deadline (keeps its cancellation)."""

    async def execute(self, input: Any, *, context: lg.RunContext | None = None) -> Any:
        if context is not None:
            context = lg.RunContext(cancellation=context.cancellation)
        return await super().execute(input, context=context)


class FailingCloseTool(LookupTool):
    """Breaks cleanup: close() raises."""

    def close(self) -> None:
        raise OSError("socket already closed")


class ThawedSchemaTool(LookupTool):
    """Breaks the schema rules: its schema was replaced by a plain dict after creation."""


ThawedSchemaTool.input_schema = {"type": "object", "properties": {"article": {"type": "integer"}}}


class DividingTool(LookupTool):
    """Crashes on a valid input: ZeroDivisionError for article 1, which the schema allows."""

    def call(self, input: Any) -> Any:
        return {"pages": 100 // (input["article"] - 1)}


class SlowTool(LookupTool):
    """Well-behaved, but each call takes a while: the time budget ends its searches."""

    async def call(self, input: Any) -> Any:
        await anyio.sleep(0.05)
        return await super().call(input)
