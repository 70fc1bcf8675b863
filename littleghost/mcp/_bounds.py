"""Limits on untrusted data an MCP server sends.

A server is remote code we do not control: every catalog, schema and result
is measured before it is kept, and exceeding a limit is a ``ProtocolError``
naming the limit (the ``Toolset`` attribute that sets it), so an operator can
tell a hostile server from a large one and raise the limit on purpose.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from littleghost._schema import Measured, measure_within
from littleghost._validation import MAX_SCHEMA_DEPTH

from ._exceptions import LimitExceeded, MalformedMessage, SchemaLimitExceeded

__all__ = ["Bounds", "CatalogMeter", "ImageMeter", "event_text", "exceeded"]

_SCALARS = frozenset({str, int, float, bool, type(None)})

Where = tuple[str, str]
"""A schema's place in the catalog: the tool's name and the field (``inputSchema``...)."""


@dataclass(frozen=True, slots=True)
class Bounds:
    """One toolset's limits, read from its ``Toolset`` attributes (the one source of defaults)."""

    max_tools: int
    max_pages: int
    max_catalog_bytes: int
    max_cursor_bytes: int
    max_schema_depth: int
    max_schema_nodes: int
    max_regexes: int
    max_regex_bytes: int
    max_total_regex_bytes: int
    max_images: int
    max_image_bytes: int
    max_total_image_bytes: int
    max_result_bytes: int
    max_content_blocks: int
    max_error_bytes: int
    max_event_text_bytes: int
    max_input_rounds: int
    max_input_requests: int
    max_request_state_bytes: int

    @classmethod
    def of(cls, owner: object) -> Bounds:
        """Read every limit from same-named attributes of ``owner`` (a Toolset class)."""
        values = {name: getattr(owner, name) for name in cls.__slots__}
        for name, value in values.items():
            if type(value) is not int or value < 1:
                raise TypeError(f"{name} must be a positive int, got {value!r}")
        return cls(**values)


def exceeded(bound: str, limit: int, what: str) -> LimitExceeded:
    """The error for a server past one limit, naming the attribute that raises it."""
    return LimitExceeded(f"MCP server exceeded {bound} ({limit}): {what}", limit=bound, value=limit)


def _schema_exceeded(bound: str, limit: int, what: str, where: Where) -> SchemaLimitExceeded:
    """The error for one tool's schema past a bound of one schema: that tool alone is unusable."""
    tool, field = where
    return SchemaLimitExceeded(
        f"MCP server exceeded {bound} ({limit}): {field} of {tool!r} {what}",
        limit=bound,
        value=limit,
        tool=tool,
        field=field,
    )


def event_text(text: str, limit: int) -> str:
    """Server text for an event or a log line: at most ``limit`` UTF-8 bytes, cut with ``…``."""
    if len(text) * 4 <= limit:  # no character is longer than 4 bytes: short enough as it is
        return text
    encoded = text.encode(errors="replace")
    if len(encoded) <= limit:
        return text
    return encoded[: max(limit - 3, 0)].decode(errors="ignore") + "…"


class CatalogMeter:
    """Accumulates one discovery's pages, cursors, schemas and regexes against the limits."""

    def __init__(self, bounds: Bounds) -> None:
        self._bounds = bounds
        self._pages = 0
        self._tools = 0
        self._bytes = 0
        self._cursors: set[str] = set()
        self._regexes = 0
        self._regex_bytes = 0

    def page(self, tool_count: int, size: int) -> None:
        """Count one tools/list page of ``tool_count`` tools and ``size`` JSON bytes."""
        b = self._bounds
        self._pages += 1
        if self._pages > b.max_pages:
            raise exceeded("max_pages", b.max_pages, "too many tools/list pages")
        self._tools += tool_count
        if self._tools > b.max_tools:
            raise exceeded("max_tools", b.max_tools, "too many tools in the catalog")
        self._bytes += size
        if self._bytes > b.max_catalog_bytes:
            raise exceeded("max_catalog_bytes", b.max_catalog_bytes, "tool catalog too large")

    def cursor(self, cursor: str) -> None:
        """Reject a next-page cursor that is oversized or was already seen (endless pagination)."""
        b = self._bounds
        if len(cursor.encode()) > b.max_cursor_bytes:
            raise exceeded("max_cursor_bytes", b.max_cursor_bytes, "pagination cursor too large")
        if cursor in self._cursors:
            raise MalformedMessage("MCP server repeated a pagination cursor (endless pagination)")
        self._cursors.add(cursor)

    def schema(self, schema: Any, where: Where) -> Measured | None:
        """Check one schema's depth and size and count its regexes.

        Regexes are counted conservatively: every string under a ``pattern`` key
        and every key of a ``patternProperties`` object, wherever it sits. A
        plain JSON tree within the depth limits (nearly every schema) is
        measured without a copy (``measure_within``), and what the walk learned
        is returned; anything else is measured by ``_measure``, and is ``None``:
        the caller takes the slow path that freezes it and says what is wrong.
        A bound of one schema is a ``SchemaLimitExceeded`` (that tool is
        unusable); a bound of the catalog a ``LimitExceeded``.
        """
        depth = min(self._bounds.max_schema_depth, MAX_SCHEMA_DEPTH)
        measured = measure_within(schema, depth)
        if measured is None:
            self._measure(schema, where)
            return None
        if measured.nodes > self._bounds.max_schema_nodes:
            limit = self._bounds.max_schema_nodes
            raise _schema_exceeded("max_schema_nodes", limit, "too large", where)
        for regex in measured.regexes:
            self._regex(regex, where)
        return measured

    def _measure(self, schema: Any, where: Where) -> None:
        """The general walk: any mapping, depth and size checked without recursion."""
        b = self._bounds
        nodes = 0
        level: list[Any] = [schema]
        depth = 1  # of the containers in ``level``
        while level:  # one level at a time: most nodes are scalars, skipped by exact type
            nodes += len(level)
            if nodes > b.max_schema_nodes:
                raise _schema_exceeded("max_schema_nodes", b.max_schema_nodes, "too large", where)
            below: list[Any] = []
            for value in level:
                if type(value) in _SCALARS:
                    continue
                if isinstance(value, Mapping):
                    if depth > b.max_schema_depth:
                        raise _schema_exceeded(
                            "max_schema_depth", b.max_schema_depth, "too deep", where
                        )
                    pattern = value.get("pattern")  # pyright: ignore[reportUnknownMemberType]
                    if isinstance(pattern, str):
                        self._regex(pattern, where)
                    regexes = value.get("patternProperties")  # pyright: ignore[reportUnknownMemberType]
                    if isinstance(regexes, Mapping):
                        for regex in regexes:  # pyright: ignore[reportUnknownVariableType]
                            self._regex(str(regex), where)  # pyright: ignore[reportUnknownArgumentType]
                    below.extend(value.values())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
                elif isinstance(value, list):
                    if depth > b.max_schema_depth:
                        raise _schema_exceeded(
                            "max_schema_depth", b.max_schema_depth, "too deep", where
                        )
                    below.extend(value)  # pyright: ignore[reportUnknownArgumentType]
            level = below
            depth += 1

    def _regex(self, regex: str, where: Where) -> None:
        b = self._bounds
        size = len(regex.encode())
        if size > b.max_regex_bytes:
            raise _schema_exceeded(
                "max_regex_bytes", b.max_regex_bytes, "has a regex too large", where
            )
        self._regexes += 1
        if self._regexes > b.max_regexes:
            raise exceeded("max_regexes", b.max_regexes, "too many regexes in the catalog")
        self._regex_bytes += size
        if self._regex_bytes > b.max_total_regex_bytes:
            raise exceeded(
                "max_total_regex_bytes", b.max_total_regex_bytes, "regexes in the catalog too large"
            )


class ImageMeter:
    """Decodes one result's images against the count and size limits."""

    def __init__(self, bounds: Bounds) -> None:
        self._bounds = bounds
        self._count = 0
        self._bytes = 0

    def decode(self, data: str) -> bytes:
        """Strict base64 decode, measured before decoding so oversized data is never expanded."""
        b = self._bounds
        self._count += 1
        if self._count > b.max_images:
            raise exceeded("max_images", b.max_images, "too many images in one result")
        size = len(data) * 3 // 4
        if size > b.max_image_bytes:
            raise exceeded("max_image_bytes", b.max_image_bytes, "image too large")
        if self._bytes + size > b.max_total_image_bytes:
            raise exceeded("max_total_image_bytes", b.max_total_image_bytes, "images too large")
        try:
            decoded = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise MalformedMessage("MCP server sent an image that is not valid base64") from None
        self._bytes += len(decoded)
        return decoded
