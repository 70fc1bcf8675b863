"""Generating one ``lg.Tool`` subclass per MCP tool.

A generated class holds the server's own tool name, the shared connection and
the toolset that maps its results; renaming or subclassing it never changes
what the server receives.

Discovery measures and checks every schema a server lists, but leaves it as
the SDK parsed it, private to the toolset: a class freezes its copy (its
``input_schema``, ``specification()`` and ``mcp_tool``) the first time
something reads it. A catalog of a thousand tools, of which a run offers or
calls a few, then costs little more than listing it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import anyio
import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT

import littleghost as lg
from littleghost import instrumentation
from littleghost._context import Guard
from littleghost._frozen import FrozenDict, freeze
from littleghost._schema import freeze_within
from littleghost._tool import running_guard
from littleghost._validation import MAX_SCHEMA_DEPTH, SchemaValidator

from ._bounds import Bounds, CatalogMeter
from ._connection import Connection
from ._exceptions import InvalidSchema, TimeoutExceeded
from ._naming import normalize_name
from ._results import convert_result

if TYPE_CHECKING:
    from ._server_requests import ServerRequests
    from ._toolset import Toolset

__all__ = ["RemoteTool", "generate_tool_class"]

Owner = Literal["run", "instances"]


def _checked(
    tool: types.Tool,
    field: str,
    schema: dict[str, Any],
    meter: CatalogMeter,
    slow: Callable[[dict[str, Any]], SchemaValidator] | None,
) -> SchemaValidator | None:
    """The validator of one schema; ``slow`` builds it for one that is not plain JSON.

    A schema that cannot be used makes its tool unusable (an ``UnusableTool``),
    not the catalog: the toolset decides whether to leave the tool out.
    """
    measured = meter.schema(schema, (tool.name, field))
    try:
        if measured is not None:
            return SchemaValidator.measured(schema, measured.verdict)
        return None if slow is None else slow(schema)
    except lg.ConfigurationError as error:
        raise invalid_schema(tool.name, field, error) from error


def invalid_schema(tool: str, field: str, error: BaseException) -> InvalidSchema:
    """The error of one tool whose schema cannot be used, naming the tool, the field and why."""
    return InvalidSchema(
        f"MCP tool {tool!r} has an invalid {field}: {error}", tool=tool, field=field
    )


class RemoteTool:
    """One listed tool as discovery checked it, and everything its class needs to call it.

    ``tool`` is the SDK's model, whose schemas are never handed out: only
    frozen copies are, made on first read. ``input_validator`` is ``None`` for
    an input schema that is not plain JSON: the generated class checks and
    freezes it then, as it would any declared schema, and says what is wrong.
    """

    __slots__ = (
        "_input_schema",
        "_mcp_tool",
        "bounds",
        "connection",
        "input_validator",
        "output_validator",
        "owner",
        "requests",
        "tool",
        "toolset",
        "toolset_name",
    )

    def __init__(
        self,
        tool: types.Tool,
        meter: CatalogMeter,
        *,
        connection: Connection,
        toolset: Toolset,
        bounds: Bounds,
        owner: Owner,
        requests: ServerRequests,
    ) -> None:
        """Measure ``tool``'s schemas against the bounds and check them.

        A schema this tool alone cannot use is an ``UnusableTool``; a bound of
        the whole catalog a ``LimitExceeded``.
        """
        self.tool = tool
        self.input_validator = _checked(tool, "inputSchema", tool.input_schema, meter, slow=None)
        self.output_validator = None
        if tool.output_schema is not None:
            self.output_validator = _checked(
                tool, "outputSchema", tool.output_schema, meter, slow=SchemaValidator
            )
        self.connection = connection
        self.toolset = toolset
        self.toolset_name = type(toolset).__name__
        self.bounds = bounds
        self.owner = owner
        self.requests = requests
        self._input_schema: Mapping[str, Any] | None = None
        self._mcp_tool: types.Tool | None = None

    @property
    def name(self) -> str:
        """The server's own name for the tool."""
        return self.tool.name

    def input_schema(self) -> Mapping[str, Any]:
        """The frozen input schema, copied on first read."""
        schema = self._input_schema
        if schema is None:
            schema = self._input_schema = _frozen_copy(self.tool.input_schema)
        return schema

    def mcp_tool(self) -> types.Tool:
        """The SDK's ``Tool`` with frozen schemas, copied on first read."""
        if self._mcp_tool is None:
            output = self.tool.output_schema
            self._mcp_tool = self.tool.model_copy(
                update={
                    "input_schema": self.input_schema(),
                    "output_schema": None if output is None else _frozen_copy(output),
                }
            )
        return self._mcp_tool

    async def call(self, tool: lg.Tool, arguments: dict[str, Any]) -> Any:
        """Call the tool on the server and map its result (``call_timeout`` bounds the call)."""
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=self.tool.name, arguments=arguments)
        )
        guard = running_guard(tool)
        if guard is None:
            result = await self._send_unguarded(request)
        else:
            result = await self._send_guarded(request, guard)
        converted = convert_result(
            result,
            tool_name=self.tool.name,
            output_validator=self.output_validator,
            bounds=self.bounds,
            max_depth=type(tool).max_input_depth,
        )
        value = self.toolset.map_result(
            converted.value,
            result=result,
            mcp_tool=self.mcp_tool(),
            arguments=arguments,
            binding=tool.binding,
        )
        if converted.artifacts and not isinstance(value, lg.Result):
            return lg.Result(value, artifacts=converted.artifacts)
        return value

    async def _send_guarded(
        self, request: types.CallToolRequest, guard: Guard
    ) -> types.CallToolResult:
        """Send within ``execute``'s guard: past ``call_timeout`` the watchdog stops it."""

        def stop() -> None:
            guard.stop(self.timed_out())

        try:
            return await self.connection.call_tool(request, stop, self._progress())
        except anyio.get_cancelled_exc_class():
            if guard.stopped is not None:  # ours: the guard raises it, and so do we for events
                raise guard.stopped from None
            raise

    async def _send_unguarded(self, request: types.CallToolRequest) -> types.CallToolResult:
        """Send from a ``call`` outside ``execute``: a scope of its own bounds it."""
        result = None
        with anyio.CancelScope() as scope:
            result = await self.connection.call_tool(request, scope.cancel, self._progress())
        if result is None:
            raise self.timed_out()
        return result

    def _progress(self) -> ProgressFnT | None:
        """Ask for progress only while something listens for its events."""
        return self.requests.progress(self.tool.name) if instrumentation.active() else None

    def timed_out(self) -> TimeoutExceeded:
        """The error of a call past ``call_timeout``, naming the limit to raise."""
        seconds = self.connection.watchdog.seconds
        return TimeoutExceeded(
            f"MCP tool {self.tool.name} exceeded call_timeout ({seconds:g} s); "
            "raise the Toolset's call_timeout for a slow tool",
            timeout="call_timeout",
            seconds=seconds,
        )


def _frozen_copy(schema: Any) -> Any:
    """A frozen copy of a schema discovery checked (a plain tree, or one the slow path passed)."""
    frozen = freeze_within(schema, MAX_SCHEMA_DEPTH)
    return freeze(schema) if frozen is None else frozen


class _RemoteToolBase(lg.Tool):
    """What every generated class shares: its methods read the class's ``RemoteTool``.

    One base with plain methods, rather than closures per class, keeps a
    thousand-tool catalog to one small class per tool. A generated class skips
    ``Tool``'s checks of its declarations (discovery made them, and built its
    validator); a subclass of one (``map_tool``'s) gets them as any tool does.
    """

    _lg_remote: ClassVar[RemoteTool]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        own = cls.__dict__
        if "_lg_remote" in own and "_validator" in own:
            return  # generated from a checked schema, frozen when read (see below)
        super().__init_subclass__(**kwargs)

    def __init__(self, binding: lg.Binding | None = None) -> None:
        lg.Tool.__init__(self, binding)
        remote = self._lg_remote
        self.__dict__["_lg_mcp_open"] = remote.owner == "instances"
        if remote.owner == "instances":
            remote.connection.acquire()

    async def call(self, input: Mapping[str, Any]) -> Any:
        remote = self._lg_remote
        arguments = input if type(input) is dict else dict(input)
        if not instrumentation.active():
            return await remote.call(self, arguments)
        # The run's guard around this call cancels it: its context says whether for
        # the deadline or the token.
        with instrumentation.measure(
            "mcp_call", self.context, toolset=remote.toolset_name, tool=remote.name
        ):
            return await remote.call(self, arguments)

    async def close(self) -> None:
        if self.__dict__.pop("_lg_mcp_open", False):
            await self._lg_remote.connection.release()


class _FromRemote:
    """A class attribute of generated tools, computed from the class's ``RemoteTool`` when read."""

    __slots__ = ("_read",)

    def __init__(self, read: Callable[[Any], Any]) -> None:
        self._read = read

    def __get__(self, instance: object, owner: type[Any]) -> Any:
        return self._read(owner)


def _specification(cls: Any) -> FrozenDict:
    """``Tool.specification()``'s value, built on first read and kept by the class."""
    specification = FrozenDict(
        name=cls.tool_name, description=cls.description, input_schema=cls.input_schema
    )
    cls._specification = specification  # the class's own now: found before the base's
    return specification


# Installed once the base exists: ``Tool`` configured it with plain values, as it declares them.
for _name, _attribute in {
    "input_schema": _FromRemote(lambda cls: cls._lg_remote.input_schema()),
    "mcp_tool": _FromRemote(lambda cls: cls._lg_remote.mcp_tool()),
    "_specification": _FromRemote(_specification),
}.items():
    setattr(_RemoteToolBase, _name, _attribute)


_BASES = (_RemoteToolBase,)  # one tuple for every class (``type`` keeps the one it is given)


def generate_tool_class(remote: RemoteTool) -> type[lg.Tool]:
    """The Tool subclass for one MCP tool; an invalid server schema is an ``InvalidSchema``."""
    tool = remote.tool
    tool_name = normalize_name(tool.name)
    namespace: dict[str, Any] = {
        "tool_name": tool_name,
        "_explicit_name": True,
        "description": tool.description or tool.title or f"MCP tool {tool.name}",
        "_lg_remote": remote,
        "__module__": type(remote.toolset).__module__,
    }
    if remote.input_validator is None:  # not plain JSON: Tool checks and freezes it
        namespace["input_schema"] = tool.input_schema
    else:
        namespace["_validator"] = remote.input_validator
    try:
        generated = type(f"{remote.toolset_name}_{tool_name}", _BASES, namespace)
    except (lg.ConfigurationError, TypeError) as error:
        raise invalid_schema(tool.name, "inputSchema", error) from error
    if remote.input_validator is None:
        remote._input_schema = generated.input_schema  # pyright: ignore[reportPrivateUsage]
    return generated
