"""invalid_inputs reaches every kind of violation, at the top level and deep inside."""

from __future__ import annotations

import re

from hypothesis import find, given, settings

from littleghost_testing.strategies import InvalidInput, invalid_inputs

ORDER = {
    "type": "object",
    "properties": {
        "customer": {
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email", "maxLength": 40},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            },
            "required": ["email"],
            "additionalProperties": False,
        },
        "lines": {
            "type": "array",
            "minItems": 1,
            "maxItems": 5,
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "minLength": 3},
                    "quantity": {"type": "integer", "minimum": 1, "exclusiveMaximum": 100},
                    "unit": {"enum": ["each", "box"]},
                },
                "required": ["sku", "quantity"],
            },
        },
        "note": {"type": ["string", "null"], "not": {"const": "spam"}},
    },
    "required": ["customer", "lines"],
    "additionalProperties": False,
}

# (keyword, regular expression the path must match)
EXPECTED = [
    ("required", r"\$\.customer$"),
    ("type", r"\$$"),
    ("additionalProperties", r"\$[.\[]"),
    ("required", r"\$\.customer\.email$"),
    ("maxLength", r"\$\.customer\.email$"),
    ("pattern", r"\$\.customer\.code$"),
    ("additionalProperties", r"\$\.customer[.\[]"),
    ("minItems", r"\$\.lines$"),
    ("maxItems", r"\$\.lines$"),
    ("type", r"\$\.lines\[\d+\]$"),
    ("minLength", r"\$\.lines\[\d+\]\.sku$"),
    ("minimum", r"\$\.lines\[\d+\]\.quantity$"),
    ("exclusiveMaximum", r"\$\.lines\[\d+\]\.quantity$"),
    ("enum", r"\$\.lines\[\d+\]\.unit$"),
    ("required", r"\$\.lines\[\d+\]\.sku$"),
    ("not", r"\$\.note$"),
]


def test_every_kind_of_violation_is_generated() -> None:
    seen: set[tuple[str, str]] = set()

    @settings(max_examples=600, database=None, deadline=None, derandomize=True)
    @given(invalid_inputs(ORDER))
    def collect(broken: InvalidInput) -> None:
        seen.update((k, p) for k, p in EXPECTED if broken.keyword == k and re.match(p, broken.path))

    collect()
    assert sorted(set(EXPECTED) - seen) == []


def test_a_deep_violation_shrinks_to_a_small_input() -> None:
    found = find(
        invalid_inputs(ORDER),
        lambda broken: broken.keyword == "minimum" and broken.path == "$.lines[0].quantity",
    )
    # Only what the schema requires is left, each part at its simplest.
    assert found.value["lines"] == [{"sku": found.value["lines"][0]["sku"], "quantity": 0}]
    assert len(found.value["lines"][0]["sku"]) == 3
    assert list(found.value["customer"]) == ["email"]
    assert list(found.value) == ["customer", "lines"]
