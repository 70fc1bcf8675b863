"""Which tool schemas a model provider's tool calling rejects or ignores.

An MCP server's schemas are valid JSON Schema, but OpenAI, Anthropic and
Gemini each accept a different subset for tool (function) declarations, and
an agent finds out only when the provider answers 400 in production.
``provider_warnings`` applies each provider's documented rules to one tool;
docs/cli.md lists every rule with the provider's own page. OpenAI has two
modes: ``openai`` is a function sent with ``strict: false`` (what many agent
frameworks send), ``openai-strict`` one sent with ``strict: true``, whose
subset is far smaller. The rules describe what the providers documented on
2026-12-05; they are warnings, not verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_PROVIDERS",
    "PROVIDERS",
    "PROVIDER_DOCS",
    "ProviderWarning",
    "provider_warnings",
]

PROVIDERS = ("openai", "openai-strict", "anthropic", "gemini")

DEFAULT_PROVIDERS = ("openai", "anthropic", "gemini")
"""What ``lint`` checks unless told: OpenAI as most agent frameworks call it (not strict)."""

PROVIDER_DOCS = {
    "openai": "https://platform.openai.com/docs/guides/function-calling",
    "openai-strict": "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
    "anthropic": "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
    "gemini": "https://ai.google.dev/api/caching#Schema",
}
"""The page each provider's rules come from."""

MAX_WARNINGS_PER_TOOL = 50
"""A schema breaking a rule at many places is reported this many times at most per provider."""

_OPENAI_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_ANTHROPIC_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_GEMINI_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}")

# OpenAI's strict mode (Structured Outputs): keywords outside its supported subset.
_OPENAI_UNSUPPORTED = frozenset(
    {
        "allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
        "patternProperties", "unevaluatedProperties", "propertyNames", "minProperties",
        "maxProperties", "unevaluatedItems", "contains", "minContains", "maxContains",
        "uniqueItems", "minLength", "maxLength",
    }
)  # fmt: skip
_OPENAI_MAX_DEPTH = 10
_OPENAI_MAX_PROPERTIES = 5000

# Gemini's ``parameters`` take an OpenAPI 3.0 subset: these fields and no others (any other,
# ``$schema`` included, is refused: "Invalid JSON payload received. Unknown name"). Any
# ``format`` is accepted.
_GEMINI_SUPPORTED = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
        "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
        "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum",
        "maximum",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ProviderWarning:
    """One rule of one provider that one tool's declaration breaks, and where."""

    provider: str
    tool: str
    at: str
    rule: str

    def __str__(self) -> str:
        return f"{self.tool}: {self.provider}: {self.rule} (at {self.at})"


def provider_warnings(
    name: str, input_schema: Mapping[str, Any], providers: Sequence[str] = PROVIDERS
) -> list[ProviderWarning]:
    """What each of ``providers`` would reject or ignore in tool ``name`` with ``input_schema``."""
    found: list[ProviderWarning] = []
    for provider in providers:
        rules = _RULES[provider](name, input_schema)
        for n, (at, rule) in enumerate(rules):
            if n == MAX_WARNINGS_PER_TOOL:
                break
            found.append(ProviderWarning(provider, name, at, rule))
    return found


def _openai(name: str, schema: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """What OpenAI refuses even without ``strict``: the name, a root that is not an object,
    an array without ``items`` (answered 400 "array schema missing items")."""
    if not _OPENAI_NAME.fullmatch(name):
        yield "name", "a function name must match ^[a-zA-Z0-9_-]{1,64}$"
    if schema.get("type") != "object":
        yield "$", "parameters must be a schema of type object"
    for at, _depth, node in _nodes(schema):
        if _is_type(node, "array") and "items" not in node:
            yield at, "an array schema needs items"


def _openai_strict(name: str, schema: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``strict: true`` (Structured Outputs): the rules above and a much smaller subset."""
    yield from _openai(name, schema)
    if "anyOf" in schema:
        yield "$", "the root of strict parameters must not be anyOf"
    properties = 0
    for at, depth, node in _nodes(schema):
        if depth > _OPENAI_MAX_DEPTH:
            yield at, f"strict mode allows {_OPENAI_MAX_DEPTH} levels of nesting"
        for keyword in sorted(_OPENAI_UNSUPPORTED & node.keys()):
            yield at, f"strict mode does not support {keyword!r}"
        if _is_type(node, "object"):
            own = node.get("properties")
            keys = list(own) if isinstance(own, dict) else []
            properties += len(keys)
            if node.get("additionalProperties") is not False:
                yield at, "strict mode needs additionalProperties: false on every object"
            required = node.get("required")
            missing = [key for key in keys if not (isinstance(required, list) and key in required)]
            if missing:
                yield (
                    at,
                    (
                        f"strict mode needs every property required (optional: {_names(missing)}; "
                        'make them nullable with "type": [..., "null"] instead)'
                    ),
                )
    if properties > _OPENAI_MAX_PROPERTIES:
        yield "$", f"strict mode allows {_OPENAI_MAX_PROPERTIES} object properties in all"


def _anthropic(name: str, schema: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    if not _ANTHROPIC_NAME.fullmatch(name):
        yield "name", "a tool name must match ^[a-zA-Z0-9_-]{1,64}$"
    if schema.get("type") != "object":
        yield "$", "input_schema must be a schema of type object"
    for keyword in ("oneOf", "allOf", "anyOf"):
        if keyword in schema:
            yield "$", f"input_schema does not support {keyword!r} at the top level"


def _gemini(name: str, schema: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    if not _GEMINI_NAME.fullmatch(name):
        yield (
            "name",
            (
                "a function name must start with a letter or underscore and hold only a-z, A-Z, "
                "0-9, underscores, colons, dots and dashes (64 at most)"
            ),
        )
    for at, _depth, node in _nodes(schema):
        for keyword in sorted(node.keys() - _GEMINI_SUPPORTED):
            yield at, f"Gemini's Schema has no field {keyword!r} (refused as an unknown name)"
        if isinstance(node.get("type"), list):
            yield at, 'a list of types is not supported (use one type and "nullable": true)'


_RULES = {
    "openai": _openai,
    "openai-strict": _openai_strict,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


def _nodes(
    schema: Any, at: str = "$", depth: int = 1
) -> Iterator[tuple[str, int, Mapping[str, Any]]]:
    """Every subschema with its instance location and nesting depth (bounded by the schema)."""
    if not isinstance(schema, Mapping) or depth > 200:
        return
    yield at, depth, schema
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():
            yield from _nodes(sub, f"{at}.{key}", depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _nodes(items, f"{at}[]", depth + 1)
    for keyword in ("anyOf", "oneOf", "allOf", "prefixItems"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            for n, sub in enumerate(branches):
                yield from _nodes(sub, f"{at}/{keyword}/{n}", depth)
    for keyword in ("$defs", "definitions"):
        defined = schema.get(keyword)
        if isinstance(defined, Mapping):
            for key, sub in defined.items():
                yield from _nodes(sub, f"{at}/{keyword}/{key}", depth)
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        yield from _nodes(extra, f"{at}.*", depth + 1)


def _is_type(node: Mapping[str, Any], name: str) -> bool:
    kind = node.get("type")
    return kind == name or (isinstance(kind, list) and name in kind)


def _names(keys: Sequence[str]) -> str:
    shown = ", ".join(keys[:5])
    return shown + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
