"""A stdio connection to a FakeMCPServer leaves no temporary files, however it ends.

Each connection keeps the script its child follows and the records it writes in a
``littleghost-fake-*`` folder of its own. The folder goes when the connection closes:
after the block, after an exception in it, and after a cancellation, without
``server.close()`` (a module-level server shared by tests is never closed).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from fake_server_targets import catalog

from littleghost_testing.fake_server import Hang

pytestmark = pytest.mark.anyio

CONNECT_SECONDS = 30  # a child's start-up on a loaded machine


Folders = Callable[[], list[Path]]


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Folders]:
    """The ``littleghost-fake-*`` folders in the test's own temp folder, as of each call."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    catalog.reset()
    yield lambda: sorted(tmp_path.glob("littleghost-fake-*"))
    catalog.reset()  # never closed, as a module-level server shared by tests


async def test_the_folder_goes_when_the_block_ends(folders: Folders) -> None:
    with anyio.fail_after(CONNECT_SECONDS):
        async with catalog.client("stdio") as client:
            [folder] = folders()
            assert sorted(path.name for path in folder.iterdir()) == [
                "records.jsonl",
                "script.json",
            ]
            await client.call_tool("lookup", {"topic": "refunds"})
    assert folders() == []
    assert catalog.calls == [("lookup", {"topic": "refunds"})]  # read before the files went


async def test_the_folder_goes_when_the_block_raises(folders: Folders) -> None:
    with pytest.raises((LookupError, ExceptionGroup)) as raised:
        with anyio.fail_after(CONNECT_SECONDS):
            async with catalog.client("stdio") as client:
                await client.list_tools()
                assert len(folders()) == 1
                raise LookupError("the test's own")
    assert raised.errisinstance(LookupError) or raised.group_contains(LookupError)
    assert folders() == []


async def test_the_folder_goes_when_the_block_is_cancelled(folders: Folders) -> None:
    catalog.fault("lookup", Hang())
    with anyio.CancelScope() as scope, anyio.fail_after(CONNECT_SECONDS):
        async with catalog.client("stdio") as client, anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "lookup", {"topic": "never answered"})
            await catalog.wait_for(lambda: catalog.calls, within=CONNECT_SECONDS)
            assert len(folders()) == 1
            scope.cancel()  # the call in flight, the block and the connection with it
    assert scope.cancelled_caught
    assert folders() == []


async def test_no_folder_for_a_connection_cancelled_while_it_opens(folders: Folders) -> None:
    with anyio.CancelScope() as scope:
        scope.cancel()
        async with catalog.client("stdio"):
            pytest.fail("connected inside a cancelled scope")
    assert folders() == []


def test_no_folder_for_a_client_never_connected(folders: Folders) -> None:
    catalog.client("stdio")
    catalog.fault("lookup", Hang())  # published to no one
    assert folders() == []
