"""The ``littleghost`` command line: ``check`` a server, ``call`` one tool (see docs/cli.md)."""

from ._main import main

__all__ = ["main"]
