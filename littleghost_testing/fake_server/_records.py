"""What a fake server observed: requests, calls, cancellations and sessions.

Handlers record from whichever thread serves them (the test's event loop for
memory, the uvicorn thread for HTTP), and a stdio child process appends JSON
lines to a file its parent follows; reading a record list first takes in
every complete line the children have written so far.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, NamedTuple, TextIO

__all__ = ["Call", "Cancellation", "Records", "Request"]


class Request(NamedTuple):
    """One request the server received from the client, faulted or not: its method and params."""

    method: str
    params: dict[str, Any]


class Call(NamedTuple):
    """One ``tools/call`` the server received, faulted or not."""

    tool: str
    arguments: dict[str, Any]


class Cancellation(NamedTuple):
    """A call interrupted before it was answered.

    ``reason`` is what the client's ``notifications/cancelled`` said (memory
    and stdio); ``None`` when the client just went away, as cancellation over
    Streamable HTTP at 2026-07-28 does.
    """

    tool: str
    arguments: dict[str, Any]
    reason: str | None


class _Followed:
    """A child's record file and how far it has been read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0


class Records:
    """Thread-safe record lists, fed in-process or from followed child files."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[Request] = []
        self._calls: list[Call] = []
        self._cancellations: list[Cancellation] = []
        self._opened = 0
        self._closed = 0
        self._followed: list[_Followed] = []
        self._sink: TextIO | None = None

    def request(self, method: str, params: dict[str, Any]) -> None:
        with self._lock:
            self._requests.append(Request(method, params))
        self._emit({"request": [method, params]})

    def call(self, tool: str, arguments: dict[str, Any]) -> None:
        with self._lock:
            self._calls.append(Call(tool, arguments))
        self._emit({"call": [tool, arguments]})

    def cancellation(self, tool: str, arguments: dict[str, Any], reason: str | None) -> None:
        with self._lock:
            self._cancellations.append(Cancellation(tool, arguments, reason))
        self._emit({"cancellation": [tool, arguments, reason]})

    def session_opened(self) -> None:
        with self._lock:
            self._opened += 1

    def session_closed(self) -> None:
        with self._lock:
            self._closed += 1

    @property
    def requests(self) -> list[Request]:
        self._drain()
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> list[Call]:
        self._drain()
        with self._lock:
            return list(self._calls)

    @property
    def cancellations(self) -> list[Cancellation]:
        self._drain()
        with self._lock:
            return list(self._cancellations)

    @property
    def sessions(self) -> tuple[int, int]:
        with self._lock:
            return self._opened, self._closed

    def clear(self) -> None:
        self._drain()
        with self._lock:
            self._requests.clear()
            self._calls.clear()
            self._cancellations.clear()
            self._opened = self._closed = 0

    def follow(self, path: Path) -> None:
        """Parent side: take in the records a stdio child appends to ``path``."""
        path.touch()
        with self._lock:
            self._followed.append(_Followed(path))

    def unfollow(self, path: Path) -> None:
        """Read the file at ``path`` one last time, before it is deleted, and stop following it."""
        self._drain()
        with self._lock:
            self._followed = [followed for followed in self._followed if followed.path != path]

    def write_to(self, sink: TextIO) -> None:
        """Child side: also append every request, call and cancellation to ``sink``."""
        self._sink = sink

    def _emit(self, record: dict[str, Any]) -> None:
        if self._sink is not None:
            self._sink.write(json.dumps(record) + "\n")
            self._sink.flush()

    def _drain(self) -> None:
        with self._lock:
            for followed in self._followed:
                with followed.path.open("rb") as file:
                    file.seek(followed.offset)
                    data = file.read()
                complete = data[: data.rfind(b"\n") + 1]
                followed.offset += len(complete)
                for line in complete.splitlines():
                    record = json.loads(line)
                    if "request" in record:
                        self._requests.append(Request(*record["request"]))
                    elif "call" in record:
                        self._calls.append(Call(*record["call"]))
                    else:
                        self._cancellations.append(Cancellation(*record["cancellation"]))
