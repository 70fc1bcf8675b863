"""Which parameter of a tool function receives the RunContext: one rule for
``Tool.define`` and ``@lg.tool`` (the MCP SDK's ``find_context_parameter`` is the model).

The rule: the parameter annotated ``RunContext`` (or an optional or union
including it), else the parameter named ``context``. It must be passable by
keyword. ``Tool.define`` also passes ``context`` to a function that takes
``**kwargs``; ``@lg.tool`` refuses ``**kwargs`` (no schema can describe it).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any

from ._context import RunContext
from ._errors import ConfigurationError

__all__ = ["context_parameter", "forwarding_call"]

_NAME = "context"


def context_parameter(
    fn: Callable[..., Any], *, hints: dict[str, Any] | None = None, var_keyword: bool = False
) -> str | None:
    """The name of ``fn``'s parameter that receives the RunContext, or None.

    ``hints`` are ``fn``'s resolved type hints when the caller has them; else
    they are resolved here, and unresolvable hints leave the name rule alone.
    With ``var_keyword``, ``**kwargs`` receives it as ``context``.
    """
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    if hints is None:
        try:
            hints = typing.get_type_hints(fn)
        except Exception:
            hints = {}
    annotated = [name for name in parameters if _is_run_context(hints.get(name))]
    if len(annotated) > 1:
        raise ConfigurationError(
            f"{_label(fn)} has more than one RunContext parameter: {', '.join(annotated)}"
        )
    name = annotated[0] if annotated else (_NAME if _NAME in parameters else None)
    if name is None:
        has_var_keyword = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
        return _NAME if var_keyword and has_var_keyword else None
    parameter = parameters[name]
    if parameter.kind not in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD):
        raise ConfigurationError(
            f"{_label(fn)}: the RunContext parameter {name!r} must be passable by keyword"
        )
    return name


def forwarding_call(
    fn: Callable[..., Any],
    arguments: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]],
    context_name: str | None,
) -> Callable[..., Any]:
    """A Tool ``call`` method: ``fn(*args, **kwargs)`` from ``arguments(input)``, plus
    the RunContext as ``context_name`` when ``fn`` asks for it; async if ``fn`` is."""
    if inspect.iscoroutinefunction(fn):

        async def call_async(self: Any, input: Any) -> Any:
            args, kwargs = arguments(input)
            if context_name is not None:
                kwargs[context_name] = self.context
            return await fn(*args, **kwargs)

        return call_async

    def call(self: Any, input: Any) -> Any:
        args, kwargs = arguments(input)
        if context_name is not None:
            kwargs[context_name] = self.context
        return fn(*args, **kwargs)

    return call


def _is_run_context(annotation: Any) -> bool:
    if isinstance(annotation, type):
        return issubclass(annotation, RunContext)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_run_context(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return any(_is_run_context(argument) for argument in typing.get_args(annotation))
    return False


def _label(fn: Callable[..., Any]) -> str:
    return f"Tool function {getattr(fn, '__qualname__', repr(fn))}"
