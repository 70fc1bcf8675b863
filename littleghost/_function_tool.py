"""``@tool``: a Tool subclass from a typed function, its schema derived by pydantic."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, overload

import pydantic
from pydantic.json_schema import GenerateJsonSchema

from ._errors import ConfigurationError, ToolError
from ._injection import context_parameter, forwarding_call
from ._tool import Tool
from ._validation import json_path

__all__ = ["tool"]


class _UntitledSchema(GenerateJsonSchema):
    """Pydantic's schema without the generated ``title`` on every field."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


@overload
def tool(fn: Callable[..., Any], /) -> type[Tool]: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, exclusive: bool = False
) -> Callable[[Callable[..., Any]], type[Tool]]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    exclusive: bool = False,
) -> type[Tool] | Callable[[Callable[..., Any]], type[Tool]]:
    """Turn ``fn`` into a Tool subclass; its keyword arguments are the model's input.

    The RunContext goes to the parameter annotated ``RunContext``, else to one
    named ``context`` (the rule ``Tool.define`` follows too), never to the
    model. The docstring is the default description.
    """

    def decorate(fn: Callable[..., Any]) -> type[Tool]:
        return _tool_class(fn, name=name, description=description, exclusive=exclusive)

    return decorate if fn is None else decorate(fn)


def _tool_class(
    fn: Callable[..., Any], *, name: str | None, description: str | None, exclusive: bool
) -> type[Tool]:
    if not callable(fn):
        raise TypeError(f"@tool needs a function, not {type(fn).__name__}")
    tool_name = name if name is not None else fn.__name__
    text = description if description is not None else inspect.getdoc(fn)
    if not text:
        raise ConfigurationError(f"Tool {tool_name!r} needs a description or a docstring")
    model, schema, context_name = _input_model(fn, tool_name)
    # Fields have neutral names; each parameter's name is its field's alias.
    field_names = tuple((field, info.alias) for field, info in model.model_fields.items())

    def arguments(input: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        try:
            parsed = model.model_validate(input)
        except pydantic.ValidationError as error:
            problems = "; ".join(
                f"{json_path(list(item['loc']))} {item['msg'].lower()}" for item in error.errors()
            )
            raise ToolError(f"Invalid tool input: {problems}") from None
        return (), {str(alias): getattr(parsed, field) for field, alias in field_names}

    call = forwarding_call(fn, arguments, context_name)
    namespace = {
        "tool_name": tool_name,
        "description": text,
        "input_schema": schema,
        "exclusive": exclusive,
        "call": call,
        "__module__": fn.__module__,
        "__qualname__": getattr(fn, "__qualname__", tool_name),
        "__doc__": text,
        "__wrapped__": fn,
    }
    return type(fn.__name__, (Tool,), namespace)


def _input_model(
    fn: Callable[..., Any], tool_name: str
) -> tuple[type[pydantic.BaseModel], dict[str, Any], str | None]:
    """A model of ``fn``'s parameters, its JSON Schema, and its RunContext parameter."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as error:
        raise ConfigurationError(f"Tool {tool_name!r}: unresolvable type hints: {error}") from None
    context_name = context_parameter(fn, hints=hints)
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.name == context_name:
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ConfigurationError(
                f"Tool {tool_name!r}: *{parameter.name} cannot be described by a schema"
            )
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise ConfigurationError(
                f"Tool {tool_name!r}: positional-only {parameter.name!r} cannot take model input"
            )
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is parameter.empty else parameter.default
        # A parameter named like a BaseModel member (json, schema, model_config, _private)
        # would shadow it or be dropped: the name lives in the alias only.
        alias = pydantic.Field(alias=parameter.name)
        fields[f"p{len(fields)}"] = (Annotated[annotation, alias], default)
    try:
        model = pydantic.create_model(
            f"{tool_name}_input", __config__=pydantic.ConfigDict(extra="forbid"), **fields
        )
        schema = model.model_json_schema(schema_generator=_UntitledSchema)
    except (pydantic.PydanticUserError, pydantic.PydanticSchemaGenerationError, TypeError) as error:
        raise ConfigurationError(f"Tool {tool_name!r}: {error}") from None
    schema.pop("title", None)
    return model, schema, context_name
