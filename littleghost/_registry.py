"""``ToolRegistry``: the tools of one run, by name, with the run-wide exclusive lock."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any

import anyio

from ._binding import Binding
from ._closing import DEFAULT_CLOSE_TIMEOUT, check_close_timeout, close_after, close_all
from ._context import RunContext
from ._errors import ConfigurationError, ToolError
from ._results import ExecutionResult
from ._tool import Tool

__all__ = ["MAX_TOOL_NAME_LENGTH", "TOOL_NAME", "TOOL_NAME_CHARACTERS", "ToolRegistry"]

# What model APIs accept as a tool name: 1 to 64 of these characters.
TOOL_NAME_CHARACTERS = "A-Za-z0-9_-"
MAX_TOOL_NAME_LENGTH = 64
TOOL_NAME = re.compile(f"[{TOOL_NAME_CHARACTERS}]{{1,{MAX_TOOL_NAME_LENGTH}}}")
_MAX_NESTING = 32


class ToolRegistry:
    """Resolves tool entries into bound instances, calls them, and closes them.

    Entries are Tool classes (built when ``available(binding)``), Tool
    instances, nested lists, ``None``, and providers: objects with a sync or
    async ``tools(binding)`` returning more entries. Every instance the
    registry holds is owned by it and closed once when it closes.
    """

    # Seconds each tool's close() may take when the registry closes; past it the
    # tool is abandoned and named in the CleanupError.
    close_timeout: float = DEFAULT_CLOSE_TIMEOUT

    def __init__(
        self,
        entries: Any = (),
        *,
        binding: Binding | None = None,
        close_timeout: float | None = None,
    ) -> None:
        self.close_timeout = check_close_timeout(
            type(self).close_timeout if close_timeout is None else close_timeout, "ToolRegistry"
        )
        self.binding = Binding() if binding is None else binding
        self._entries = entries
        self._tools: dict[str, Tool] = {}
        self._owned: list[Tool] = []
        self._exclusive = anyio.Lock()
        self._state = "new"

    def __repr__(self) -> str:
        return f"<ToolRegistry {self._state} names={self.names!r}>"

    # -- lifecycle ----------------------------------------------------------

    async def __aenter__(self) -> ToolRegistry:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await close_after(exc, self.aclose)

    async def open(self) -> None:
        """Resolve the entries; on failure, close what was already built and re-raise."""
        if self._state != "new":
            raise ConfigurationError(f"The ToolRegistry is already {self._state}")
        self._state = "open"
        try:
            await self._resolve(self._entries, replace=False, depth=0)
        except BaseException as error:
            try:
                await self.aclose()
            except Exception as cleanup:
                error.add_note(f"Closing the tools built so far also failed: {cleanup}")
            raise

    async def aclose(self) -> None:
        """Close every owned instance once, newest first; ``CleanupError`` if any failed."""
        if self._state == "closed":
            return
        self._state = "closed"
        owned, self._owned = self._owned, []
        self._tools.clear()
        await close_all(owned, "the registry's tools", each_within=self.close_timeout)

    # -- contents -----------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    @property
    def specifications(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(tool.specification() for tool in self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(tuple(self._tools.values()))

    def __getitem__(self, name: str) -> Tool:
        """The tool called ``name``; ``ToolError("Unknown tool: NAME")`` otherwise."""
        try:
            return self._tools[name]
        except (KeyError, TypeError):
            raise ToolError(f"Unknown tool: {name}") from None

    async def register(self, entry: Any, *, replace: bool = False) -> None:
        """Add more entries; ``replace=True`` swaps out (and closes) same-named tools."""
        self._require_open()
        await self._resolve(entry, replace=replace, depth=0)

    # -- calling ------------------------------------------------------------

    async def call(
        self, name: str, input: Any, *, context: RunContext | None = None
    ) -> ExecutionResult:
        """Execute the named tool; an unknown name is an error result, not an exception."""
        self._require_open()
        try:
            tool = self[name]
        except ToolError as error:
            return ExecutionResult.failure(str(error), error)
        if not tool.exclusive:
            return await tool.execute(input, context=context)
        if context is None:
            async with self._exclusive:
                return await tool.execute(input, context=context)
        acquired = False
        try:
            with context.guard():
                await self._exclusive.acquire()
                acquired = True
            return await tool.execute(input, context=context)
        finally:
            if acquired:
                self._exclusive.release()

    # -- resolution ---------------------------------------------------------

    def _require_open(self) -> None:
        if self._state != "open":
            hint = " (use `async with ToolRegistry(...)`)" if self._state == "new" else ""
            raise ConfigurationError(f"The ToolRegistry is {self._state}{hint}")

    async def _resolve(self, entry: Any, *, replace: bool, depth: int) -> None:
        if depth > _MAX_NESTING:
            raise ConfigurationError(f"Tool entries nest more than {_MAX_NESTING} levels deep")
        if entry is None:
            return
        if isinstance(entry, type) and issubclass(entry, Tool):
            if entry.available(self.binding):
                await self._adopt(entry(binding=self.binding), replace=replace)
        elif isinstance(entry, Tool):
            await self._adopt(entry, replace=replace)
        elif isinstance(entry, list | tuple):
            for item in entry:
                await self._resolve(item, replace=replace, depth=depth + 1)
        elif callable(getattr(entry, "tools", None)):
            produced = entry.tools(self.binding)
            if inspect.isawaitable(produced):
                produced = await produced
            await self._resolve(produced, replace=replace, depth=depth + 1)
        else:
            raise ConfigurationError(
                f"Unsupported tool entry {entry!r}: expected a Tool class or instance, "
                "a list, None, or a provider with tools(binding)"
            )

    async def _adopt(self, tool: Tool, *, replace: bool) -> None:
        if not any(owned is tool for owned in self._owned):
            self._owned.append(tool)
        name = tool.tool_name
        if not TOOL_NAME.fullmatch(name):
            raise ConfigurationError(
                f"Invalid tool name {name!r}: use 1 to {MAX_TOOL_NAME_LENGTH} "
                "of A-Z, a-z, 0-9, '_' and '-'"
            )
        if not isinstance(tool.description, str) or not tool.description.strip():
            raise ConfigurationError(f"Tool {name} needs a description")
        previous = self._tools.get(name)
        if previous is not None and previous is not tool:
            if not replace:
                raise ConfigurationError(f"Tool name collision: {name}")
            self._owned = [owned for owned in self._owned if owned is not previous]
            self._tools[name] = tool
            if not any(held is previous for held in self._tools.values()):
                # Shielded and collected like every other close: once it is no longer
                # owned, an interrupted close would never be retried.
                await close_all(
                    [previous], f"the replaced tool {name}", each_within=self.close_timeout
                )
            return
        self._tools[name] = tool
