"""The command the conformance suite runs for the fixture client: ``client_stub.py SOCKET URL``.

Standard library only, so ``python -I -S`` starts it in milliseconds. It hands
its arguments, its ``MCP_CONFORMANCE_*`` variables and its stdin, stdout and
stderr to the forkserver on SOCKET (forkserver.py) and exits with the code the
run sends back, or 1 when the run ends without one.
"""

import json
import os
import socket
import sys

ENVIRONMENT_PREFIX = "MCP_CONFORMANCE_"
"""The variables forwarded: the suite's description of the run."""


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: client_stub.py SOCKET URL", file=sys.stderr)
        return 2
    path, *argv = sys.argv[1:]
    environment = {k: v for k, v in os.environ.items() if k.startswith(ENVIRONMENT_PREFIX)}
    request = json.dumps({"argv": argv, "environment": environment}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
        connection.connect(path)
        socket.send_fds(connection, [request], [0, 1, 2])
        reply = connection.recv(1)
    return reply[0] if reply else 1


if __name__ == "__main__":
    sys.exit(main())
