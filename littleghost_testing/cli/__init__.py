"""The ``littleghost`` command line: ``check`` a server; ``call``, ``read``, ``get`` one request."""

from ._main import main

__all__ = ["main"]

# Not API: what the pytest route shares with the command line (see the layout
# note in littleghost_testing/__init__.py).
from ._catalog import list_catalog as _list_catalog  # noqa: F401
from ._output import details as _details  # noqa: F401
from ._output import reproduce as _reproduce  # noqa: F401
from ._text import plural as _plural  # noqa: F401
from ._text import visible as _visible  # noqa: F401
