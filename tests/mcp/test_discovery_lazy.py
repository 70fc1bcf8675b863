"""Validators compile on first use, yet every invalid schema still fails discovery.

Compiling is most of what a tool costs at discovery, so a schema that cannot
fail to compile (no regex, no reference) compiles when a tool first validates
input. These tests hold the promise of docs/mcp.md: an invalid ``inputSchema``
or ``outputSchema`` is found at discovery (an ``InvalidSchema``: with
``strict = True`` discovery fails, else that tool is left out), wherever it
sits in a catalog of lazily compiled tools.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import jsonschema_rs
import mcp
import pytest
from mcp_servers.scripted import ScriptedTransport, page, text_result, tool

import littleghost as lg
from littleghost._schema import (
    DRAFTS,
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
    Draft,
    compiles_on_first_use,
    compiles_on_first_use_walked,
    freeze_metered,
    freeze_within,
    measure_within,
    regexes_to_check,
)
from littleghost._schema._fast_walk import _CHECKED_STEPS  # pyright: ignore[reportPrivateUsage]
from littleghost._validation import (
    MAX_SCHEMA_DEPTH,
    SchemaValidator,
    compile_instance_validator,
)
from littleghost._validation._compile import regexes_compile
from littleghost._validation._schema import check_schema
from littleghost.mcp import InvalidSchema, Toolset
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio

CORPUS = Path(__file__).resolve().parents[1] / "data" / "tool_schemas"

DRAFT_07 = "http://json-schema.org/draft-07/schema#"

# Valid against the metaschema, and only compiling finds them wrong.
COMPILE_FAILURES: list[tuple[str, dict[str, Any]]] = [
    ("unresolvable $ref", {"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}}),
    (
        "$ref to a non-schema",
        {"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/required/0"}}},
    ),
    ("malformed $id", {"type": "object", "$id": "not a uri %%"}),
    ("unclosed pattern", {"type": "object", "properties": {"a": {"pattern": "(unclosed"}}}),
    ("unclosed patternProperties key", {"type": "object", "patternProperties": {"[a-": {}}}),
    (
        "$ref into data",
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/properties/b/default"}, "b": {"default": {"type": 5}}},
        },
    ),
    (
        "$ref under a keyword its draft does not check",
        {
            "$schema": DRAFT_07,
            "type": "object",
            "$defs": {"x": {"type": 5}},
            "properties": {"a": {"$ref": "#/$defs/x"}},
        },
    ),
    (
        "$ref that is no URI reference",
        {"type": "object", "$defs": {"a b": {}}, "properties": {"a": {"$ref": "#/$defs/a b"}}},
    ),
    (
        "word boundary its draft's regex check refuses",
        {"$schema": DRAFT_07, "type": "object", "properties": {"a": {"pattern": "\\b\\cJ"}}},
    ),
    (
        "patternProperties word boundary its draft's regex check refuses",
        {"$schema": DRAFT_07, "type": "object", "patternProperties": {"\\b\\cJ": {}}},
    ),
]
METASCHEMA_FAILURE = {"type": "object", "properties": {"a": {"type": "strnig"}}}
LAZY = {
    "type": "object",
    "properties": {"ticket": {"type": "integer", "minimum": 1}, "note": {"type": "string"}},
    "required": ["ticket"],
    "additionalProperties": False,
}


def catalog(bad: dict[str, Any]) -> list[dict[str, Any]]:
    """Forty lazily compiled tools with ``bad`` in the middle."""
    tools = [tool(f"fine_{i}", inputSchema=LAZY, outputSchema=LAZY) for i in range(40)]
    tools.insert(20, bad)
    return tools


def toolset(tools: list[dict[str, Any]]) -> type[Toolset]:
    async def handler(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "tools/list":
            return page(tools)
        return text_result("done", structuredContent={"ticket": 1})

    class Scripted(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(ScriptedTransport(handler))

    return Scripted


INVALID = [
    *[(f"input-{name}", "inputSchema", schema) for name, schema in COMPILE_FAILURES],
    *[(f"output-{name}", "outputSchema", schema) for name, schema in COMPILE_FAILURES],
    ("input-metaschema", "inputSchema", METASCHEMA_FAILURE),
    ("output-metaschema", "outputSchema", METASCHEMA_FAILURE),
]


@pytest.mark.parametrize(
    ("field", "schema"), [pytest.param(field, schema, id=name) for name, field, schema in INVALID]
)
async def test_an_invalid_schema_fails_discovery(lg_leaks: Any, field: str, schema: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    tools = catalog(tool("broken", **{field: schema}))

    class Strict(toolset(tools)):  # type: ignore[misc]
        strict = True

    with anyio.fail_after(10), pytest.raises(InvalidSchema, match=f"invalid {field}"):
        await Strict.tools(lg.Binding())
    async with lg.Run() as run:  # not strict: that tool alone is left out
        names = [cls.tool_name for cls in await toolset(tools).tools(lg.Binding(run=run))]
    assert "broken" not in names and len(names) == len(tools) - 1
    await baseline.assert_released()


async def test_a_lazily_compiled_tool_validates_on_first_use(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    async with lg.Run() as run:
        classes = await toolset(catalog(tool("also_fine", inputSchema=LAZY))).tools(
            lg.Binding(run=run)
        )
        fine = {cls.tool_name: cls for cls in classes}["fine_0"](lg.Binding(run=run))
        rejected = await fine.execute({"ticket": 0, "extra": True}, context=run.context)
        assert rejected.status == "error"
        assert rejected.content == (
            "Invalid tool input: $.ticket must be >= 1; $.extra is not allowed"
        )
        accepted = await fine.execute({"ticket": 7, "note": "ok"}, context=run.context)
        assert accepted.is_success
        assert accepted.value == {"ticket": 1}
    await baseline.assert_released()


@pytest.mark.parametrize(("name", "schema"), COMPILE_FAILURES)
def test_a_schema_that_can_fail_to_compile_compiles_at_once(name: str, schema: Any) -> None:
    assert jsonschema_rs.meta.is_valid(schema)
    assert not compiles_on_first_use(schema, json.dumps(schema))
    with pytest.raises(lg.ConfigurationError, match="Invalid input schema"):
        SchemaValidator(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": "http://json-schema.org/draft-04/schema#", "id": "urn:x", "type": "object"},
        {"type": "object", "properties": {"a": {"$schema": "https://example.com/meta"}}},
        {"type": "object", "$dynamicRef": "#node"},
        {"type": "object", "$anchor": "node"},
    ],
    ids=["draft-04 id", "nested $schema", "$dynamicRef", "$anchor"],
)
def test_references_and_base_uris_compile_at_once(schema: Any) -> None:
    assert not compiles_on_first_use(schema, json.dumps(schema))


def test_every_corpus_schema_deemed_infallible_compiles() -> None:
    """The rules on real schemas: each one left for first use does compile."""
    by_text = by_walk = 0
    for path in sorted(CORPUS.glob("*.json")):
        for listed in json.loads(path.read_text(encoding="utf-8"))["tools"]:
            for field in ("inputSchema", "outputSchema"):
                schema = listed.get(field)
                if schema is None or not jsonschema_rs.meta.is_valid(schema):
                    continue
                text_rule = compiles_on_first_use(schema, json.dumps(schema))
                walk_rule = compiles_on_first_use_walked(freeze_within(schema, MAX_SCHEMA_DEPTH))
                by_text += text_rule
                by_walk += bool(walk_rule)
                if text_rule or walk_rule:
                    compile_instance_validator(schema)
    assert 1000 < by_text < by_walk  # the walk also lets resolvable local $refs wait


async def test_a_local_reference_compiles_on_first_use_and_applies() -> None:
    schema = {
        "type": "object",
        "$defs": {"ticket": {"type": "integer", "minimum": 1}},
        "properties": {"ticket": {"$ref": "#/$defs/ticket"}},
    }
    tool_class = type("Refs", (lg.Tool,), {"input_schema": schema, "call": _echo})
    assert compiles_on_first_use_walked(tool_class.input_schema) is True
    rejected = await tool_class().execute({"ticket": 0})
    assert rejected.content == "Invalid tool input: $.ticket must be >= 1"
    assert (await tool_class().execute({"ticket": 3})).is_success


async def _echo(self: lg.Tool, input: Any) -> Any:
    return input


@pytest.mark.parametrize(("name", "schema"), COMPILE_FAILURES)
def test_a_tool_class_with_a_schema_that_fails_to_compile_is_refused(
    name: str, schema: Any
) -> None:
    with pytest.raises(lg.ConfigurationError, match="Broken: Invalid input schema"):
        type("Broken", (lg.Tool,), {"input_schema": schema, "call": lambda self, input: None})


# -- schemas frozen on first read ------------------------------------------------------

PATTERNED = {
    "type": "object",
    "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
    "patternProperties": {"^x-": {"type": "integer"}},
}


def _mutations(schema: Any) -> list[Any]:
    return [
        lambda: schema.__setitem__("type", "string"),
        lambda: schema["properties"].__setitem__("extra", {}),
        lambda: schema["required"].append("note"),
        lambda: schema.update(type="string"),
    ]


async def test_discovery_leaves_schemas_unread_and_a_read_freezes_them(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    tools = [tool("ticket", inputSchema=LAZY, outputSchema=LAZY)]
    async with lg.Run() as run:
        (ticket,) = await toolset(tools).tools(lg.Binding(run=run))
        remote = ticket._lg_remote  # type: ignore[attr-defined]
        assert remote._input_schema is None and remote._mcp_tool is None  # nothing copied yet
        schema = ticket.input_schema
        assert schema == LAZY and schema is ticket.input_schema
        assert schema is ticket(lg.Binding(run=run)).input_schema
        specification = ticket.specification()
        assert specification["input_schema"] is schema and specification is ticket.specification()
        mcp_tool = ticket.mcp_tool  # type: ignore[attr-defined]
        assert mcp_tool.input_schema is schema and mcp_tool.output_schema == LAZY
        for frozen in (schema, specification["input_schema"], mcp_tool.output_schema):
            for mutate in _mutations(frozen):
                with pytest.raises(TypeError):
                    mutate()
        assert schema == LAZY and mcp_tool.output_schema == LAZY
    await baseline.assert_released()


async def test_map_tool_sees_frozen_schemas_and_its_subclass_is_a_checked_tool(
    lg_leaks: Any,
) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    seen: list[Any] = []

    class Renaming(toolset([tool("ticket", inputSchema=LAZY, outputSchema=LAZY)])):
        def map_tool(self, tool_class: Any, *, mcp_tool: Any, binding: lg.Binding) -> Any:
            seen.append(mcp_tool)
            return type("Renamed", (tool_class,), {"tool_name": "renamed", "regex_timeout": 0.5})

    async with lg.Run() as run:
        (renamed,) = await Renaming.tools(lg.Binding(run=run))
        (mcp_tool,) = seen
        with pytest.raises(TypeError):
            mcp_tool.input_schema["properties"]["note"] = {}
        assert renamed.mcp_tool is mcp_tool  # type: ignore[attr-defined]
        assert renamed.specification() == {
            "name": "renamed",
            "description": "The ticket tool.",
            "input_schema": LAZY,
        }
        result = await renamed(lg.Binding(run=run)).execute({"ticket": 0})
        assert result.content == "Invalid tool input: $.ticket must be >= 1"
    await baseline.assert_released()


async def test_a_schema_whose_regexes_compile_compiles_on_first_use_and_applies_them(
    lg_leaks: Any,
) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    async with lg.Run() as run:
        binding = lg.Binding(run=run)
        (coded,) = await toolset([tool("coded", inputSchema=PATTERNED)]).tools(binding)
        validator = coded._validator  # type: ignore[attr-defined]
        assert hasattr(validator, "_pending")  # checked at discovery, compiled on first use
        rejected = await coded(binding).execute({"code": "abcd", "x-count": "many"})
        assert rejected.content == (
            "Invalid tool input: $.code must match pattern /^[A-Z]{3}$/; "
            '$["x-count"] must be integer'
        )
        assert (await coded(binding).execute({"code": "ABC", "x-count": 3})).is_success
    await baseline.assert_released()


def test_a_regex_that_fails_the_check_fails_the_schema_at_once() -> None:
    schema = {"type": "object", "properties": {"a": {"pattern": "[z-a]"}}}
    regexes = regexes_to_check(freeze_within(schema, MAX_SCHEMA_DEPTH))
    assert regexes is not None and not regexes_compile(*regexes)
    with pytest.raises(lg.ConfigurationError, match="Invalid input schema: keyword 'pattern'"):
        SchemaValidator(schema)


def test_a_lookaround_property_pattern_is_settled_by_compiling_the_whole_schema() -> None:
    """It moves the schema to the backtracking engine: only the whole schema tells."""
    schema = {"type": "object", "patternProperties": {"^(?!x-)": {"type": "integer"}}}
    regexes = regexes_to_check(freeze_within(schema, MAX_SCHEMA_DEPTH))
    assert regexes is not None and not regexes_compile(*regexes)
    validator = SchemaValidator(schema)
    assert not hasattr(validator, "_pending")  # compiled at once
    assert validator.is_valid({"a": 1, "x-b": "text"})
    assert not validator.is_valid({"a": "text"})


def test_every_corpus_schema_whose_regexes_pass_the_check_compiles() -> None:
    """The regex rule on real schemas: each one it leaves for first use does compile."""
    lazy = 0
    for path in sorted(CORPUS.glob("*.json")):
        for listed in json.loads(path.read_text(encoding="utf-8"))["tools"]:
            for field in ("inputSchema", "outputSchema"):
                schema = listed.get(field)
                if schema is None or not jsonschema_rs.meta.is_valid(schema):
                    continue
                regexes = regexes_to_check(freeze_within(schema, MAX_SCHEMA_DEPTH))
                if regexes is not None and regexes_compile(*regexes):
                    lazy += 1
                    compile_instance_validator(schema)
    assert lazy > 40  # the rule applies to real schemas, not only to made-up ones


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def _cyclic() -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    return schema


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"maximum": float("nan")}}},
        {"type": "object", "properties": {"a": {"maximum": float("inf")}}},
        {"type": "object", "required": ("a",)},
        _cyclic(),
        _nested(5),
    ],
    ids=["NaN", "infinity", "tuple", "cycle", "too deep"],
)
def test_measuring_refuses_what_freezing_refuses(schema: Any) -> None:
    """Anything but a plain JSON tree within the depth takes the slow path (``None``)."""
    assert measure_within(schema, 4) is None
    assert freeze_metered(schema, 4) is None


def test_a_key_that_is_not_a_string_takes_the_slow_path_that_normalizes_it() -> None:
    schema = {"type": "object", "properties": {1: {"type": "string"}}}
    assert measure_within(schema, 4) is None
    frozen = freeze_metered(schema, 4)
    assert frozen is not None and list(frozen.frozen["properties"]) == ["1"]


def test_measuring_learns_what_freezing_learns_on_every_corpus_schema() -> None:
    """The walk discovery runs (no copy) and the one a first read runs (a frozen copy) agree."""
    compared = 0
    for path in sorted(CORPUS.glob("*.json")):
        for listed in json.loads(path.read_text(encoding="utf-8"))["tools"]:
            for field in ("inputSchema", "outputSchema"):
                schema = listed.get(field)
                if not isinstance(schema, dict):
                    continue
                for depth in (64, 3):
                    measured = measure_within(schema, depth)
                    frozen = freeze_metered(schema, depth)
                    assert (measured is None) == (frozen is None), path.name
                    if measured is not None and frozen is not None:
                        compared += 1
                        walked = getattr(frozen.frozen, "_walked")  # noqa: B009
                        assert (measured.nodes, measured.regexes, measured.verdict) == (
                            frozen.nodes,
                            frozen.regexes,
                            walked[1],
                        ), path.name
    assert compared > 1500


async def test_the_catalog_is_metered_as_the_server_sent_it(lg_leaks: Any) -> None:
    """``max_catalog_bytes`` counts a page's JSON before the SDK models it: fields it drops too."""
    baseline: ResourceSnapshot = lg_leaks()

    async def padded(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return page([tool("small")]) | {"padding": "x" * 5000}

    class Padded(Toolset):
        max_catalog_bytes = 4000

        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(ScriptedTransport(padded))

    with anyio.fail_after(10), pytest.raises(lg.ProtocolError, match=r"max_catalog_bytes \(4000\)"):
        await Padded.tools(lg.Binding())
    await baseline.assert_released()


@pytest.mark.parametrize("draft", DRAFTS, ids=[draft.name for draft in DRAFTS])
def test_a_reference_waits_only_under_keywords_its_metaschema_checks(draft: Draft) -> None:
    """A subschema the metaschema check never saw may fail to compile: a reference to it
    compiles at once. The table of checked keywords is held to what the check refuses."""
    for keyword in sorted(SUBSCHEMA_KEYWORDS | SUBSCHEMA_LIST_KEYWORDS | SUBSCHEMA_MAP_KEYWORDS):
        broken: Any = {"type": 5}
        if keyword in SUBSCHEMA_MAP_KEYWORDS:
            value, ref = {"x": broken}, f"#/{keyword}/x"
        elif keyword in SUBSCHEMA_LIST_KEYWORDS:
            value, ref = [broken], f"#/{keyword}/0"
        else:
            value, ref = broken, f"#/{keyword}"
        referring = (
            {"allOf": [{"$ref": ref}]}
            if keyword == "properties"
            else {"properties": {"a": {"$ref": ref}}}
        )
        schema = {"$schema": draft.uris[0], keyword: value, **referring}
        try:
            check_schema(schema)  # what every schema passes before it may compile lazily
        except lg.ConfigurationError:
            checked = True
        else:
            checked = False
        assert (keyword in _CHECKED_STEPS[draft.name]) == checked, keyword
        if not checked:  # let through by the metaschema: refused when declared, not first used
            with pytest.raises(lg.ConfigurationError, match="Invalid input schema: keyword 'type'"):
                SchemaValidator(schema)


def test_a_compile_failure_on_first_use_is_raised_not_taken_for_bad_input() -> None:
    """Were a schema let through to compile on first use and fail, it would say why."""
    schema = COMPILE_FAILURES[0][1]  # an unresolvable $ref, measured as if it were fine
    for use in (
        lambda validator: validator.is_valid({"a": 1}),
        lambda validator: validator.violations({"a": 1}),
        lambda validator: validator.report({"a": 1}),
    ):
        validator = SchemaValidator.measured(schema, True)
        with pytest.raises(lg.ConfigurationError, match="Invalid input schema: keyword '\\$ref'"):
            use(validator)
