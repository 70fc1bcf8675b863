r"""Compiling JSON Schemas into fast validators, and keeping hostile input away from them.

``jsonschema`` is the reference: it checks schemas against the Draft 2020-12
metaschema and names the bad keyword. ``jsonschema-rs`` validates instances on
the hot path: it is compiled once per schema, applies ECMA-262 regular
expression semantics (``\d`` is ASCII, ``.`` excludes line terminators) and,
configured with the ``regex`` crate, matches in linear time (lookaround and
backreferences, which need backtracking, run under a time budget, see
``_backtracking``). Native code recurses over its input, so ``json_problem``
checks depth, cycles and plain JSON first, in one iterative pass; reports of
invalid input are bounded.

The rest of littleghost (and the testing kit) imports from this package's
``__init__`` only; its modules are private to it.
"""

from __future__ import annotations

from ._compile import PATTERN_PROPERTIES_STEPS, compile_instance_validator
from ._input import MAX_EXPANDED_VALUES, UNBOUNDED, first_problem, json_problem
from ._regex_syntax import MAX_PATTERN_REPETITIONS
from ._report import (
    EXCERPT_CHARS,
    FULL_REPORT_VALUES,
    MAX_LISTED_VIOLATIONS,
    Violation,
    json_path,
    middle_cut,
)
from ._schema import MAX_SCHEMA_DEPTH, schema_problem
from ._validator import SchemaValidator

__all__ = [
    "EXCERPT_CHARS",
    "FULL_REPORT_VALUES",
    "MAX_EXPANDED_VALUES",
    "MAX_LISTED_VIOLATIONS",
    "MAX_PATTERN_REPETITIONS",
    "MAX_SCHEMA_DEPTH",
    "PATTERN_PROPERTIES_STEPS",
    "UNBOUNDED",
    "SchemaValidator",
    "Violation",
    "compile_instance_validator",
    "first_problem",
    "json_path",
    "json_problem",
    "middle_cut",
    "schema_problem",
]
