"""Hypothesis strategies from JSON Schema (Draft 2020-12): valid and invalid tool inputs.

Values are constructed, not filtered: every keyword real tool schemas use is
built into the strategy, so health checks pass and shrinking reaches small
examples. Each strategy offers a few seeds first, so that the first examples
reach every shape and break every constraint. A schema that cannot be
honoured raises ``SchemaError`` naming why.
"""

from ._api import from_schema, invalid_inputs, tool_inputs
from ._errors import SchemaError
from ._invalid import InvalidInput

__all__ = ["InvalidInput", "SchemaError", "from_schema", "invalid_inputs", "tool_inputs"]

# Not API: what the fuzzing engine shares with the strategies (see the layout
# note in littleghost_testing/__init__.py).
from ._context import Context as _Context  # noqa: F401
from ._context import thaw as _thaw  # noqa: F401
from ._drafts import KEYWORD_ALIASES as _KEYWORD_ALIASES  # noqa: F401
from ._drafts import to_2020_12 as _to_2020_12  # noqa: F401
from ._in_turn import OutOfTime as _OutOfTime  # noqa: F401
from ._in_turn import SeedsFirst as _SeedsFirst  # noqa: F401
from ._in_turn import check_clock as _check_clock  # noqa: F401
from ._in_turn import choices_until as _choices_until  # noqa: F401
