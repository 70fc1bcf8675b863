"""Resources and resource templates as ``check`` reads them: what to read, and what to check.

A listed resource is read at its URI. A template is read at the URIs its
variables make: each variable filled with the server's completions, then
generated strings (``_read_values``), one round of values per read.
"""

from __future__ import annotations

from typing import Any

import mcp
import mcp_types as types

from ._read_session import Attempt
from ._read_values import base64_problem, candidates, rounds
from ._uri_templates import expand, variables

__all__ = ["contents_problem", "read", "template_attempts"]


async def read(client: mcp.Client, uri: Any) -> types.ReadResourceResult:
    """One ``resources/read``, never served from the client's cache."""
    return await client.read_resource(str(uri), cache_mode="bypass")


async def template_attempts(
    client: mcp.Client, template: types.ResourceTemplate, seconds: float
) -> list[Attempt]:
    """The URIs to read for ``template``: one per round of values, each URI once."""
    names = variables(template.uri_template)
    ref = types.ResourceTemplateReference(uri=template.uri_template)
    values = {name: await candidates(client, ref, name, seconds=seconds) for name in names}
    uris = dict.fromkeys(expand(template.uri_template, chosen) for chosen in rounds(names, values))
    return [Attempt(uri, generated=bool(names)) for uri in uris]


def contents_problem(result: Any) -> str | None:
    """What the MCP types let by in a read's contents: a blob that is not base64."""
    assert isinstance(result, types.ReadResourceResult)
    for index, entry in enumerate(result.contents):
        if isinstance(entry, types.BlobResourceContents):
            problem = base64_problem(entry.blob, f"contents[{index}].blob")
            if problem is not None:
                return problem
    return None
