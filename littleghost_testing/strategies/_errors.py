"""The one error the strategies raise for a schema they cannot generate for."""

from __future__ import annotations

from littleghost.errors import ConfigurationError

__all__ = ["SchemaError"]


class SchemaError(ConfigurationError):
    """The schema is unsatisfiable, or uses a keyword the strategies cannot honour.

    Raised while the strategy is built (or, for a lazily built part, on first
    draw) -- never replaced by silently generating data that breaks the schema.
    """
