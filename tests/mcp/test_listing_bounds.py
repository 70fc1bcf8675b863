"""``max_catalog_bytes`` bounds each resources, templates and prompts listing (issue 30, 2).

Against the hostile listings server (``tests/hostile/servers/listings.py``):
pages of one 1 KiB item each, read by a client whose bound is 4000 bytes.
"""

from __future__ import annotations

import sys
from typing import Any

import mcp
import pytest

import littleghost.mcp
from littleghost.mcp import LimitExceeded, Toolset

pytestmark = pytest.mark.anyio

LISTINGS = {
    "resources": lambda client, cursor: client.list_resources(cursor=cursor),
    "templates": lambda client, cursor: client.list_resource_templates(cursor=cursor),
    "prompts": lambda client, cursor: client.list_prompts(cursor=cursor),
}


class Small(Toolset):
    max_catalog_bytes = 4000


def listed(kind: str, pages: int) -> mcp.Client:
    command = [sys.executable, "-m", "tests.hostile.servers.listings", kind, str(pages), "1024"]
    return littleghost.mcp.client(command, limits=Small)


async def every_page(client: mcp.Client, kind: str) -> int:
    cursor: str | None = None
    pages = 0
    while True:
        page: Any = await LISTINGS[kind](client, cursor)
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            return pages


@pytest.mark.parametrize("kind", list(LISTINGS))
async def test_a_listing_past_max_catalog_bytes_is_a_limit_exceeded(kind: str) -> None:
    async with listed(kind, 10) as client:
        with pytest.raises(LimitExceeded, match=r"max_catalog_bytes \(4000\)") as raised:
            await every_page(client, kind)
    assert raised.value.limit == "max_catalog_bytes"


@pytest.mark.parametrize("kind", list(LISTINGS))
async def test_control_a_listing_within_it_is_read_whole_again_and_again(kind: str) -> None:
    async with listed(kind, 3) as client:
        assert [await every_page(client, kind) for _ in range(3)] == [3, 3, 3]
