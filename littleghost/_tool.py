"""``Tool``: a validated, model-safe way for an agent to call application code."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any, ClassVar

from . import instrumentation
from ._backtracking import DEFAULT_REGEX_TIMEOUT
from ._binding import Binding
from ._context import Guard, RunContext
from ._errors import CleanupError, ConfigurationError, ToolError
from ._frozen import FrozenDict, freeze
from ._injection import context_parameter, forwarding_call
from ._results import UNSERIALIZABLE, ExecutionResult, Result, render_content
from ._schema import freeze_within
from ._validation import MAX_SCHEMA_DEPTH, SchemaValidator, json_problem, schema_problem
from ._workers import run_in_worker

__all__ = ["Tool", "running_guard", "snake_case"]

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_DEFAULT_SCHEMA: Mapping[str, Any] = {"type": "object"}

# The ``execute`` calls running in this task, innermost last: the tool, its context
# and its run's guard (None for a call without a context).
_executing: ContextVar[tuple[tuple[Tool, RunContext, Guard | None], ...]] = ContextVar(
    "littleghost_executing", default=()
)


def running_guard(tool: Tool) -> Guard | None:
    """The guard around ``tool``'s ``execute`` running in this task, if any."""
    for running, _, guard in reversed(_executing.get()):
        if running is tool:
            return guard
    return None


def snake_case(name: str) -> str:
    """``TicketStatusTool`` -> ``ticket_status_tool``; ``HTTPFetchTool`` -> ``http_fetch_tool``."""
    return _WORD_BOUNDARY.sub("_", name).lower()


class Tool:
    """Subclass it, declare the class attributes, implement ``call(self, input)``.

    ``execute`` validates the model's input, runs ``call`` and turns every
    ordinary failure into a model-safe error result; cancellation, deadlines
    and cleanup failures propagate.
    """

    tool_name: ClassVar[str]
    description: ClassVar[str | None] = None
    input_schema: ClassVar[Mapping[str, Any]] = _DEFAULT_SCHEMA
    exclusive: ClassVar[bool] = False
    available_if: ClassVar[Callable[[Binding], bool] | None] = None
    # Input nested deeper than this is an invalid-input result, checked before the
    # native validator (which recurses once per level) sees it. Real tool input
    # nests a handful of levels; 64 keeps the validator's stack use far inside even
    # a 128 KiB thread stack (it overflowed 256 KiB at about 1 000 levels).
    max_input_depth: ClassVar[int] = 64
    # Seconds one match of a lookaround or backreference pattern may take (such
    # patterns backtrack; the others run in linear time). Read at class creation.
    regex_timeout: ClassVar[float] = DEFAULT_REGEX_TIMEOUT

    _explicit_name: ClassVar[bool] = False
    _validator: ClassVar[SchemaValidator]
    _specification: ClassVar[Mapping[str, Any]]
    _call_is_async: ClassVar[bool]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _configure(cls)

    def __init__(self, binding: Binding | None = None) -> None:
        if type(self).call is Tool.call:
            raise ConfigurationError(f"{type(self).__name__} must implement call(self, input)")
        if binding is not None and not isinstance(binding, Binding):
            raise TypeError(f"binding must be a Binding, not {type(binding).__name__}")
        self._binding = Binding() if binding is None else binding

    def __repr__(self) -> str:
        return f"<{type(self).__name__} tool_name={self.tool_name!r}>"

    # -- the class contract -------------------------------------------------

    @classmethod
    def specification(cls) -> Mapping[str, Any]:
        """The frozen, JSON-serializable ``{"name", "description", "input_schema"}``."""
        return cls._specification

    @classmethod
    def available(cls, binding: Binding) -> bool:
        """Whether a registry should build this tool for ``binding``."""
        predicate = cls.available_if
        return True if predicate is None else bool(predicate(binding))

    @classmethod
    def define(
        cls,
        name: str,
        description: str,
        fn: Callable[..., Any],
        input_schema: Mapping[str, Any] | None = None,
    ) -> type[Tool]:
        """An anonymous subclass backed by ``fn(input)``, given the RunContext too if it asks.

        ``fn`` asks as ``@lg.tool`` functions do (a parameter annotated ``RunContext``,
        else one named ``context``), or through ``**kwargs``.
        """
        if not callable(fn):
            raise TypeError(f"fn must be callable, not {type(fn).__name__}")
        context_name = context_parameter(fn, var_keyword=True)
        call = forwarding_call(fn, _input_only, context_name)
        namespace = {
            "tool_name": name,
            "description": description,
            "input_schema": _DEFAULT_SCHEMA if input_schema is None else input_schema,
            "call": call,
            "__module__": getattr(fn, "__module__", __name__),
            "__doc__": description,
        }
        return type(str(name), (cls,), namespace)

    # -- what the binding supplies ------------------------------------------

    @property
    def binding(self) -> Binding:
        return self._binding

    @property
    def agent(self) -> Any:
        return self._binding.agent

    @property
    def run(self) -> Any:
        return self._binding.run

    @property
    def runtime(self) -> Any:
        return self._binding.runtime

    @property
    def model(self) -> Any:
        return self._binding.model

    @property
    def workspace(self) -> Any:
        return self._binding.workspace

    @property
    def sandbox(self) -> Any:
        return self._binding.sandbox

    @property
    def context(self) -> RunContext | None:
        """The RunContext of this tool's ``execute`` running in the current task."""
        for tool, context, _ in reversed(_executing.get()):
            if tool is self:
                return context
        return None

    # -- running ------------------------------------------------------------

    def call(self, input: Any) -> Any:
        """Implement the operation; ``async def call`` works too."""
        raise ConfigurationError(f"{type(self).__name__} must implement call(self, input)")

    def close(self) -> Any:
        """Release what this instance owns; may be ``async``. The registry calls it once."""
        return None

    async def execute(self, input: Any, *, context: RunContext | None = None) -> ExecutionResult:
        """Validate ``input``, run ``call`` and normalize the outcome (see the guide)."""
        if not instrumentation.active():
            return await self._execute(input, context)
        # The guard inside has already turned a stop of the run into its lg error.
        with instrumentation.measure("tool_call", tool=self.tool_name) as measurement:
            result = await self._execute(input, context)
            if result.is_error:
                measurement.failed()
            return result

    async def _execute(self, input: Any, context: RunContext | None) -> ExecutionResult:
        guarded = context is not None
        if context is None:
            context = RunContext()
        else:
            context.check()
        validator = self._validator
        problem = json_problem(input, max_depth=self.max_input_depth)
        if problem is not None or not validator.accepts(input):
            message = "Invalid tool input: " + (problem or validator.report(input))
            return ExecutionResult.failure(message, ToolError(message))
        guard = context.guard() if guarded else None
        reset = _executing.set((*_executing.get(), (self, context, guard)))
        try:
            if guard is not None:
                with guard:
                    if self._call_is_async:  # one coroutine fewer, as below
                        value = await self.call(input)
                    else:
                        value = await self._invoke(input)
            elif self._call_is_async:
                value = await self.call(input)  # the common case, one coroutine fewer
            else:
                value = await self._invoke(input)
        except ToolError as error:
            return ExecutionResult.failure(_message(error), error)
        except CleanupError:
            raise
        except Exception as error:
            return ExecutionResult.failure(f"Tool failed ({type(error).__name__})", error)
        finally:
            _executing.reset(reset)
        return _success(value)

    async def _invoke(self, input: Any) -> Any:
        if self._call_is_async:
            return await self.call(input)
        # A sync call runs in a worker thread so it never blocks other tools; on
        # cancellation the await returns at once and the thread is abandoned (it
        # keeps its slot of the thread limit until it really finishes).
        return await run_in_worker(functools.partial(self.call, input))


def _message(error: ToolError) -> str:
    """A ToolError's text; one whose ``__str__`` raises is sanitized like any failure."""
    try:
        return str(error)
    except Exception:
        return f"Tool failed ({type(error).__name__})"


def _success(value: Any) -> ExecutionResult:
    artifacts: tuple[Any, ...] = ()
    if isinstance(value, Result):
        value, artifacts = value.value, value.artifacts
    try:
        content = render_content(value)
    except Exception as error:
        json_failure = isinstance(error, TypeError | ValueError | RecursionError)
        if json_failure and isinstance(value, Mapping | list | tuple):
            return ExecutionResult("error", None, UNSERIALIZABLE, error, artifacts)
        # Anything else (a ``__str__`` that raises) is a tool failure, sanitized.
        return ExecutionResult.failure(f"Tool failed ({type(error).__name__})", error)
    return ExecutionResult("success", value, content, None, artifacts)


def _configure(cls: type[Tool]) -> None:
    """Check and normalize a Tool subclass's declarations when it is created."""
    own = cls.__dict__
    if "tool_name" in own:
        if not isinstance(own["tool_name"], str):
            raise TypeError(f"{cls.__name__}.tool_name must be a str")
        cls._explicit_name = True
    elif not cls._explicit_name:
        cls.tool_name = snake_case(cls.__name__)
    if cls.description is not None and not isinstance(cls.description, str):
        raise TypeError(f"{cls.__name__}.description must be a str")
    if not isinstance(cls.exclusive, bool):
        raise TypeError(f"{cls.__name__}.exclusive must be a bool")
    depth = cls.max_input_depth
    if type(depth) is not int or depth < 1:
        raise ConfigurationError(f"{cls.__name__}.max_input_depth must be a positive int")
    timeout = cls.regex_timeout
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or not 0 < timeout < 1e9:
        raise ConfigurationError(f"{cls.__name__}.regex_timeout must be a positive number")
    if cls.available_if is not None and not callable(cls.available_if):
        raise TypeError(f"{cls.__name__}.available_if must be callable or None")
    if "input_schema" in own or "regex_timeout" in own or not hasattr(cls, "_validator"):
        schema = cls.input_schema
        if not isinstance(schema, Mapping):
            raise TypeError(
                f"{cls.__name__}.input_schema must be a mapping, not {type(schema).__name__}"
            )
        frozen = freeze_within(schema, MAX_SCHEMA_DEPTH)  # one pass: checked and frozen
        if frozen is None:  # not a plain tree: the slow check says what is wrong, if anything
            problem = schema_problem(schema)
            if problem is not None:
                raise ConfigurationError(f"{cls.__name__}: Invalid input schema: {problem}")
            frozen = freeze(schema)
        try:
            cls._validator = SchemaValidator(frozen, regex_timeout=float(timeout))
        except ConfigurationError as error:
            raise ConfigurationError(f"{cls.__name__}: {error}") from None
        cls.input_schema = frozen
    cls._call_is_async = inspect.iscoroutinefunction(cls.call)
    cls._specification = FrozenDict(
        name=cls.tool_name, description=cls.description, input_schema=cls.input_schema
    )


def _input_only(input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``Tool.define``'s functions take the model's input whole, as one argument."""
    return (input,), {}


_configure(Tool)
