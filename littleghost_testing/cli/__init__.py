"""The ``littleghost`` command line: ``littleghost check TARGET`` (see docs/cli.md)."""

from .main import main

__all__ = ["main"]
