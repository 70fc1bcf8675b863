"""Run a client once per request in a process forked from one that has already imported it.

The official suite starts every client scenario at once, each as a new process;
a fresh interpreter spends about two seconds of CPU importing the MCP SDK, so
on a 2-core machine sixty of them crowd past the suite's 30-second limit.
``serve(path, main)`` listens on a Unix socket; ``client_stub.py`` (stdlib
only, so it starts in milliseconds) is the command the suite runs: it sends
its arguments, the suite's ``MCP_CONFORMANCE_*`` variables and its own stdin,
stdout and stderr, and exits with the code the forked child sends back. Each
run is still a process of its own, with its own event loop; the parent only
imports and forks. At most ``RUNS_PER_CPU`` runs per CPU go at once and the
rest wait their turn: sixty runs sharing two cores would each wait past the
SDK's 10-second ``server/discover`` probe, and fall back to the handshake.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import select
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Callable

MAX_REQUEST_BYTES = 256 * 1024
"""The largest request a stub may send: its argv and ``MCP_CONFORMANCE_*`` variables."""

MAX_WAITING = 256
"""Requests queued for a turn; a request past it is answered with exit code 1 at once."""

RUNS_PER_CPU = 2
"""Runs at once per CPU; the others wait in the queue."""

POLL_SECONDS = 0.05
"""How often the parent reaps finished children (and starts waiting runs) while it waits."""

THREAD_EXIT_SECONDS = 10.0
"""How long a thread the warm-up started may take to end (an event loop's worker threads)."""

ENVIRONMENT_PREFIX = "MCP_CONFORMANCE_"
"""The variables a stub forwards: the suite's description of the run."""


def serve(path: str, main: Callable[[list[str]], int], warm_up: Callable[[], None]) -> None:
    """Fork a child per request on ``path`` that runs ``main(argv)``; stop when stdin closes.

    ``warm_up()`` runs first, so what a first run builds lazily is built once;
    it must leave no thread behind (a forked child would inherit its locks).
    At the end, children still running are killed and reaped: none outlives
    the server.
    """
    warm_up()
    for thread in threading.enumerate():  # an event loop's idle workers are still stopping
        if thread is not threading.main_thread():
            thread.join(THREAD_EXIT_SECONDS)
    if threading.active_count() != 1:
        names = [thread.name for thread in threading.enumerate()]
        raise RuntimeError(f"the warm-up left threads running, unsafe to fork: {names}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(MAX_WAITING)
    signal.signal(signal.SIGTERM, _stop)  # a terminated server still reaps its children
    running = RUNS_PER_CPU * (os.cpu_count() or 1)
    waiting: collections.deque[socket.socket] = collections.deque()
    children: set[int] = set()
    print("ready", flush=True)
    try:
        while True:
            ready, _, _ = select.select([listener, sys.stdin], [], [], POLL_SECONDS)
            _reap(children)
            if sys.stdin in ready and not os.read(sys.stdin.fileno(), 1024):
                return
            if listener in ready:
                connection, _ = listener.accept()
                if len(waiting) >= MAX_WAITING:
                    connection.send(bytes([1]))
                    connection.close()
                else:
                    waiting.append(connection)
            while waiting and len(children) < running:
                connection = waiting.popleft()
                if pid := os.fork():
                    children.add(pid)
                    connection.close()
                else:
                    os._exit(_child(connection, main, inherited=[listener, *waiting]))
    finally:
        for connection in waiting:
            connection.close()
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            os.waitpid(pid, 0)
        listener.close()
        os.unlink(path)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _reap(children: set[int]) -> None:
    for pid in list(children):
        if os.waitpid(pid, os.WNOHANG)[0]:
            children.discard(pid)


def _child(
    connection: socket.socket,
    main: Callable[[list[str]], int],
    *,
    inherited: list[socket.socket],
) -> int:
    """The forked child's whole life: nothing it raises may reach the parent's loop and cleanup.

    ``inherited`` are the parent's sockets, closed so that only their owners hold them.
    """
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for other in inherited:
            other.close()
        return _run_child(connection, main)
    except BaseException:
        traceback.print_exc()
        return 1


def _run_child(connection: socket.socket, main: Callable[[list[str]], int]) -> int:
    """In the child: take the stub's streams and environment, run ``main``, send its code."""
    message, fds, _, _ = socket.recv_fds(connection, MAX_REQUEST_BYTES, 3)
    if len(fds) != 3:
        return 1
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    request = json.loads(message)
    for name, value in request["environment"].items():
        if name.startswith(ENVIRONMENT_PREFIX):
            os.environ[name] = value
    code = 1
    try:
        code = main(request["argv"])
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        with contextlib.suppress(OSError):  # the stub may have been killed on a timeout
            connection.send(bytes([code & 0xFF]))
    return code
