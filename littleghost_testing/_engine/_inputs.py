"""Inputs a schema offers itself: ``examples`` and ``default``, at the root and per property."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_SCHEMA_INPUTS", "is_zero_argument", "schema_inputs"]

MAX_SCHEMA_INPUTS = 20
"""At most this many inputs are taken from a schema's examples and defaults."""


def schema_inputs(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Root examples and default, then objects combining each property's examples/defaults.

    The n-th combined input takes every property's n-th value (or its last,
    if it has fewer). Callers validate them: a combination may miss a
    required property that has no example.
    """
    found: list[dict[str, Any]] = []
    found += [value for value in _offered(schema) if isinstance(value, dict)]
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        offers = {
            key: values
            for key, sub in properties.items()
            if isinstance(sub, Mapping) and (values := _offered(sub))
        }
        rounds = max((len(values) for values in offers.values()), default=0)
        found += [
            {key: values[min(n, len(values) - 1)] for key, values in offers.items()}
            for n in range(rounds)
        ]
    unique: dict[str, dict[str, Any]] = {}
    for value in found:
        unique.setdefault(json.dumps(value, sort_keys=True, default=repr), value)
    return list(unique.values())[:MAX_SCHEMA_INPUTS]


def _offered(schema: Mapping[str, Any]) -> list[Any]:
    examples = schema.get("examples")
    values = list(examples) if isinstance(examples, list) else []
    if "default" in schema:
        values.append(schema["default"])
    return values


def is_zero_argument(schema: Mapping[str, Any]) -> bool:
    """An object schema that declares no properties: the tool takes no arguments, ``{}``."""
    return (
        schema.get("type") in ("object", None)
        and not schema.get("properties")
        and not schema.get("patternProperties")
        and schema.get("additionalProperties", False) in (False, True)
        and not schema.get("required")  # ``"required": []`` asks for nothing
        and not any(key in schema for key in ("allOf", "anyOf", "oneOf", "$ref"))
    )
