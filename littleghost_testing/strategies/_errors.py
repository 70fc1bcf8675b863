"""The one error the strategies raise for a schema they cannot generate for."""

from __future__ import annotations

from littleghost import ConfigurationError

__all__ = ["SchemaError", "Unsupported"]


class SchemaError(ConfigurationError):
    """The schema is unsatisfiable, or uses a keyword the strategies cannot honour.

    Raised while the strategy is built (or, for a lazily built part, on first
    draw) -- never replaced by silently generating data that breaks the schema.
    """


class Unsupported(SchemaError):
    """A part of the schema has values, but the strategies cannot build them.

    Unlike an unsatisfiable part, it is never silently left out (a type of a
    type list, an alternative): leaving it out would hide the shapes it allows.
    """
