"""Every real MCP tool schema in tests/data/tool_schemas: valid and invalid inputs.

Values come from the public strategies with Hypothesis's health checks on; each
valid value passes littleghost's validator and each invalid one fails it on
exactly the keyword and path it reports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from littleghost._validation import SchemaValidator
from littleghost_testing.strategies import InvalidInput, SchemaError, from_schema, invalid_inputs

CORPUS = Path(__file__).resolve().parent.parent / "data" / "tool_schemas"
SERVERS = sorted(CORPUS.glob("*.json"))
# A few examples per tool keeps ~900 tools inside the suite's time budget.
EXAMPLES = 4
ANYTHING = [None, True, 0, 1.5, "", "text", [], [1], {}, {"key": "value"}]


def test_the_corpus_is_present() -> None:
    assert len(SERVERS) >= 50


def _check_tool(schema: dict[str, Any]) -> None:
    validator = SchemaValidator(schema)
    try:
        broken: st.SearchStrategy[InvalidInput | None] = invalid_inputs(schema)
    except SchemaError as error:
        assert "accepts every value" in str(error)
        assert all(validator.is_valid(value) for value in ANYTHING)
        broken = st.none()

    # One Hypothesis run per tool draws both: a run's own set-up is most of its cost here.
    @settings(max_examples=EXAMPLES, database=None, deadline=None)
    @given(from_schema(schema), broken)
    def valid_and_invalid(value: Any, record: InvalidInput | None) -> None:
        assert validator.violations(value) == []
        if record is not None:
            found = [(v.keyword, v.path) for v in validator.violations(record.value)]
            assert found == [(record.keyword, record.path)]

    valid_and_invalid()


@pytest.mark.parametrize("server", SERVERS, ids=[path.stem for path in SERVERS])
def test_every_tool_schema_generates_valid_and_invalid_inputs(server: Path) -> None:
    tools = json.loads(server.read_text())["tools"]
    for tool in tools:
        try:
            _check_tool(tool["inputSchema"])
        except Exception as error:
            error.add_note(f"tool {tool['name']!r} of {server.stem}")
            raise
