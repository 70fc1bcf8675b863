"""The public entry points: `from_schema`, `tool_inputs`, `invalid_inputs`, cached per schema."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

import jsonschema_rs
from hypothesis import strategies as st

from littleghost._validation import SchemaValidator, json_path
from littleghost.errors import ConfigurationError

from ._build import Builder
from ._context import Context, RefStack, TooDeep, thaw
from ._errors import SchemaError
from ._invalid import Broken, InvalidInput, Mutations

__all__ = ["compiled", "from_schema", "invalid_inputs", "tool_inputs"]


def from_schema(schema: Mapping[str, Any] | bool) -> st.SearchStrategy[Any]:
    """Values valid for ``schema``; raises ``SchemaError`` if it cannot be honoured."""
    return compiled(json.dumps(thaw(schema), sort_keys=True)).valid


def tool_inputs(tool_class: type) -> st.SearchStrategy[Any]:
    """Valid inputs for a littleghost Tool class (or anything with an ``input_schema``)."""
    schema = getattr(tool_class, "input_schema", None)
    if not isinstance(schema, Mapping):
        raise TypeError(f"{tool_class!r} has no input_schema mapping")
    return from_schema(schema)


def invalid_inputs(schema: Mapping[str, Any] | bool) -> st.SearchStrategy[InvalidInput]:
    """Inputs breaking exactly one constraint of ``schema``, each naming its keyword and path."""
    return compiled(json.dumps(thaw(schema), sort_keys=True)).invalid


class Compiled:
    """A schema's context, validator and valid-value strategy, built once."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        _check_schema(schema)
        self.context = Context(schema)
        self.builder = Builder(self.context)
        try:
            self.constructed = self.builder.build(schema, RefStack())
        except TooDeep as too_deep:
            raise SchemaError(f"$ref {too_deep} recurses without a finite instance") from None
        # Construction is exact for the keywords it handles; the final check
        # guarantees that no value breaking the schema ever reaches a test.
        self.valid = self.constructed.filter(lambda value: self.validator.is_valid(value))

    @functools.cached_property
    def validator(self) -> SchemaValidator:
        """littleghost's own validator, built on first use: it is the slow part of a build."""
        try:
            return SchemaValidator(
                self.schema if isinstance(self.schema, dict) else {"allOf": [self.schema]}
            )
        except ConfigurationError as error:
            raise SchemaError(str(error)) from None

    @functools.cached_property
    def mutations(self) -> st.SearchStrategy[Broken]:
        """Every constructed violation, before the validator confirms it (for tests)."""
        sites = Mutations(self.builder).sites(self.schema, RefStack())
        if not sites:
            raise SchemaError("the schema accepts every value: no input can be invalid")
        return st.one_of(sites)

    @functools.cached_property
    def invalid(self) -> st.SearchStrategy[InvalidInput]:
        return self.mutations.filter(self.confirms).map(
            lambda broken: InvalidInput(broken[0], broken[1], json_path(broken[2]))
        )

    def confirms(self, broken: Broken) -> bool:
        """The validator reports exactly the one violation the mutation claims."""
        value, keyword, parts = broken
        found = self.validator.violations(value)
        return len(found) == 1 and (found[0].keyword, found[0].path) == (keyword, json_path(parts))


def _check_schema(schema: Any) -> None:
    """Reject a malformed schema up front, naming where (the metaschema check in Rust is fast)."""
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as error:
        where = "/".join(str(part) for part in error.instance_path) or "(root)"
        raise SchemaError(f"invalid schema at {where}: {error.message}") from None


@functools.lru_cache(maxsize=256)
def compiled(key: str) -> Compiled:
    return Compiled(json.loads(key))
