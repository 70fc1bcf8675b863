"""Turning an MCP ``CallToolResult`` into a littleghost value.

The default value is what a model most usefully reads: ``structuredContent``
when the server sent it, else the text blocks joined by newlines, else the
remaining blocks as JSON. Images never reach model-facing content as base64;
they become ``lg.Artifact`` objects and are listed as ``{"type": "image",
"mimeType": ...}`` placeholders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp_types as types

import littleghost as lg
from littleghost._validation import SchemaValidator, json_problem

from ._bounds import Bounds, ImageMeter, exceeded
from ._exceptions import MalformedMessage, OutputSchemaError

__all__ = ["Converted", "convert_result"]


@dataclass(frozen=True, slots=True)
class Converted:
    """The default value of a successful call and the artifacts it carried."""

    value: Any
    artifacts: tuple[lg.Artifact, ...]


def convert_result(
    result: types.CallToolResult,
    *,
    tool_name: str,
    output_validator: SchemaValidator | None,
    bounds: Bounds,
    max_depth: int,
) -> Converted:
    """Convert a result; ``isError`` raises ``ToolError`` with the server's text.

    Raises ``ProtocolError`` when the result exceeds the bounds (blocks, text,
    images, ``structuredContent`` nested deeper than ``max_depth``) or breaks
    the tool's ``outputSchema``. Over stdio and HTTP the transport has bounded
    the message already; these checks also cover in-process servers.
    """
    if len(result.content) > bounds.max_content_blocks:
        raise exceeded(
            "max_content_blocks",
            bounds.max_content_blocks,
            f"result with {len(result.content)} content blocks",
        )
    texts: list[str] = []
    others: list[Any] = []
    artifacts: list[lg.Artifact] = []
    images: ImageMeter | None = None
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
        elif isinstance(block, types.ImageContent):
            images = images or ImageMeter(bounds)
            data = images.decode(block.data)
            artifacts.append(lg.Artifact(data, block.mime_type))
            others.append({"type": "image", "mimeType": block.mime_type})
        else:
            others.append(block.model_dump(mode="json", by_alias=True, exclude_none=True))
    text = "\n".join(texts)
    size = _utf8_size(text)
    if result.is_error:
        if size > bounds.max_error_bytes:
            raise exceeded("max_error_bytes", bounds.max_error_bytes, f"error text of {size} bytes")
        raise lg.ToolError(text or f"MCP tool {tool_name} failed")
    if size > bounds.max_result_bytes:
        raise exceeded("max_result_bytes", bounds.max_result_bytes, f"result text of {size} bytes")
    structured = result.structured_content
    if structured is not None and (problem := json_problem(structured, max_depth=max_depth)):
        raise MalformedMessage(
            f"MCP tool {tool_name} returned structuredContent that is not safe to use: {problem}"
        )
    if output_validator is not None:
        if structured is None:
            raise OutputSchemaError(
                f"MCP tool {tool_name} declares an outputSchema but returned no structuredContent"
            )
        if not output_validator.accepts(structured):  # json_problem has passed above
            raise OutputSchemaError(
                f"MCP tool {tool_name} returned structuredContent that breaks its outputSchema: "
                f"{output_validator.report(structured)}"
            )
    if structured is not None:
        value: Any = structured
    elif texts:
        value = text
    else:
        value = others or None
    return Converted(value, tuple(artifacts))


def _utf8_size(text: str) -> int:
    """UTF-8 length, without encoding when the character count already decides."""
    return len(text) if text.isascii() else len(text.encode(errors="surrogatepass"))
