"""``python -m littleghost_testing.fake_server module:attribute``: serve it over stdio."""

import sys

from ._server import FakeMCPServer
from ._stdio import import_target


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m littleghost_testing.fake_server module:attribute", file=sys.stderr)
        return 2
    server = import_target(argv[1])
    if not isinstance(server, FakeMCPServer):
        print(f"{argv[1]} is not a FakeMCPServer", file=sys.stderr)
        return 2
    server.serve_stdio()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
