"""Every real MCP tool schema in tests/data/tool_schemas: valid and invalid inputs.

Values come from the public strategies with Hypothesis's health checks on; each
valid value passes littleghost's validator and each invalid one fails it on
exactly the keyword and path it reports.

Every distinct schema is built and its values checked. Seeds (the draws each
strategy makes once per schema, before any example) cost most of the time, so
the seeds-first strategies run for a fixed sample of the schemas, and the rest
check the plain draws the strategies make once their seeds are used up.
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
from littleghost_testing.strategies._in_turn import SeedsFirst

CORPUS = Path(__file__).resolve().parent.parent / "data" / "tool_schemas"
SERVERS = sorted(CORPUS.glob("*.json"))
# A few examples per tool keeps ~900 tools inside the suite's time budget.
EXAMPLES = 4
# Every SEEDS_ONE_IN-th distinct schema (in server and listing order) draws its seeds first.
SEEDS_ONE_IN = 4
ANYTHING = [None, True, 0, 1.5, "", "text", [], [1], {}, {"key": "value"}]


def _distinct_tools() -> dict[str, list[tuple[str, dict[str, Any], bool]]]:
    """Per server, its tools whose schema no tool before it has, and whether it draws seeds.

    A schema checked once is checked: the suite's Hypothesis settings are derandomized.
    """
    seen: set[str] = set()
    tools: dict[str, list[tuple[str, dict[str, Any], bool]]] = {}
    for server in SERVERS:
        tools[server.stem] = []
        for tool in json.loads(server.read_text())["tools"]:
            key = json.dumps(tool["inputSchema"], sort_keys=True)
            if key not in seen:
                seeds = len(seen) % SEEDS_ONE_IN == 0
                seen.add(key)
                tools[server.stem].append((tool["name"], tool["inputSchema"], seeds))
    return tools


DISTINCT_TOOLS = _distinct_tools()


def test_the_corpus_is_present() -> None:
    assert len(SERVERS) >= 50


def test_the_distinct_schemas_are_most_of_the_corpus() -> None:
    tools = [tool for server in SERVERS for tool in json.loads(server.read_text())["tools"]]
    schemas = {json.dumps(tool["inputSchema"], sort_keys=True) for tool in tools}
    distinct = [tool for server in DISTINCT_TOOLS.values() for tool in server]
    assert len(distinct) == len(schemas) < len(tools)
    assert sum(seeds for _, _, seeds in distinct) == -(-len(distinct) // SEEDS_ONE_IN)


def _plain(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """What a seeds-first strategy draws once its seeds are used up; it never computes them."""
    assert isinstance(strategy, SeedsFirst)
    return strategy.plain


def _check_tool(schema: dict[str, Any], *, seeds: bool) -> None:
    validator = SchemaValidator(schema)
    valid = from_schema(schema)
    try:
        broken: st.SearchStrategy[InvalidInput | None] = invalid_inputs(schema)
    except SchemaError as error:
        assert "accepts every value" in str(error)
        assert all(validator.is_valid(value) for value in ANYTHING)
        broken = st.none()
    else:
        broken = broken if seeds else _plain(broken)
    valid = valid if seeds else _plain(valid)

    # One Hypothesis run per tool draws both: a run's own set-up is most of its cost here.
    @settings(max_examples=EXAMPLES, database=None, deadline=None)
    @given(valid, broken)
    def valid_and_invalid(value: Any, record: InvalidInput | None) -> None:
        assert validator.violations(value) == []
        if record is not None:
            found = [(v.keyword, v.path) for v in validator.violations(record.value)]
            assert found == [(record.keyword, record.path)]

    valid_and_invalid()


@pytest.mark.parametrize("server", SERVERS, ids=[path.stem for path in SERVERS])
def test_every_tool_schema_generates_valid_and_invalid_inputs(server: Path) -> None:
    for name, schema, seeds in DISTINCT_TOOLS[server.stem]:
        try:
            _check_tool(schema, seeds=seeds)
        except Exception as error:
            error.add_note(f"tool {name!r} of {server.stem}")
            raise
