"""Tool classes: the checks made when a subclass is created (docs/tools.md, "Schema rules").

Unhappy paths first: every class attribute is validated when the class
statement runs, so a misdeclared tool never reaches a registry.
"""

from __future__ import annotations

import copy
import json
import pickle
import warnings
from typing import Annotated, Any

import pydantic
import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio

OBJECT = {"type": "object"}


def make_tool(name: str = "Probe", **attributes: Any) -> type[lg.Tool]:
    """A Tool subclass created the way a class statement would create it."""
    namespace: dict[str, Any] = {"description": "A probe.", "call": lambda self, input: input}
    namespace.update(attributes)
    return type(name, (lg.Tool,), namespace)


def schema_with(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


# -- input_schema: type and validity ----------------------------------------------


@pytest.mark.parametrize("schema", [None, [], [("type", "object")], "object", 1, True, {"a"}])
def test_non_mapping_schema_is_a_type_error(schema: Any) -> None:
    with pytest.raises(TypeError, match="input_schema must be a mapping"):
        make_tool(input_schema=schema)


@pytest.mark.parametrize(
    ("schema", "keyword"),
    [
        ({"type": "objekt"}, "type"),
        ({"type": ["object", "strnig"]}, "type"),
        ({"required": "ticket_id"}, "required"),
        ({"required": [1]}, "required"),
        ({"properties": 3}, "properties"),
        ({"properties": {"a": {"minLength": -1}}}, "minLength"),
        ({"properties": {"a": {"maxItems": "3"}}}, "maxItems"),
        ({"properties": {"a": {"enum": "abc"}}}, "enum"),
        ({"properties": {"a": {"multipleOf": 0}}}, "multipleOf"),
        ({"properties": {"a": {"items": 7}}}, "items"),
        ({"additionalProperties": "no"}, "additionalProperties"),
        ({"properties": {"a": {"pattern": 5}}}, "pattern"),
        ({"$ref": "#/$defs/missing"}, "$ref"),
        ({"properties": {"a": {"$ref": "#/$defs/missing"}}, "$defs": {}}, "$ref"),
        ({"$ref": "https://example.invalid/schema.json"}, "$ref"),
    ],
)
def test_invalid_schema_is_a_configuration_error_naming_the_keyword(
    schema: dict[str, Any], keyword: str
) -> None:
    with pytest.raises(lg.ConfigurationError) as caught:
        make_tool("BadSchemaTool", input_schema=schema)
    message = str(caught.value)
    assert f"'{keyword}'" in message
    assert "BadSchemaTool" in message


@pytest.mark.parametrize("pattern", ["[", "a{2,1}", "(unclosed", "(?<=a", "\\k<missing>"])
def test_broken_pattern_fails_at_class_creation(pattern: str) -> None:
    with pytest.raises(lg.ConfigurationError, match="'pattern'"):
        make_tool(input_schema=schema_with(code={"type": "string", "pattern": pattern}))


@pytest.mark.parametrize(
    ("pattern", "matching", "failing"),
    [
        ("(?=a)b", "b", "ab"),  # lookahead: never matches
        ("^(?!a)\\w", "ba", "ab"),  # negative lookahead
        ("(?<=a)b", "ab", "cb"),  # lookbehind
        ("(?<!a)b$", "cb", "ab"),  # negative lookbehind
        ("^(a)\\1$", "aa", "ab"),  # backreference
        ("^(?<c>[a-z])\\k<c>$", "zz", "zy"),  # named backreference
        ("^(?=.*\\d)\\w{3}$", "ab1", "abc"),  # \\d and \\w stay ASCII
    ],
)
async def test_lookaround_and_backreference_patterns_are_enforced(
    pattern: str, matching: str, failing: str
) -> None:
    tool = make_tool(input_schema=schema_with(code={"type": "string", "pattern": pattern}))()
    if pattern != "(?=a)b":
        assert (await tool.execute({"code": matching})).is_success
    result = await tool.execute({"code": failing})
    assert result.content == f"Invalid tool input: $.code must match pattern /{pattern}/"


def test_broken_pattern_property_fails_at_class_creation() -> None:
    with pytest.raises(lg.ConfigurationError, match="'patternProperties'"):
        make_tool(input_schema={"type": "object", "patternProperties": {"(?=x": {}}})


async def test_lookaround_pattern_properties_are_enforced() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^(?!internal_)[a-z_]+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    tool = make_tool(input_schema=schema)()
    assert (await tool.execute({"count": 1})).is_success
    assert (
        await tool.execute({"count": "x"})
    ).content == "Invalid tool input: $.count must be integer"
    hidden = await tool.execute({"internal_key": 1})
    assert hidden.content == "Invalid tool input: $.internal_key is not allowed"


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), {1, 2}, object(), b"bytes"],
    ids=["nan", "inf", "set", "object", "bytes"],
)
def test_schema_with_non_json_values_is_a_configuration_error(value: Any) -> None:
    with pytest.raises(lg.ConfigurationError, match="not JSON"):
        make_tool(input_schema=schema_with(a={"const": value}))


def test_a_failed_class_creation_leaves_no_half_configured_parent() -> None:
    parent = make_tool("Parent", input_schema=schema_with(a={"type": "string"}))
    with pytest.raises(lg.ConfigurationError):
        type("Child", (parent,), {"input_schema": {"type": 12}})
    assert parent.input_schema == schema_with(a={"type": "string"})
    assert parent.specification()["input_schema"] == schema_with(a={"type": "string"})


# -- the other class attributes -----------------------------------------------------


@pytest.mark.parametrize("name", [None, 3, b"bytes", ["name"]])
def test_non_str_tool_name_is_a_type_error(name: Any) -> None:
    with pytest.raises(TypeError, match="tool_name must be a str"):
        make_tool(tool_name=name)


@pytest.mark.parametrize("description", [3, b"bytes", ["text"], {"text": "x"}])
def test_non_str_description_is_a_type_error(description: Any) -> None:
    with pytest.raises(TypeError, match="description must be a str"):
        make_tool(description=description)


@pytest.mark.parametrize("exclusive", [1, 0, "yes", None])
def test_non_bool_exclusive_is_a_type_error(exclusive: Any) -> None:
    with pytest.raises(TypeError, match="exclusive must be a bool"):
        make_tool(exclusive=exclusive)


@pytest.mark.parametrize("predicate", [True, "always", 1])
def test_non_callable_available_if_is_a_type_error(predicate: Any) -> None:
    with pytest.raises(TypeError, match="available_if must be callable"):
        make_tool(available_if=predicate)


def test_exclusive_defaults_to_false_and_is_inherited() -> None:
    plain = make_tool()
    locked = make_tool(exclusive=True)
    child = type("Child", (locked,), {})
    assert plain.exclusive is False
    assert locked.exclusive is True
    assert child.exclusive is True


def test_available_without_predicate_is_true() -> None:
    assert make_tool().available(lg.Binding()) is True


def test_available_applies_the_predicate_to_the_binding() -> None:
    seen: list[lg.Binding] = []

    def only_with_sandbox(binding: lg.Binding) -> Any:
        seen.append(binding)
        return binding.sandbox  # truthy or falsy, not a bool

    tool_class = make_tool(available_if=only_with_sandbox)
    bare, sandboxed = lg.Binding(), lg.Binding(sandbox="box")
    assert tool_class.available(bare) is False
    assert tool_class.available(sandboxed) is True
    assert seen == [bare, sandboxed]


def test_available_if_declared_in_a_class_body_receives_only_the_binding() -> None:
    class Gated(lg.Tool):
        description = "Gated."

        def available_if(binding):  # type: ignore[misc]  # a plain function attribute
            return binding.agent == "support"

        def call(self, input: Any) -> Any:
            return None

    assert Gated.available(lg.Binding(agent="support")) is True
    assert Gated.available(lg.Binding(agent="sales")) is False


def test_a_predicate_failure_propagates() -> None:
    def broken(binding: lg.Binding) -> bool:
        raise RuntimeError("predicate broke")

    with pytest.raises(RuntimeError, match="predicate broke"):
        make_tool(available_if=broken).available(lg.Binding())


# -- tool_name ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("class_name", "tool_name"),
    [
        ("TicketStatusTool", "ticket_status_tool"),
        ("HTTPFetchTool", "http_fetch_tool"),
        ("GetHTTPResponseCode", "get_http_response_code"),
        ("getURL", "get_url"),
        ("ABCTool", "abc_tool"),
        ("Search", "search"),
        ("already_snake", "already_snake"),
        ("S3Upload", "s3_upload"),
        ("MCPToolV2", "mcp_tool_v2"),
    ],
)
def test_default_name_is_the_class_name_in_snake_case(class_name: str, tool_name: str) -> None:
    assert make_tool(class_name).tool_name == tool_name


def test_explicit_name_is_kept() -> None:
    tool_class = make_tool("TicketStatusTool", tool_name="ticket_status")
    assert tool_class.tool_name == "ticket_status"
    assert tool_class().tool_name == "ticket_status"
    assert tool_class.specification()["name"] == "ticket_status"


def test_explicit_name_is_inherited_through_generations() -> None:
    parent = make_tool("TicketStatusTool", tool_name="ticket_status")
    child = type("AuditedTicketStatusTool", (parent,), {})
    grandchild = type("Grandchild", (child,), {"description": "Another."})
    assert child.tool_name == "ticket_status"
    assert grandchild.tool_name == "ticket_status"
    assert grandchild.specification()["name"] == "ticket_status"


def test_default_name_is_not_inherited() -> None:
    parent = make_tool("TicketStatusTool")
    child = type("AuditedTicketTool", (parent,), {})
    assert parent.tool_name == "ticket_status_tool"
    assert child.tool_name == "audited_ticket_tool"
    assert child.specification()["name"] == "audited_ticket_tool"


def test_a_child_can_rename_an_explicitly_named_parent() -> None:
    parent = make_tool(tool_name="first")
    child = type("Child", (parent,), {"tool_name": "second"})
    assert (parent.tool_name, child.tool_name) == ("first", "second")


# -- deep freezing --------------------------------------------------------------------

NESTED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ticket": {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"enum": ["a", "b", ["c", "d"]]}}},
        },
        "choice": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    "required": ["ticket"],
}


def _plain_nested() -> dict[str, Any]:
    return json.loads(json.dumps(NESTED_SCHEMA))


def _mapping_mutations(target: Any) -> list[tuple[str, Any]]:
    return [
        ("setitem", lambda: target.__setitem__("x", 1)),
        ("delitem", lambda: target.__delitem__(next(iter(target)))),
        ("clear", target.clear),
        ("pop", lambda: target.pop(next(iter(target)))),
        ("pop-missing-default", lambda: target.pop("missing", None)),
        ("popitem", target.popitem),
        ("setdefault", lambda: target.setdefault("x", 1)),
        ("update", lambda: target.update(x=1)),
        ("ior", lambda: target.__ior__({"x": 1})),
        ("reinit", lambda: target.__init__({"x": 1})),
        ("setattr", lambda: setattr(target, "_sealed", False)),
    ]


def _list_mutations(target: Any) -> list[tuple[str, Any]]:
    return [
        ("setitem", lambda: target.__setitem__(0, "z")),
        ("setslice", lambda: target.__setitem__(slice(0, 1), ["z"])),
        ("delitem", lambda: target.__delitem__(0)),
        ("append", lambda: target.append("z")),
        ("extend", lambda: target.extend(["z"])),
        ("insert", lambda: target.insert(0, "z")),
        ("pop", target.pop),
        ("remove", lambda: target.remove(target[0])),
        ("clear", target.clear),
        ("sort", target.sort),
        ("reverse", target.reverse),
        ("iadd", lambda: target.__iadd__(["z"])),
        ("imul", lambda: target.__imul__(2)),
        ("reinit", lambda: target.__init__(["z"])),
        ("setattr", lambda: setattr(target, "_sealed", False)),
    ]


def _frozen_nodes(schema: Any) -> list[tuple[str, Any]]:
    properties = schema["properties"]
    tags = properties["ticket"]["properties"]["tags"]
    return [
        ("root", schema),
        ("properties", properties),
        ("ticket", properties["ticket"]),
        ("tags.items", tags["items"]),
        ("enum", tags["items"]["enum"]),
        ("enum[2]", tags["items"]["enum"][2]),
        ("anyOf", properties["choice"]["anyOf"]),
        ("anyOf[0]", properties["choice"]["anyOf"][0]),
        ("required", schema["required"]),
    ]


def _all_mutations() -> list[Any]:
    schema = make_tool(input_schema=NESTED_SCHEMA).input_schema
    cases = []
    for where, node in _frozen_nodes(schema):
        mutations = _list_mutations(node) if isinstance(node, list) else _mapping_mutations(node)
        cases.extend(pytest.param(node, op, id=f"{where}-{name}") for name, op in mutations)
    return cases


@pytest.mark.parametrize(("node", "mutate"), _all_mutations())
def test_schema_mutation_at_any_depth_raises_type_error(node: Any, mutate: Any) -> None:
    before = copy.copy(json.loads(json.dumps(node)))
    with pytest.raises(TypeError):
        mutate()
    assert json.loads(json.dumps(node)) == before


def test_frozen_schema_equals_the_plain_dict_and_is_a_mapping() -> None:
    tool_class = make_tool(input_schema=NESTED_SCHEMA)
    schema = tool_class.input_schema
    assert schema == _plain_nested()
    assert _plain_nested() == schema
    assert isinstance(schema, dict)
    assert schema["properties"]["ticket"]["properties"]["tags"]["items"]["enum"][2] == ["c", "d"]
    assert tool_class().input_schema is schema


def test_frozen_schema_is_json_serializable() -> None:
    schema = make_tool(input_schema=NESTED_SCHEMA).input_schema
    assert json.loads(json.dumps(schema)) == _plain_nested()
    assert json.dumps(schema, sort_keys=True) == json.dumps(_plain_nested(), sort_keys=True)


def test_frozen_schema_survives_copy_deepcopy_and_pickle_frozen() -> None:
    schema = make_tool(input_schema=NESTED_SCHEMA).input_schema
    for clone in (
        copy.copy(schema),
        copy.deepcopy(schema),
        pickle.loads(pickle.dumps(schema)),
        pickle.loads(pickle.dumps(schema, protocol=0)),
    ):
        assert clone == _plain_nested()
        for _, node in _frozen_nodes(clone):
            mutations = (
                _list_mutations(node) if isinstance(node, list) else _mapping_mutations(node)
            )
            for _, mutate in mutations:
                with pytest.raises(TypeError):
                    mutate()
        assert clone == _plain_nested()


def test_schema_is_copied_from_the_declaration() -> None:
    declared = _plain_nested()
    tool_class = make_tool(input_schema=declared)
    declared["properties"]["ticket"]["type"] = "string"
    declared["required"].append("choice")
    assert tool_class.input_schema == _plain_nested()


async def test_validation_is_not_affected_by_mutating_the_declaration() -> None:
    declared: dict[str, Any] = {"type": "object", "required": ["a"]}
    tool_class = make_tool(input_schema=declared)
    declared["required"].append("b")
    result = await tool_class().execute({"a": 1})
    assert result.is_success


def test_schema_keys_are_normalized_to_str() -> None:
    tool_class = make_tool(
        input_schema={"type": "object", "properties": {1: {"type": "string"}, 2.5: {}}}
    )
    properties = tool_class.input_schema["properties"]
    assert list(properties) == ["1", "2.5"]
    assert all(type(key) is str for key in properties)
    assert json.loads(json.dumps(tool_class.specification())) == {
        "name": "probe",
        "description": "A probe.",
        "input_schema": {"type": "object", "properties": {"1": {"type": "string"}, "2.5": {}}},
    }


async def test_normalized_keys_are_what_validation_uses() -> None:
    tool_class = make_tool(input_schema={"type": "object", "required": ["7"], 7: "ignored"})
    tool_class_int_property = make_tool(
        input_schema={"type": "object", "properties": {7: {"type": "integer"}}}
    )
    assert (await tool_class().execute({"7": 1})).is_success
    result = await tool_class_int_property().execute({"7": "seven"})
    assert result.content == 'Invalid tool input: $["7"] must be integer'


def test_schema_from_a_non_dict_mapping_with_tuples_is_frozen_plain_json() -> None:
    from types import MappingProxyType

    declared = MappingProxyType(
        {"type": "object", "required": ("a", "b"), "properties": MappingProxyType({"a": {}})}
    )
    schema = make_tool(input_schema=declared).input_schema
    assert schema == {"type": "object", "required": ["a", "b"], "properties": {"a": {}}}
    with pytest.raises(TypeError):
        schema["required"].append("c")
    with pytest.raises(TypeError):
        schema["properties"]["b"] = {}


def test_default_schema_is_a_frozen_object_schema() -> None:
    tool_class = make_tool()
    assert tool_class.input_schema == {"type": "object"}
    with pytest.raises(TypeError):
        tool_class.input_schema["type"] = "string"  # type: ignore[index]
    # the shared default was not mutated through one tool
    assert make_tool().input_schema == {"type": "object"}


def test_inherited_schema_and_a_child_override() -> None:
    parent = make_tool(input_schema=schema_with(a={"type": "string"}))
    inherits = type("Inherits", (parent,), {})
    overrides = type("Overrides", (parent,), {"input_schema": schema_with(b={})})
    assert inherits.input_schema == parent.input_schema
    assert overrides.input_schema == schema_with(b={})
    assert parent.input_schema == schema_with(a={"type": "string"})


async def test_a_child_override_validates_with_its_own_schema() -> None:
    parent = make_tool(input_schema={"type": "object", "required": ["a"]})
    child = type("Child", (parent,), {"input_schema": {"type": "object", "required": ["b"]}})
    assert (await parent().execute({"a": 1})).is_success
    assert (await child().execute({"b": 1})).is_success
    assert (await child().execute({"a": 1})).content == "Invalid tool input: $.b is required"


# -- specification() -------------------------------------------------------------------


def test_specification_is_frozen_json_with_exactly_three_keys() -> None:
    tool_class = make_tool(
        "TicketStatusTool",
        tool_name="ticket_status",
        description="Look up a ticket.",
        input_schema=NESTED_SCHEMA,
    )
    spec = tool_class.specification()
    assert json.loads(json.dumps(spec)) == {
        "name": "ticket_status",
        "description": "Look up a ticket.",
        "input_schema": _plain_nested(),
    }
    for mutate in (
        lambda: spec.__setitem__("name", "other"),
        lambda: spec.update(name="other"),
        lambda: spec.pop("name"),
        lambda: spec["input_schema"]["properties"].__setitem__("x", {}),
        lambda: spec["input_schema"]["required"].append("x"),
    ):
        with pytest.raises(TypeError):
            mutate()
    assert spec["name"] == "ticket_status"
    assert spec == tool_class().specification()
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_specification_without_description_has_a_null_description() -> None:
    class Undescribed(lg.Tool):
        def call(self, input: Any) -> Any:
            return None

    assert Undescribed.description is None
    assert json.loads(json.dumps(Undescribed.specification())) == {
        "name": "undescribed",
        "description": None,
        "input_schema": {"type": "object"},
    }


# -- instances -------------------------------------------------------------------------


def test_a_tool_without_call_cannot_be_instantiated() -> None:
    class NoCall(lg.Tool):
        description = "Declares nothing to do."

    with pytest.raises(lg.ConfigurationError, match="NoCall must implement call"):
        NoCall()
    with pytest.raises(lg.ConfigurationError):
        lg.Tool()


@pytest.mark.parametrize("binding", [{}, "binding", object()])
def test_binding_must_be_a_binding(binding: Any) -> None:
    with pytest.raises(TypeError, match="binding must be a Binding"):
        make_tool()(binding=binding)


# -- Tool.define -------------------------------------------------------------------------


def test_define_rejects_a_non_callable() -> None:
    with pytest.raises(TypeError, match="fn must be callable"):
        lg.Tool.define("echo", "Echo.", "not callable")  # type: ignore[arg-type]


def test_define_checks_its_schema_and_name_like_a_class_statement() -> None:
    with pytest.raises(lg.ConfigurationError, match="'type'"):
        lg.Tool.define("echo", "Echo.", lambda input: input, input_schema={"type": "nope"})
    with pytest.raises(TypeError, match="input_schema must be a mapping"):
        lg.Tool.define("echo", "Echo.", lambda input: input, input_schema=[])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="description must be a str"):
        lg.Tool.define("echo", 3, lambda input: input)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        lg.Tool.define(3, "Echo.", lambda input: input)  # type: ignore[arg-type]


def test_define_builds_an_anonymous_subclass() -> None:
    echo = lg.Tool.define("echo", "Echo text.", lambda input: input["text"])
    other = lg.Tool.define("echo", "Echo text.", lambda input: input["text"])
    assert issubclass(echo, lg.Tool)
    assert echo is not other
    assert echo.tool_name == "echo"
    assert echo.description == "Echo text."
    assert echo.input_schema == {"type": "object"}
    assert json.loads(json.dumps(echo.specification())) == {
        "name": "echo",
        "description": "Echo text.",
        "input_schema": {"type": "object"},
    }


async def test_define_with_a_sync_function() -> None:
    schema = schema_with(text={"type": "string"}) | {"required": ["text"]}
    echo = lg.Tool.define("echo", "Echo.", lambda input: input["text"], input_schema=schema)
    assert echo.input_schema == schema
    assert (await echo().execute({"text": "hi"})).content == "hi"
    invalid = await echo().execute({})
    assert invalid.content == "Invalid tool input: $.text is required"


async def test_define_with_an_async_function() -> None:
    async def shout(input: dict[str, Any]) -> str:
        return input["text"].upper()

    result = await lg.Tool.define("shout", "Shout.", shout)().execute({"text": "hi"})
    assert result.value == "HI"


async def test_define_passes_the_context_to_a_keyword_only_parameter() -> None:
    seen: list[Any] = []

    def remember(input: Any, *, context: lg.RunContext) -> str:
        seen.append(context)
        return context.state["who"]

    context = lg.RunContext(state={"who": "ada"})
    result = await lg.Tool.define("who", "Who.", remember)().execute({}, context=context)
    assert result.content == "ada"
    assert seen == [context]


async def test_define_passes_the_context_to_an_async_function() -> None:
    async def remember(input: Any, context: lg.RunContext) -> Any:
        return context.state["who"]

    context = lg.RunContext(state={"who": "grace"})
    result = await lg.Tool.define("who", "Who.", remember)().execute({}, context=context)
    assert result.value == "grace"


async def test_define_passes_the_context_through_var_keyword() -> None:
    def remember(input: Any, **kwargs: Any) -> Any:
        return sorted(kwargs)

    assert (await lg.Tool.define("kw", "Kw.", remember)().execute({})).value == ["context"]


async def test_define_without_a_context_parameter_is_called_with_input_only() -> None:
    calls: list[tuple[Any, ...]] = []

    def record(*args: Any) -> str:
        calls.append(args)
        return "ok"

    await lg.Tool.define("record", "Record.", record)().execute({"a": 1})
    assert calls == [({"a": 1},)]


async def test_define_without_context_in_execute_still_gets_a_run_context() -> None:
    def remember(input: Any, *, context: Any) -> Any:
        return isinstance(context, lg.RunContext)

    assert (await lg.Tool.define("ctx", "Ctx.", remember)().execute({})).value is True


async def test_define_sanitizes_the_function_failure() -> None:
    def boom(input: Any) -> Any:
        raise ValueError("password=hunter2")

    result = await lg.Tool.define("boom", "Boom.", boom)().execute({})
    assert result.content == "Tool failed (ValueError)"
    assert "hunter2" in str(result.error)


# -- @lg.tool ------------------------------------------------------------------------------


class Address(pydantic.BaseModel):
    city: str
    postcode: str | None = None


def test_tool_decorator_derives_the_schema_from_type_hints() -> None:
    @lg.tool
    def book(city: str, nights: int, budget: float, breakfast: bool, tags: list[str]) -> str:
        """Book a hotel."""
        return city

    assert issubclass(book, lg.Tool)
    assert book.tool_name == "book"
    assert book.description == "Book a hotel."
    assert book.input_schema == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string"},
            "nights": {"type": "integer"},
            "budget": {"type": "number"},
            "breakfast": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["city", "nights", "budget", "breakfast", "tags"],
    }
    with pytest.raises(TypeError):
        book.input_schema["properties"]["city"]["type"] = "integer"
    json.dumps(book.specification())


def test_tool_decorator_defaults_are_optional_with_a_default() -> None:
    @lg.tool
    def search(query: str, limit: int = 10, language: str | None = None) -> list[str]:
        """Search."""
        return []

    schema = search.input_schema
    assert schema["required"] == ["query"]
    assert schema["properties"]["limit"] == {"type": "integer", "default": 10}
    assert schema["properties"]["language"]["default"] is None


async def test_tool_decorator_fills_defaults_and_validates() -> None:
    @lg.tool
    def search(query: str, limit: int = 10) -> dict[str, Any]:
        """Search."""
        return {"query": query, "limit": limit}

    assert (await search().execute({"query": "q"})).value == {"query": "q", "limit": 10}
    assert (await search().execute({"query": "q", "limit": 3})).value == {"query": "q", "limit": 3}
    missing = await search().execute({"limit": "3", "other": 1})
    assert missing.is_error
    assert missing.content.startswith("Invalid tool input: ")
    for part in ("$.query is required", "$.limit must be integer", "$.other is not allowed"):
        assert part in missing.content


async def test_tool_decorator_accepts_pydantic_models_as_parameters() -> None:
    received: list[Any] = []

    @lg.tool
    async def ship(address: Address, count: int = 1) -> str:
        """Ship parcels."""
        received.append(address)
        return f"{count} to {address.city}"

    assert "$defs" in ship.input_schema  # the model is referenced, and the ref resolves
    result = await ship().execute({"address": {"city": "Lyon"}})
    assert result.content == "1 to Lyon"
    assert received == [Address(city="Lyon")]
    assert isinstance(received[0], Address)
    nested = await ship().execute({"address": {"city": 5, "postcode": []}})
    assert nested.is_error
    assert "$.address.city must be string" in nested.content
    assert "$.address.postcode" in nested.content
    assert len(received) == 1


def test_tool_decorator_name_and_description_overrides() -> None:
    @lg.tool(name="ticket_status", description="Look up a ticket.")
    def lookup(ticket_id: str) -> str:
        """Docstring that is overridden."""
        return ticket_id

    assert lookup.tool_name == "ticket_status"
    assert lookup.description == "Look up a ticket."
    assert lookup.specification()["name"] == "ticket_status"


def test_tool_decorator_with_parentheses_and_no_arguments_uses_the_docstring() -> None:
    @lg.tool()
    def lookup(ticket_id: str) -> str:
        """Look up a ticket.

        Longer explanation.
        """
        return ticket_id

    assert lookup.tool_name == "lookup"
    assert lookup.description == "Look up a ticket.\n\nLonger explanation."


def test_tool_decorator_exclusive() -> None:
    @lg.tool(exclusive=True)
    def migrate() -> None:
        """Migrate."""

    assert migrate.exclusive is True


def test_tool_decorator_without_description_is_a_configuration_error() -> None:
    with pytest.raises(lg.ConfigurationError, match=r"'undocumented'.*description"):

        @lg.tool
        def undocumented(a: int) -> int:
            return a

    with pytest.raises(lg.ConfigurationError):

        @lg.tool(description="")
        def empty(a: int) -> int:
            return a


@pytest.mark.parametrize("kind", ["args", "kwargs", "positional"])
def test_tool_decorator_rejects_parameters_a_schema_cannot_describe(kind: str) -> None:
    def star_args(*args: int) -> None:
        """Star args."""

    def star_kwargs(**kwargs: int) -> None:
        """Star kwargs."""

    def positional(a: int, /) -> None:
        """Positional-only."""

    fn = {"args": star_args, "kwargs": star_kwargs, "positional": positional}[kind]
    with pytest.raises(lg.ConfigurationError, match="cannot"):
        lg.tool(fn)


def test_tool_decorator_rejects_unresolvable_hints() -> None:
    def broken(a: NoSuchType) -> None:  # type: ignore[name-defined]  # noqa: F821
        """Broken."""

    with pytest.raises(lg.ConfigurationError, match="unresolvable type hints"):
        lg.tool(broken)


def test_tool_decorator_rejects_a_type_without_a_schema() -> None:
    class Opaque:
        pass

    def opaque(a: Opaque) -> None:
        """Opaque."""

    with pytest.raises(lg.ConfigurationError, match="'opaque'"):
        lg.tool(opaque)


def test_tool_decorator_rejects_a_non_callable() -> None:
    with pytest.raises(TypeError):
        lg.tool(42)  # type: ignore[call-overload]


def test_tool_decorator_keeps_field_metadata() -> None:
    @lg.tool
    def greet(name: Annotated[str, pydantic.Field(description="Who to greet", min_length=1)]):
        """Greet."""
        return f"hi {name}"

    assert greet.input_schema["properties"]["name"] == {
        "type": "string",
        "description": "Who to greet",
        "minLength": 1,
    }


async def test_tool_decorator_context_parameter_receives_the_run_context() -> None:
    seen: list[Any] = []

    @lg.tool
    def whoami(greeting: str, context: lg.RunContext) -> str:
        """Who am I."""
        seen.append(context)
        return f"{greeting} {context.state['who']}"

    assert "context" not in whoami.input_schema["properties"]
    assert whoami.input_schema["required"] == ["greeting"]
    context = lg.RunContext(state={"who": "ada"})
    result = await whoami().execute({"greeting": "hi"}, context=context)
    assert result.content == "hi ada"
    assert seen == [context]
    # the model cannot supply it
    smuggled = await whoami().execute({"greeting": "hi", "context": "x"}, context=context)
    assert smuggled.content == "Invalid tool input: $.context is not allowed"


async def test_tool_decorator_async_context_parameter() -> None:
    @lg.tool
    async def whoami(context: lg.RunContext) -> Any:
        """Who am I."""
        return context.state

    context = lg.RunContext(state={"who": "grace"})
    assert (await whoami().execute({}, context=context)).value == {"who": "grace"}
    assert whoami.input_schema["properties"] == {}


async def test_tool_decorator_sanitizes_failures_and_keeps_tool_errors() -> None:
    @lg.tool
    def risky(mode: str) -> str:
        """Risky."""
        if mode == "safe":
            raise lg.ToolError("no such ticket")
        raise KeyError("api_key=sk-123")

    assert (await risky().execute({"mode": "safe"})).content == "no such ticket"
    crashed = await risky().execute({"mode": "crash"})
    assert crashed.content == "Tool failed (KeyError)"
    assert "sk-123" not in crashed.content


@pytest.mark.parametrize(
    "parameter",
    [
        "json",
        "schema",
        "copy",
        "dict",
        "model_config",
        "model_extra",
        "model_fields",
        "model_dump",
        "model_validate",
        "_private",
        "__dunder",
        "input",
        "self",
    ],
)
async def test_tool_decorator_parameters_named_like_pydantic_members(parameter: str) -> None:
    namespace: dict[str, Any] = {}
    source = f'def echo({parameter}: int) -> int:\n    "Echo."\n    return {parameter}\n'
    exec(source, namespace)  # a def whose parameter name varies
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "shadows an attribute" warning either
        echo = lg.tool(namespace["echo"])
    assert echo.input_schema["properties"] == {parameter: {"type": "integer"}}
    assert echo.input_schema["required"] == [parameter]
    result = await echo().execute({parameter: 7})
    assert result.value == 7
    wrong = await echo().execute({parameter: "seven"})
    assert wrong.is_error


async def test_tool_decorator_accepts_a_field_as_default() -> None:
    @lg.tool
    def page(size: int = pydantic.Field(20, ge=1, description="Page size")) -> int:
        """Page."""
        return size

    assert page.input_schema["properties"]["size"] == {
        "type": "integer",
        "default": 20,
        "minimum": 1,
        "description": "Page size",
    }
    assert (await page().execute({})).value == 20
    assert (await page().execute({"size": 0})).content == "Invalid tool input: $.size must be >= 1"


async def test_tool_decorator_keyword_only_parameters_are_input() -> None:
    @lg.tool
    def move(x: int, *, y: int = 2) -> list[int]:
        """Move."""
        return [x, y]

    assert (await move().execute({"x": 1})).value == [1, 2]
    assert (await move().execute({"x": 1, "y": 5})).value == [1, 5]
