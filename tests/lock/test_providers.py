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

STR = {"type": "string"}
SHORT = {"type": "string", "maxLength": 3}
UUID = {"type": "string", "format": "uuid"}
ZOD = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {}}
"""What every zod-based server (the TypeScript SDK's) lists: ``$schema`` at the root."""


def _rules(provider: str, name: str, schema: dict[str, Any]) -> list[str]:
    return [warning.rule for warning in provider_warnings(name, schema, [provider])]


def test_a_schema_inside_a_subset_warns_nobody() -> None:
    assert provider_warnings("search", OK, ["openai", "openai-strict", "anthropic"]) == []
    # Gemini's subset has no additionalProperties, which OpenAI's strict mode needs.
    open_object = {key: value for key, value in OK.items() if key != "additionalProperties"}
    assert provider_warnings("search", open_object, ["gemini", "anthropic"]) == []


@pytest.mark.parametrize(
    ("provider", "name", "schema", "rule"),
    [
        ("openai", "a b", OK, "a function name must match"),
        ("openai", "t", {"type": "array"}, "parameters must be a schema of type object"),
        ("openai", "t", {**OK, "properties": {"q": {"type": "array"}}}, "array schema needs items"),
        ("openai-strict", "a b", OK, "a function name must match"),
        ("openai-strict", "t", {**OK, "anyOf": [{}]}, "must not be anyOf"),
        ("openai-strict", "t", {**OK, "additionalProperties": True}, "additionalProperties: false"),
        ("openai-strict", "t", {**OK, "required": []}, "every property required (optional: q;"),
        ("openai-strict", "t", {**OK, "minProperties": 1}, "does not support 'minProperties'"),
        ("openai-strict", "t", {**OK, "properties": {"q": SHORT}}, "does not support 'maxLength'"),
        ("anthropic", "x" * 65, OK, "a tool name must match"),
        ("anthropic", "t", {"anyOf": [OK]}, "input_schema must be a schema of type object"),
        ("anthropic", "t", {**OK, "oneOf": [OK]}, "does not support 'oneOf' at the top level"),
        ("gemini", "9t", OK, "a function name must start with a letter or underscore"),
        ("gemini", "t", OK, "Gemini's Schema has no field 'additionalProperties'"),
        ("gemini", "t", {"type": "object", "properties": {"q": {"const": 1}}}, "no field 'const'"),
        ("gemini", "t", {"type": ["object", "null"]}, "a list of types is not supported"),
        ("gemini", "t", ZOD, "Gemini's Schema has no field '$schema' (refused as an unknown name)"),
    ],
)  # fmt: skip
def test_each_rule_fires(provider: str, name: str, schema: dict[str, Any], rule: str) -> None:
    assert any(rule in found for found in _rules(provider, name, schema)), _rules(
        provider, name, schema
    )


def test_openai_without_strict_accepts_what_only_strict_mode_refuses() -> None:
    loose = {"type": "object", "properties": {"q": SHORT, "tags": {"type": "array", "items": STR}}}
    assert _rules("openai", "t", loose) == []
    assert "strict mode needs additionalProperties: false on every object" in _rules(
        "openai-strict", "t", loose
    )


def test_gemini_takes_any_format() -> None:
    # Gemini's Schema: "Any value is allowed, but most do not trigger any special functionality."
    schema = {"type": "object", "properties": {"q": UUID, "u": {"type": "string", "format": "uri"}}}
    assert _rules("gemini", "t", schema) == []


def test_deep_nesting_is_refused_by_openai_strict_mode() -> None:
    schema: dict[str, Any] = OK
    for _ in range(11):
        schema = {**OK, "properties": {"q": schema}, "required": ["q"]}
    assert "strict mode allows 10 levels of nesting" in _rules("openai-strict", "t", schema)
    assert _rules("openai", "t", schema) == []


def test_a_schema_breaking_a_rule_everywhere_is_reported_a_bounded_number_of_times() -> None:
    many = {f"p{n}": {"type": "object"} for n in range(200)}
    schema = {"type": "object", "properties": many, "required": list(many)}
    assert len(_rules("openai-strict", "t", schema)) == 50  # MAX_WARNINGS_PER_TOOL


def test_the_corpus_figures_in_the_cli_guide_are_these() -> None:
    tools, dialects, rejected = 0, 0, dict.fromkeys(PROVIDERS, 0)
    for path in sorted((ROOT / "tests" / "data" / "tool_schemas").glob("*.json")):
        for tool in json.loads(path.read_text())["tools"]:
            tools += 1
            warned = {w.provider for w in provider_warnings(tool["name"], tool["inputSchema"])}
            for provider in warned:
                rejected[provider] += 1
            dialects += "$schema" in tool["inputSchema"]
    guide = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    assert f"On the {tools} tools of 62 published servers" in guide
    assert f"{dialects} of the tools list `$schema`, which Gemini refuses" in guide
    for provider, label in (
        ("openai-strict", "OpenAI's strict mode would reject"),
        ("openai", "without it"),
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
