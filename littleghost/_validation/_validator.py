"""``SchemaValidator``: a schema compiled once, checked and reported for each instance."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from .._backtracking import DEFAULT_REGEX_TIMEOUT
from .._errors import ConfigurationError
from .._schema import (
    Regexes,
    compiles_on_first_use,
    compiles_on_first_use_walked,
    freeze_within,
    regexes_to_check,
)
from ._compile import compile_instance_validator, regexes_compile
from ._input import UNBOUNDED, first_problem, json_problem
from ._report import (
    FULL_REPORT_VALUES,
    MAX_LISTED_VIOLATIONS,
    Violation,
    describe,
    first_line,
    more_values_than,
)
from ._schema import MAX_SCHEMA_DEPTH, check_schema, schema_failure, schema_problem

__all__ = ["SchemaValidator"]


class SchemaValidator:
    """A JSON Schema compiled once and reused for every instance."""

    __slots__ = ("_compiled", "_patterns", "_pending", "_regex_timeout", "schema")

    def __init__(
        self, schema: Mapping[str, Any], *, regex_timeout: float = DEFAULT_REGEX_TIMEOUT
    ) -> None:
        self.schema = schema
        # A plain JSON tree is checked and frozen in one pass (see _schema) ...
        plain: Any = freeze_within(schema, MAX_SCHEMA_DEPTH)
        lazy = compiles_on_first_use_walked(plain)
        regexes = regexes_to_check(plain)
        if regexes is not None:  # lazy if each regex compiles (checked alone, and cached)
            lazy = regexes_compile(*regexes)
        if plain is None:  # ... anything else takes the slow path that names the problem
            problem = schema_problem(schema)
            if problem is not None:
                raise ConfigurationError(f"Invalid input schema: {problem}")
            try:
                text = json.dumps(schema, allow_nan=False)
                plain = json.loads(text)
            except (TypeError, ValueError) as error:
                raise ConfigurationError(f"Invalid input schema: not JSON ({error})") from None
            lazy = compiles_on_first_use(plain, text)
        self._check(plain, bool(lazy), regex_timeout)

    @classmethod
    def measured(
        cls,
        schema: dict[str, Any],
        verdict: bool | Regexes,
        *,
        regex_timeout: float = DEFAULT_REGEX_TIMEOUT,
    ) -> SchemaValidator:
        """The validator of a plain tree ``measure_within`` answered ``verdict`` for, unfrozen.

        For a caller that keeps ``schema`` private and never mutates it (an MCP
        catalog's schemas, frozen only when read): the metaschema check runs
        now, and compiling waits for first use as ``verdict`` allows.
        """
        validator = cls.__new__(cls)
        validator.schema = schema
        lazy = verdict is True or (type(verdict) is Regexes and regexes_compile(*verdict))
        validator._check(schema, lazy, regex_timeout)
        return validator

    def _check(self, plain: Any, lazy: bool, regex_timeout: float) -> None:
        check_schema(plain)
        if lazy:  # compiled by ``__getattr__``
            self._pending = plain
            self._regex_timeout = regex_timeout
        else:
            self._compiled = self._compile(plain, regex_timeout)

    if not TYPE_CHECKING:  # keep attribute typos visible to the type checker

        def __getattr__(self, name: str) -> Any:
            """Compile on first use a schema that cannot fail to compile (see ``_schema``)."""
            if name not in ("_compiled", "_patterns"):
                raise AttributeError(name)
            self._compiled = self._compile(self._pending, self._regex_timeout)
            del self._pending
            return getattr(self, name)

    def _compile(self, plain: Any, regex_timeout: float) -> Any:
        # The rewritten patterns, mapped back to what the schema declares.
        self._patterns: dict[str, str] = {}
        if type(plain) is not dict:  # frozen: jsonschema-rs takes no list subclass
            plain = json.loads(json.dumps(plain))
        try:
            return compile_instance_validator(plain, self._patterns, regex_timeout=regex_timeout)
        except jsonschema_rs.ValidationError as error:
            raise ConfigurationError(schema_failure(error, self._patterns)) from None
        except (jsonschema_rs.ReferencingError, ValueError) as error:
            raise ConfigurationError(f"Invalid input schema: {first_line(error)}") from None

    def accepts(self, instance: Any) -> bool:
        """The native check alone, for input ``json_problem`` has already passed.

        A schema that fails to compile on first use raises its ``ConfigurationError``
        here: it is the application's mistake, never the input's.
        """
        compiled = self._compiled
        try:
            return compiled.is_valid(instance)
        except Exception:  # a container subclass whose methods raise, say
            return False

    def is_valid(self, instance: Any, *, max_depth: int = UNBOUNDED) -> bool:
        # jsonschema-rs never reads what no keyword needs, and lets NaN and infinities
        # (which Python's json module parses) through every numeric bound: only plain
        # JSON is valid input, and it is checked first, so that no cycle and no input
        # deeper than ``max_depth`` reaches native code.
        return json_problem(instance, max_depth=max_depth) is None and self.accepts(instance)

    def violations(self, instance: Any, *, max_depth: int = UNBOUNDED) -> list[Violation]:
        """Every violation, each with its ``$``-rooted path and keyword.

        Complete, so its cost grows with the number of violations: model-facing
        messages use ``report``, which is bounded.
        """
        problem = first_problem(instance, max_depth=max_depth)
        if problem is not None:
            return [problem]
        compiled = self._compiled
        try:
            errors = list(compiled.iter_errors(instance))
        except Exception:
            return [Violation("$", "type", "$ cannot be read as JSON")]
        return [v for error in errors for v in describe(error, instance, self._patterns)]

    def report(self, instance: Any) -> str:
        """A bounded account of why plain-JSON ``instance`` is invalid, for the model.

        At most ``MAX_LISTED_VIOLATIONS`` violations, each quoting at most a
        short excerpt of a value, then "and K more". jsonschema-rs computes
        every error (and renders the failing value into each message) before
        returning any, so input with more than ``FULL_REPORT_VALUES`` values
        gets only the first violation, from the check that stops at it.
        """
        compiled = self._compiled
        if more_values_than(instance, FULL_REPORT_VALUES):
            try:
                compiled.validate(instance)
            except jsonschema_rs.ValidationError as error:
                listed = list(describe(error, instance, self._patterns))[:MAX_LISTED_VIOLATIONS]
                return "; ".join(v.message for v in listed) + "; and possibly more"
            except Exception:
                pass
            return "$ cannot be read as JSON"
        try:
            errors = list(compiled.iter_errors(instance))
        except Exception:
            return "$ cannot be read as JSON"
        shown: list[str] = []
        hidden = 0
        for error in errors:
            if len(shown) >= MAX_LISTED_VIOLATIONS:
                hidden += 1  # an error that would list several properties counts once
                continue
            for violation in describe(error, instance, self._patterns):
                if len(shown) < MAX_LISTED_VIOLATIONS:
                    shown.append(violation.message)
                else:
                    hidden += 1
        listed = "; ".join(shown) or "$ is not valid"
        return f"{listed}; and {hidden} more" if hidden else listed
