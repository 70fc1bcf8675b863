"""``FakeMCPServer``: an MCP server for tests, with scripted faults and records."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread
import mcp
import mcp_types as types
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from ._faults import ErrorResult, Fault, require_fault
from ._handlers import Completions, install
from ._http import HttpServer
from ._memory import MemoryTransport
from ._records import Call, Cancellation, Records, Request
from ._script import UNRECORDED_METHODS, Pagination, Script
from ._serving import Serving
from ._sessions import CountedTransport
from ._stdio import RECORDS_ENV, SCRIPT_ENV, Children, run_stdio
from ._wire import WireFaults

__all__ = ["FakeMCPServer"]

F = TypeVar("F", bound=Callable[..., Any])
Transport = Literal["memory", "http", "stdio"]
TaskSupport = Literal["forbidden", "optional", "required"]

WAIT_FOR_SECONDS = 5.0
"""How long ``wait_for`` waits by default."""
_WAIT_POLL_SECONDS = 0.005


class FakeMCPServer:
    """An MCP server built on the SDK's ``MCPServer``, handing out clients over any transport.

    Declare tools, resources and prompts with ``@server.tool(...)``,
    ``@server.resource(...)`` and ``@server.prompt(...)``, completion values
    with ``completion()``; script faults with ``fault()``, ``fault_resource()``,
    ``fault_prompt()``, ``fault_request()`` and ``paginate()``; connect with
    ``client()`` and assert on ``requests``, ``calls``, ``cancellations`` and
    the session counts. ``close()`` (or ``async with server``) stops the HTTP
    server; a stdio connection removes its temporary files when it closes.
    """

    def __init__(self, name: str = "fake", *, import_path: str | None = None) -> None:
        self.name = name
        self._import_path = import_path
        self._module: str = sys._getframe(1).f_globals.get("__name__", "")
        self._records = Records()
        self._script = Script(self._records)
        self._sdk = MCPServer(name, lifespan=self._http_lifespan, log_level="WARNING")
        self._sdk.middleware.append(self._script)
        self._completions = Completions()
        install(self._lowlevel, self._completions)
        self._http: HttpServer | None = None
        self._children = Children(self._script, self._records)

    def __repr__(self) -> str:
        return f"<FakeMCPServer {self.name!r} tools={[t.name for t in self._tools()]}>"

    # -- declaring --------------------------------------------------------------

    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        annotations: types.ToolAnnotations | Mapping[str, Any] | None = None,
        task_support: TaskSupport | None = None,
        fault: Fault | None = None,
    ) -> Callable[[F], F]:
        """Register a sync or async function as a tool; the function is returned unchanged.

        The tool is the SDK's own ``MCPServer`` tool, so results are converted
        exactly as ``MCPServer`` converts them. The input schema comes from the
        type hints unless ``input_schema`` is given; explicit schemas are
        advertised verbatim (even invalid ones, to test clients), and the
        arguments still arrive as keyword arguments. ``annotations`` take a
        ``ToolAnnotations`` or its JSON dict (``{"readOnlyHint": True}``);
        ``task_support`` is advertised as ``execution.taskSupport``.
        """
        hints = _annotations(annotations)
        if task_support not in (None, "forbidden", "optional", "required"):
            raise ValueError(
                f"task_support must be 'forbidden', 'optional' or 'required', not {task_support!r}"
            )
        require_fault(fault)

        def register(fn: F) -> F:
            tool_name = name or fn.__name__
            self._sdk.add_tool(fn, name=tool_name, description=description, annotations=hints)
            declared: dict[str, Any] = {}
            if input_schema is not None:
                declared["inputSchema"] = dict(input_schema)
            if output_schema is not None:
                declared["outputSchema"] = dict(output_schema)
            if task_support is not None:
                declared["execution"] = {"taskSupport": task_support}
            self._script.schemas[tool_name] = declared
            self.fault(tool_name, fault)
            return fn

        return register

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        fault: Fault | None = None,
    ) -> Callable[[F], F]:
        """Register a function as a resource (a template if ``uri`` has ``{parameters}``).

        It is the SDK's own ``MCPServer`` resource: a ``str`` is text, ``bytes``
        a blob, anything else JSON; a template's function takes its parameters
        as keyword arguments. The function is returned unchanged.
        """
        _not_a_result(fault, "a resource read")

        def register(fn: F) -> F:
            self._sdk.resource(uri, name=name, description=description, mime_type=mime_type)(fn)
            self.fault_resource(uri, fault)
            return fn

        return register

    def prompt(
        self, name: str | None = None, *, description: str | None = None, fault: Fault | None = None
    ) -> Callable[[F], F]:
        """Register a function as a prompt; its parameters are the prompt's arguments.

        It is the SDK's own ``MCPServer`` prompt: return a ``str`` (one user
        message), a content block (an image, an embedded resource), a message
        or a list of these. The function is returned unchanged.
        """
        _not_a_result(fault, "a prompt")

        def register(fn: F) -> F:
            prompt_name = name or fn.__name__
            self._sdk.prompt(name=prompt_name, description=description)(fn)
            self.fault_prompt(prompt_name, fault)
            return fn

        return register

    def completion(
        self,
        argument: str,
        values: Sequence[str],
        *,
        prompt: str | None = None,
        template: str | None = None,
    ) -> None:
        """Answer ``completion/complete`` for a prompt's or a template's ``argument``.

        Name exactly one of ``prompt`` (a prompt's name) or ``template`` (a
        resource template's URI). A request gets the ``values`` that start with
        what the client typed so far, in order; at most
        ``MAX_COMPLETION_VALUES`` (100) of them.
        """
        if (prompt is None) == (template is None):
            raise TypeError("completion() takes exactly one of prompt= or template=")
        if prompt is not None:
            self._completions.declare(("ref/prompt", prompt, argument), values)
        else:
            assert template is not None
            self._completions.declare(("ref/resource", template, argument), values)

    def fault(self, tool: str, fault: Fault | None) -> None:
        """Script how calls to ``tool`` misbehave from now on; ``None`` makes it behave.

        An unknown tool name raises ``ValueError`` naming the known tools; a
        fault class or anything but a fault instance raises ``TypeError``.
        """
        known = [declared.name for declared in self._tools()]
        if tool not in known:
            raise ValueError(f"{self.name!r} has no tool {tool!r}; its tools are {known}")
        self._script_fault(("tools/call", tool), fault)

    def fault_resource(self, uri: str, fault: Fault | None) -> None:
        """Script how reads of the resource ``uri`` (or of any URI a template gives) misbehave.

        Every fault but ``ErrorResult`` applies; an undeclared URI raises
        ``ValueError`` naming the declared ones.
        """
        manager = self._sdk._resource_manager  # pyright: ignore[reportPrivateUsage]
        known = [str(r.uri) for r in manager.list_resources()]
        known += [t.uri_template for t in manager.list_templates()]
        if uri not in known:
            raise ValueError(f"{self.name!r} has no resource {uri!r}; its resources are {known}")
        self._script_fault(("resources/read", uri), _not_a_result(fault, "a resource read"))

    def fault_prompt(self, prompt: str, fault: Fault | None) -> None:
        """Script how ``prompts/get`` of ``prompt`` misbehaves; every fault but ``ErrorResult``."""
        manager = self._sdk._prompt_manager  # pyright: ignore[reportPrivateUsage]
        known = [declared.name for declared in manager.list_prompts()]
        if prompt not in known:
            raise ValueError(f"{self.name!r} has no prompt {prompt!r}; its prompts are {known}")
        self._script_fault(("prompts/get", prompt), _not_a_result(fault, "a prompt"))

    def fault_request(self, method: str, fault: Fault | None) -> None:
        """Script how every request of ``method`` misbehaves (``"resources/list"``, ``"ping"``...).

        A tool, resource or prompt's own fault wins over its method's. Every
        fault applies, but ``ErrorResult`` only to ``"tools/call"``; a method
        the server does not serve raises ``ValueError`` naming those it does.
        """
        served = sorted(set(self._lowlevel._request_handlers) - UNRECORDED_METHODS)  # pyright: ignore[reportPrivateUsage]
        if method not in served:
            raise ValueError(f"{self.name!r} does not serve {method!r}; it serves {served}")
        if method != "tools/call":
            _not_a_result(fault, f"a {method} request")
        self._script_fault((method, None), fault)

    def fault_listing(self, fault: Fault | None) -> None:
        """Script how ``tools/list`` misbehaves: ``fault_request("tools/list", fault)``."""
        self.fault_request("tools/list", fault)

    def paginate(self, page_size: int | None, *, endless: bool = False) -> None:
        """List tools ``page_size`` at a time (``None``: one page); ``endless`` never ends."""
        if page_size is not None and page_size < 1:
            raise ValueError(f"page_size must be positive, got {page_size}")
        self._script.pagination = Pagination(page_size, endless) if page_size else None
        self._publish()

    def reset(self) -> None:
        """Forget every fault, the pagination and all records (what was declared stays)."""
        self._script.faults.clear()
        self._script.pagination = None
        self._records.clear()
        self._publish()

    # -- connecting -------------------------------------------------------------

    def client(self, transport: Transport = "memory", **options: Any) -> mcp.Client:
        """A fresh, unconnected ``mcp.Client`` for this server; ``options`` go to ``mcp.Client``.

        ``"memory"`` runs the server in the client's event loop, ``"http"``
        connects over Streamable HTTP to a server this object starts and owns,
        and ``"stdio"`` starts a child process that imports this server as
        ``module:attribute`` (so it must be defined at module level, or given
        ``import_path=``) with the faults as they are now.
        """
        if transport == "memory":
            memory = MemoryTransport(self._lowlevel)
            return mcp.Client(CountedTransport(memory, self._records), **options)
        if transport == "http":
            counted = CountedTransport(streamable_http_client(self.url), self._records)
            return mcp.Client(counted, **options)
        if transport == "stdio":
            child = self._children.connect(self.import_path)
            return mcp.Client(CountedTransport(child, self._records), **options)
        raise ValueError(f"unknown transport {transport!r}: use 'memory', 'http' or 'stdio'")

    @property
    def url(self) -> str:
        """The Streamable HTTP endpoint, starting the HTTP server on first use."""
        if self._http is None:
            sdk, script = self._sdk, self._script
            http = HttpServer(
                lambda: WireFaults(sdk.streamable_http_app(), script),
                name=f"littleghost-fake-http-{self.name}",
            )
            http.start()
            self._http = http
        return f"{self._http.url}/mcp"

    @property
    def import_path(self) -> str:
        """``module:attribute`` naming this server, for stdio children."""
        if self._import_path is not None:
            return self._import_path
        module = sys.modules.get(self._module)
        if module is not None and self._module != "__main__":
            for attribute, value in vars(module).items():
                if value is self:
                    return f"{self._module}:{attribute}"
        raise ValueError(
            f"{self!r} is not importable as module:attribute: define it at module level "
            "or pass FakeMCPServer(..., import_path='module:attribute') to use stdio"
        )

    # -- observing --------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        """Every request received, in order, as ``(method, params)`` records.

        ``params`` are as sent, without ``_meta``; the handshake
        (``initialize``, ``server/discover``) is left out.
        """
        return self._records.requests

    @property
    def calls(self) -> list[Call]:
        """Every ``tools/call`` received, in order, as ``(tool, arguments)`` records."""
        return self._records.calls

    @property
    def cancellations(self) -> list[Cancellation]:
        """Calls interrupted before they were answered: ``(tool, arguments, reason)``."""
        return self._records.cancellations

    @property
    def sessions_opened(self) -> int:
        return self._records.sessions[0]

    @property
    def sessions_closed(self) -> int:
        return self._records.sessions[1]

    async def wait_for(
        self, condition: Callable[[], object], *, within: float = WAIT_FOR_SECONDS
    ) -> None:
        """Wait until ``condition()`` holds: servers record on their own time (threads, processes).

        ``within`` is how many seconds to wait; then ``TimeoutError`` says
        which condition never held and what the server had recorded.
        """
        try:
            with anyio.fail_after(within):
                while not condition():  # noqa: ASYNC110 - polls records other threads and processes write
                    await anyio.sleep(_WAIT_POLL_SECONDS)
        except TimeoutError:
            raise TimeoutError(
                f"{self.name!r}: {_describe(condition)} did not hold within {within:g} s "
                f"(calls: {self.calls!r}, cancellations: {self.cancellations!r})"
            ) from None

    # -- serving and closing ----------------------------------------------------

    def serve_stdio(self) -> None:
        """Serve over stdin/stdout until EOF: what the stdio child process runs."""
        script = os.environ.get(SCRIPT_ENV)
        if script is not None:
            self._script.follow(Path(script))
        records = os.environ.get(RECORDS_ENV)
        if records is not None:
            self._records.write_to(open(records, "a"))  # noqa: SIM115 - open until the process exits
        run_stdio(self._lowlevel)

    def close(self) -> None:
        """Stop the HTTP server and forget the faults; usable again after.

        Records stay, so a test can still assert on them after closing. A
        stdio connection's temporary files go when it closes, not here.
        """
        self._script.faults.clear()
        self._script.pagination = None
        self._publish()
        http, self._http = self._http, None
        if http is not None:
            http.stop()

    async def __aenter__(self) -> FakeMCPServer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await anyio.to_thread.run_sync(self.close)

    def _publish(self) -> None:
        """Keep the script file stdio children follow up to date."""
        self._children.publish()

    def _script_fault(self, target: tuple[str, str | None], fault: Fault | None) -> None:
        if require_fault(fault) is None:
            self._script.faults.pop(target, None)
        else:
            self._script.faults[target] = fault  # pyright: ignore[reportArgumentType]
        self._publish()

    @property
    def _lowlevel(self) -> Any:
        return self._sdk._lowlevel_server  # pyright: ignore[reportPrivateUsage]

    def _tools(self) -> list[Any]:
        return self._sdk._tool_manager.list_tools()  # pyright: ignore[reportPrivateUsage]

    @asynccontextmanager
    async def _http_lifespan(self, _sdk: MCPServer[Any]) -> AsyncIterator[Serving]:
        yield Serving(crash=self._crash_http)

    async def _crash_http(self) -> None:
        assert self._http is not None
        self._http.drop_connections()
        raise MCPError(code=types.INTERNAL_ERROR, message="the server crashed")


def _not_a_result(fault: Fault | None, what: str) -> Fault | None:
    """``fault``, checked; ``ErrorResult`` is a tool call's result and nothing else's."""
    if isinstance(require_fault(fault), ErrorResult):
        raise TypeError(f"ErrorResult is a tool-call result; {what} cannot return it")
    return fault


def _annotations(
    annotations: types.ToolAnnotations | Mapping[str, Any] | None,
) -> types.ToolAnnotations | None:
    """``ToolAnnotations`` from what ``tool(annotations=...)`` got, as ``MCPServer.tool`` takes."""
    if annotations is None or isinstance(annotations, types.ToolAnnotations):
        return annotations
    if isinstance(annotations, Mapping):
        return types.ToolAnnotations.model_validate(dict(annotations))
    raise TypeError(f"annotations must be a ToolAnnotations or a dict, not {annotations!r}")


def _describe(condition: Callable[[], object]) -> str:
    """A condition's source line (``lambda: server.calls``), else its name."""
    try:
        source = inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return f"the condition {getattr(condition, '__qualname__', repr(condition))}"
    start = source.find("lambda")
    if start < 0:
        return source.splitlines()[0]
    return source[start:].split(", within=")[0].rstrip(")")
