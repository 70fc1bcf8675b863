"""Provider rules: each can fire, and the corpus figures in docs/cli.md stay true."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from littleghost_testing.providers import PROVIDERS, provider_warnings

ROOT = Path(__file__).resolve().parents[2]
OK = {
    "type": "object",
    "properties": {"q": {"type": "string"}},
    "required": ["q"],
    "additionalProperties": False,
}

SHORT = {"type": "string", "maxLength": 3}
UUID = {"type": "string", "format": "uuid"}


def _rules(provider: str, name: str, schema: dict[str, Any]) -> list[str]:
    return [warning.rule for warning in provider_warnings(name, schema, [provider])]


def test_a_schema_inside_a_subset_warns_nobody() -> None:
    assert provider_warnings("search", OK, ["openai", "anthropic"]) == []
    # Gemini's subset has no additionalProperties, which OpenAI's strict mode needs.
    open_object = {key: value for key, value in OK.items() if key != "additionalProperties"}
    assert provider_warnings("search", open_object, ["gemini", "anthropic"]) == []


@pytest.mark.parametrize(
    ("provider", "name", "schema", "rule"),
    [
        ("openai", "a b", OK, "a function name must match"),
        ("openai", "t", {"type": "array"}, "parameters must be a schema of type object"),
        ("openai", "t", {**OK, "anyOf": [{}]}, "the root of strict parameters must not be anyOf"),
        ("openai", "t", {**OK, "additionalProperties": True}, "needs additionalProperties: false"),
        ("openai", "t", {**OK, "required": []}, "needs every property required (optional: q;"),
        ("openai", "t", {**OK, "minProperties": 1}, "does not support 'minProperties'"),
        ("openai", "t", {**OK, "properties": {"q": SHORT}}, "does not support 'maxLength'"),
        ("anthropic", "x" * 65, OK, "a tool name must match"),
        ("anthropic", "t", {"anyOf": [OK]}, "input_schema must be a schema of type object"),
        ("anthropic", "t", {**OK, "oneOf": [OK]}, "does not support 'oneOf' at the top level"),
        ("gemini", "9t", OK, "a function name must start with a letter or underscore"),
        ("gemini", "t", OK, "the OpenAPI schema subset has no 'additionalProperties'"),
        ("gemini", "t", {"type": "object", "properties": {"q": {"const": 1}}}, "has no 'const'"),
        ("gemini", "t", {"type": ["object", "null"]}, "a list of types is not supported"),
        ("gemini", "t", {"type": "object", "properties": {"q": UUID}}, "format 'uuid' is not"),
    ],
)  # fmt: skip
def test_each_rule_fires(provider: str, name: str, schema: dict[str, Any], rule: str) -> None:
    assert any(rule in found for found in _rules(provider, name, schema)), _rules(
        provider, name, schema
    )


def test_deep_nesting_is_refused_by_openai_strict_mode() -> None:
    schema: dict[str, Any] = OK
    for _ in range(11):
        schema = {**OK, "properties": {"q": schema}, "required": ["q"]}
    assert "strict mode allows 10 levels of nesting" in _rules("openai", "t", schema)


def test_a_schema_breaking_a_rule_everywhere_is_reported_a_bounded_number_of_times() -> None:
    many = {f"p{n}": {"type": "object"} for n in range(200)}
    schema = {"type": "object", "properties": many, "required": list(many)}
    assert len(_rules("openai", "t", schema)) == 50  # MAX_WARNINGS_PER_TOOL


def test_the_corpus_figures_in_the_cli_guide_are_these() -> None:
    tools, rejected = 0, dict.fromkeys(PROVIDERS, 0)
    for path in sorted((ROOT / "tests" / "data" / "tool_schemas").glob("*.json")):
        for tool in json.loads(path.read_text())["tools"]:
            tools += 1
            warned = {w.provider for w in provider_warnings(tool["name"], tool["inputSchema"])}
            for provider in warned:
                rejected[provider] += 1
    guide = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    assert f"On the {tools} tools of 62 published servers" in guide
    for provider, label in (
        ("openai", "OpenAI's strict mode would reject"),
        ("gemini", "Gemini's `parameters`"),
        ("anthropic", "and Anthropic"),
    ):
        match = re.search(
            re.escape(label)
            + r" (\d+) tools? \((\d+) %\)|"
            + re.escape(label)
            + r" (\d+) \((\d+) %\)",
            guide,
        )
        assert match is not None, label
        count = int(match.group(1) or match.group(3))
        assert count == rejected[provider], (provider, rejected[provider])
