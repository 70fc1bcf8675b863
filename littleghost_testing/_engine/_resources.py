"""Resources and resource templates as ``check`` reads them: what to read, and what to check.

A listed resource is read at its URI. A template is read at the URIs the
user's values make (``--inputs``), each its own round, then at those its
variables make filled with the values the server offered (its listing, its
completions), then generated strings (``_read_values``), one round of values
per read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import mcp
import mcp_types as types

from ._completions import Completions
from ._read_session import Attempt
from ._read_values import base64_problem, candidates, rounds
from ._uri_templates import expand, variables

__all__ = ["contents_problem", "read", "template_attempts"]


async def read(client: mcp.Client, uri: Any) -> types.ReadResourceResult:
    """One ``resources/read``, never served from the client's cache."""
    return await client.read_resource(str(uri), cache_mode="bypass")


async def template_attempts(
    completions: Completions,
    template: types.ResourceTemplate,
    *,
    offered: Mapping[str, Sequence[str]],
    given: Sequence[Mapping[str, Any]],
) -> list[Attempt]:
    """The URIs to read for ``template``: each ``given`` set of values, then one per round of
    values, each URI once."""
    uri_template = template.uri_template
    attempts = [
        Attempt(expand(uri_template, values), generated=False, round=f"given {number}")
        for number, values in enumerate(given)
    ]
    names = variables(uri_template)
    ref = types.ResourceTemplateReference(uri=uri_template)
    values = {
        name: await candidates(completions, ref, name, offered.get(name, ())) for name in names
    }
    uris = dict.fromkeys(expand(uri_template, chosen) for chosen in rounds(names, values))
    return attempts + [Attempt(uri, generated=bool(names)) for uri in uris]


def contents_problem(result: Any) -> str | None:
    """What the MCP types let by in a read's contents: a blob that is not base64."""
    assert isinstance(result, types.ReadResourceResult)
    for index, entry in enumerate(result.contents):
        if isinstance(entry, types.BlobResourceContents):
            problem = base64_problem(entry.blob, f"contents[{index}].blob")
            if problem is not None:
                return problem
    return None
