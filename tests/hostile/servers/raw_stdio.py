"""A hostile MCP server over stdio: raw JSON-RPC lines, no SDK.

``python -m tests.hostile.servers.raw_stdio BEHAVIOR [SIZE]``; see ``behaviors``.
"""

from __future__ import annotations

import json
import os
import sys

from tests.hostile.servers.behaviors import Exit, Silent, answer


def main() -> None:
    behavior = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            chunks = answer(json.loads(line), behavior, size)
            for chunk in chunks:
                out.write(chunk)
            out.flush()
        except Silent:
            continue
        except Exit:
            os._exit(3)
        except BrokenPipeError:
            return


if __name__ == "__main__":
    main()
