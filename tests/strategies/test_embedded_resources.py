"""Embedded resources: a subschema with ``$id`` (Draft 2020-12 bundling), in the strategies.

A bundled schema ships several resources in one document, each a ``$defs``
entry (or any subschema) with its own ``$id``. Its ``$ref``s resolve against
that ``$id``, its anchors and JSON pointers are its own, and entering it, by
``$ref`` or by nesting, puts it in the dynamic scope a ``$dynamicRef`` searches,
outermost first. The suite's groups are judged by ``jsonschema``; the
``$dynamicRef`` cases show a value only the right resolution draws (``find``).
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import Phase, find, given, settings

from littleghost._validation import SchemaValidator, schema_problem
from littleghost_testing.strategies import SchemaError
from littleghost_testing.strategies._context import Context

from .support import compile_schema
from .test_suite_cases import FILES, _check_group

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
QUICK = settings(
    max_examples=200, database=None, deadline=None, derandomize=True, phases=[Phase.generate]
)
RUN = settings(QUICK, max_examples=40)
# The suite's files whose groups test references; the others' bundled groups (dynamicRef,
# unevaluated*, draft-04 ref) run with their families in test_suite_cases.
REFERENCE_FILES = ["draft2020-12/ref.json", "draft2020-12/anchor.json"]
# What the suite's remote documents (not vendored) make the strategies say.
NOT_VENDORED = "not present in a registry"


def _embeds(schema: Any, depth: int = 0) -> bool:
    """Whether a subschema below the root has an ``$id`` (draft-04: ``id``)."""
    if isinstance(schema, dict):
        if depth and any(isinstance(schema.get(key), str) for key in ("$id", "id")):
            return True
        return any(_embeds(value, depth + 1) for value in schema.values())
    return isinstance(schema, list) and any(_embeds(value, depth + 1) for value in schema)


def _remote(schema: Any) -> bool:
    """Whether a ``$ref`` names one of the suite's remote documents (``localhost:1234``)."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.endswith(".json") and "$defs" not in str(schema):
            return True
        return any(_remote(value) for value in schema.values())
    return isinstance(schema, list) and any(_remote(value) for value in schema)


BUNDLED = [
    pytest.param(group, id=f"{name.split('/')[0]}: {group['description']}")
    for name, groups in FILES.items()
    for group in groups
    if _embeds(group["schema"])
]


@pytest.mark.parametrize(
    "group",
    [
        pytest.param(group, id=f"{name.split('/')[0]}: {group['description']}")
        for name in REFERENCE_FILES
        for group in FILES[name]
        if _embeds(group["schema"])
    ],
)
def test_a_bundled_schema_draws_valid_values_and_invalid_inputs(group: dict[str, Any]) -> None:
    _check_group(group)


@pytest.mark.parametrize("group", BUNDLED)
def test_littleghosts_validator_follows_the_suite_on_a_bundled_schema(
    group: dict[str, Any],
) -> None:
    # The Tool's own validation: it accepts the schema and judges each case as the suite does.
    assert schema_problem(group["schema"]) is None
    validator = SchemaValidator(group["schema"])
    for test in group["tests"]:
        assert validator.is_valid(test["data"]) is test["valid"], test


@pytest.mark.parametrize("group", BUNDLED)
def test_only_a_document_the_suite_keeps_remote_is_refused(group: dict[str, Any]) -> None:
    try:
        compile_schema(group["schema"])
    except SchemaError as error:
        assert NOT_VENDORED in str(error), error


def test_refs_inside_a_resource_resolve_against_its_id() -> None:
    schema = {
        "$id": "https://example.com/root",
        "$defs": {
            "item": {
                "$id": "items/item",
                "$defs": {"count": {"$anchor": "count", "type": "integer"}},
                "properties": {"n": {"$ref": "#count"}, "m": {"$ref": "#/$defs/count"}},
            },
            "count": {"$anchor": "count", "type": "string"},  # the root's own `#count`
        },
        "properties": {"item": {"$ref": "items/item"}, "label": {"$ref": "#count"}},
    }
    ctx = Context(schema)
    item = ctx.root["$defs"]["item"]
    assert item["$id"] == "https://example.com/items/item"
    assert item["properties"]["n"] == {"$ref": "https://example.com/items/item#count"}
    assert ctx.lookup(item["properties"]["m"]["$ref"])[1] == {"$anchor": "count", "type": "integer"}
    assert ctx.lookup("#count")[1] == {"$anchor": "count", "type": "string"}
    # A ref to the resource's root, by its URI or by a pointer from the root, is the resource.
    assert ctx.lookup("items/item")[0] == ctx.lookup("#/$defs/item")[0] == item["$id"]
    # A check of a part resolves the part's refs into the resource too.
    check = ctx.check(item["properties"]["n"])
    assert check(1) and not check("one")
    value = find(
        compile_schema(schema).constructed,
        lambda value: (
            isinstance(value, dict)
            and isinstance(value.get("item"), dict)
            and {"n", "m"} <= set(value["item"])
            and "label" in value
        ),
        settings=QUICK,
    )
    assert isinstance(value["item"]["n"], int) and isinstance(value["item"]["m"], int), value
    assert isinstance(value["label"], str), value


def test_a_schema_without_embedded_resources_is_the_root_itself() -> None:
    schema = {"$defs": {"a": {"type": "integer"}}, "$ref": "#/$defs/a"}
    assert Context(schema).root is schema


def test_nesting_enters_a_resource_into_the_dynamic_scope() -> None:
    # "after leaving a dynamic scope": `then` is entered by nesting, and its dynamic anchor
    # (null) is the outermost in scope when `start`'s $dynamicRef runs; `if`'s (number) is
    # left by then, and the static target says string.
    (group,) = [g for g in FILES["draft2020-12/dynamicRef.json"] if "leaving" in g["description"]]
    built = compile_schema(group["schema"])

    @RUN
    @given(built.constructed)
    def run(value: Any) -> None:
        assert value is None

    run()


def test_a_dynamic_ref_skips_a_resource_only_around_it_in_the_document() -> None:
    # `item` sits inside `bar`, whose `#content` (string) is never entered: the content is
    # item's own default (an integer).
    (group,) = [g for g in FILES["draft2020-12/dynamicRef.json"] if "skips" in g["description"]]
    value = find(
        compile_schema(group["schema"]).constructed,
        lambda value: isinstance(value, dict) and "content" in (value.get("bar-item") or {}),
        settings=QUICK,
    )
    content = value["bar-item"]["content"]
    assert isinstance(content, int) and not isinstance(content, bool), value


@pytest.mark.parametrize(("kind", "type_"), [("numbers", float | int), ("strings", str)])
def test_each_dynamic_path_draws_its_own_item_type(kind: str, type_: Any) -> None:
    (group,) = [g for g in FILES["draft2020-12/dynamicRef.json"] if "multiple" in g["description"]]
    oracle = jsonschema.Draft202012Validator(group["schema"])

    def listed(value: Any) -> bool:
        if not (isinstance(value, dict) and isinstance(value.get("list"), list)):
            return False
        numbers = value.get("kindOfList") == "numbers"
        return (kind == "numbers") == numbers and len(value["list"]) >= 1

    value = find(compile_schema(group["schema"]).constructed, listed, settings=QUICK)
    assert oracle.is_valid(value), value
    assert all(isinstance(item, type_) for item in value["list"]), value


# The suite's strict-tree case, its remote tree.json bundled in: every node, at any depth,
# says no property but `data` and `children` (`#node` goes to the strict root, not the tree).
STRICT_TREE = {
    "$schema": DRAFT_2020_12,
    "$id": "https://example.com/strict-tree.json",
    "$dynamicAnchor": "node",
    "$ref": "tree.json",
    "unevaluatedProperties": False,
    "$defs": {
        "tree": {
            "$id": "tree.json",
            "$dynamicAnchor": "node",
            "type": "object",
            "properties": {
                "data": True,
                "children": {"type": "array", "items": {"$dynamicRef": "#node"}},
            },
        }
    },
}


def _nodes(tree: Any) -> list[Any]:
    found = [tree]
    for child in tree.get("children", []) if isinstance(tree, dict) else []:
        found += _nodes(child)
    return found


def test_a_bundled_extension_holds_at_every_depth() -> None:
    oracle = jsonschema.Draft202012Validator(STRICT_TREE)
    assert not oracle.is_valid({"children": [{"daat": 1}]})
    # The tree's `#node` goes to the outermost resource that declares it: the strict root.
    tree, strict = "https://example.com/tree.json", "https://example.com/strict-tree.json"
    assert Context(STRICT_TREE).dynamic(f"{tree}#node", [tree])[0] == strict
    built = compile_schema(STRICT_TREE)

    @RUN
    @given(built.constructed)
    def run(value: Any) -> None:
        assert oracle.is_valid(value), value
        assert all(set(node) <= {"data", "children"} for node in _nodes(value)), value

    run()
    value = find(built.constructed, lambda value: len(_nodes(value)) >= 3, settings=QUICK)
    assert oracle.is_valid(value), value


@pytest.mark.parametrize(
    ("draft", "keyword"),
    [
        ("http://json-schema.org/draft-04/schema#", "id"),
        ("http://json-schema.org/draft-07/schema#", "$id"),
    ],
)
def test_an_older_drafts_id_fragment_is_an_anchor_and_beside_ref_nothing(
    draft: str, keyword: str
) -> None:
    schema = {
        "$schema": draft,
        "id" if keyword == "id" else "$id": "https://example.com/root.json",
        "properties": {"a": {"$ref": "#count"}, "b": {"$ref": "other.json", keyword: "sub/"}},
        "definitions": {
            "count": {keyword: "#count", "type": "integer"},
            "other": {keyword: "other.json", "type": "string"},
            "shadow": {keyword: "sub/other.json", "type": "null"},
        },
        "type": "object",
        "required": ["a", "b"],
    }
    oracle = jsonschema.validators.validator_for(schema)(schema)
    built = compile_schema(schema)

    @RUN
    @given(built.constructed)
    def run(value: Any) -> None:
        assert oracle.is_valid(value), value
        assert isinstance(value["a"], int) and isinstance(value["b"], str), value

    run()


def test_an_older_drafts_id_fragment_that_is_no_name_is_refused() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"a": {"$id": "#1st", "type": "integer"}},
    }
    with pytest.raises(SchemaError, match="not a plain name"):
        compile_schema(schema)
