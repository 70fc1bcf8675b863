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
