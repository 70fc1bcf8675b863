"""Checking a schema against its metaschema, with an error that names the bad keyword."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
import jsonschema_rs

from .._errors import ConfigurationError
from .._schema import declared_draft, nests_within
from ._input import locate_problem
from ._report import first_line

__all__ = ["MAX_SCHEMA_DEPTH", "schema_problem"]


# Schemas are the application's (or an MCP server's): deeper than this is a
# ConfigurationError, before the recursive metaschema check can overflow.
MAX_SCHEMA_DEPTH = 128


def check_schema(schema: Any) -> None:
    """Check ``schema`` against its metaschema; the error names the bad keyword.

    jsonschema-rs answers the common case (a valid schema) about 100 times
    faster than jsonschema, which matters when an MCP server lists hundreds of
    tools; jsonschema, the reference, explains a failure. An unknown
    ``$schema`` skips the fast check: jsonschema-rs would try to fetch it.
    """
    if not isinstance(schema, dict):
        raise ConfigurationError("Invalid input schema: the schema must be a JSON object")
    if declared_draft(schema) is not None:
        try:
            if jsonschema_rs.meta.is_valid(schema):
                return
        except (jsonschema_rs.ReferencingError, ValueError):
            pass  # let the reference explain
    if type(schema) is not dict:
        schema = json.loads(json.dumps(schema))  # frozen: its messages quote plain values
    # A ``$schema`` that is no string is no URI to look up: the metaschema says why.
    declared = schema if isinstance(schema.get("$schema", ""), str) else {}
    cls = jsonschema.validators.validator_for(declared, default=jsonschema.Draft202012Validator)
    error = jsonschema.exceptions.best_match(cls(cls.META_SCHEMA).iter_errors(schema))
    if error is not None:
        # best_match may descend into an anyOf branch: its ``path`` is then relative.
        path = error.absolute_path
        where = ".".join(str(part) for part in path) or "(root)"
        keyword = next((str(p) for p in reversed(path) if isinstance(p, str)), str(error.validator))
        raise ConfigurationError(
            f"Invalid input schema: keyword {keyword!r} at {where}: {error.message}"
        )


def schema_failure(error: Any, patterns: Mapping[str, str]) -> str:
    """Name the keyword jsonschema-rs rejected; patterns are the usual culprit."""
    location = [str(part) for part in error.instance_path]
    keyword = next((p for p in reversed(location) if not p.isdigit()), "(root)")
    if location[-2:-1] == ["patternProperties"]:
        keyword = "patternProperties"
    elif isinstance(error.kind, jsonschema_rs.ValidationErrorKind.Referencing):
        keyword = "$ref"  # an unresolvable reference carries no location
    where = ".".join(location) or "(root)"
    reason = first_line(error)
    for rewritten, declared in patterns.items():
        reason = reason.replace(json.dumps(rewritten), json.dumps(declared))
    if keyword in ("pattern", "patternProperties") or "regex" in reason:
        reason += " (patterns use ECMA-262 syntax)"
    return f"Invalid input schema: keyword {keyword!r} at {where}: {reason}"


def schema_problem(schema: object) -> str | None:
    """Whether ``schema`` nests deeper than ``MAX_SCHEMA_DEPTH`` or holds a cycle.

    Checked before anything recursive (freezing, ``json.dumps``, the
    metaschema check, compiling) sees the schema. Any mapping counts as an
    object here; whether the schema is plain JSON is checked afterwards.
    """
    if nests_within(schema, MAX_SCHEMA_DEPTH):
        return None  # the common case, a plain tree, answered by the fast pass
    try:
        problem = locate_problem(schema, MAX_SCHEMA_DEPTH, mappings=True)
    except Exception as error:
        return f"the schema cannot be read ({type(error).__name__})"
    if problem is None:
        return None
    if problem.path == "$":  # "$ is nested deeper than ...": say which document
        return problem.message.replace("$", "the schema", 1)
    return f"at {problem.message}"  # "at $.properties.self refers back to $ (a cycle)"
