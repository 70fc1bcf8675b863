"""Per-schema state shared by every builder: references, validity checks, recursion.

Checks of parts of a schema (enum values, ``not``, overlapping ``oneOf``
branches) run on ``jsonschema-rs`` with the same options as littleghost's own
validator, so generation and validation agree on regex semantics.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin

import jsonschema_rs
import referencing
import referencing.exceptions
import referencing.jsonschema

from littleghost._schema import DATA_KEYWORDS
from littleghost._validation import compile_instance_validator

from ._errors import SchemaError
from ._metaschemas import metaschemas

__all__ = ["Context", "RefStack", "TooDeep", "canonical", "thaw"]

Schema = Any  # a JSON Schema: a dict or a bool
_DEFAULT_BASE = "urn:littleghost:schema"
# How often one $ref may be expanded on a path before recursion must stop, and
# how far past that a schema with no finite instance is given up on.
RECURSION_DEPTH = 2
_HARD_DEPTH = RECURSION_DEPTH + 4


class TooDeep(Exception):
    """A recursive ``$ref`` is still required past the recursion bound."""


def thaw(value: Any) -> Any:
    """A plain-``dict``/``list`` copy of a (possibly deeply frozen) JSON value."""
    if isinstance(value, Mapping):
        return {str(key): thaw(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [thaw(item) for item in value]
    return value


def canonical(value: Any) -> str:
    """A key equal for equal JSON values (``1 == 1.0``, ``True != 1``)."""
    return json.dumps(_canonical_form(value), sort_keys=True, separators=(",", ":"))


def _canonical_form(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, Mapping):
        return {key: _canonical_form(item) for key, item in value.items()}
    return [_canonical_form(item) for item in value]


@dataclass(frozen=True, slots=True)
class RefStack:
    """The references expanded on the way to the schema being built."""

    refs: tuple[str, ...] = ()

    def push(self, uris: Sequence[str]) -> RefStack:
        if not uris:
            return self
        stack = RefStack((*self.refs, *uris))
        if any(stack.refs.count(uri) > _HARD_DEPTH for uri in uris):
            raise TooDeep(uris[-1])
        return stack

    @property
    def leaf(self) -> bool:
        """Past the recursion bound: build only what the schema requires."""
        return any(self.refs.count(uri) > RECURSION_DEPTH for uri in set(self.refs))

    @property
    def recursing(self) -> bool:
        """Inside a ``$ref`` already being expanded further out."""
        return len(set(self.refs)) < len(self.refs)

    def key(self) -> tuple[tuple[str, int], ...]:
        return tuple(sorted((uri, self.refs.count(uri)) for uri in set(self.refs)))


@dataclass
class Context:
    """Everything a builder needs to know about the root schema."""

    root: Schema
    base: str = ""
    _resolver: Any = None
    _registry: Any = None
    _checks: dict[str, Callable[[Any], bool]] = field(default_factory=dict)
    _foreign: dict[str, Schema] = field(default_factory=dict)
    _lookups: dict[str, tuple[str, Schema]] = field(default_factory=dict)
    _dynamic_anchors: dict[str, bool] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        root_id = self.root.get("$id") if isinstance(self.root, dict) else None
        self.base = root_id.split("#")[0] if isinstance(root_id, str) else _DEFAULT_BASE
        _reject_nested_ids(self.root, is_root=True)
        resource = referencing.jsonschema.DRAFT202012.create_resource(self.root)
        # The drafts' metaschemas resolve offline, to the validator's own copies.
        self._resolver = metaschemas().with_resource(self.base, resource).resolver(self.base)
        self._registry = jsonschema_rs.Registry([(self.base, self.root)])

    def lookup(self, ref: str) -> tuple[str, Schema]:
        """Resolve a ``$ref`` to its absolute URI and target (a resource's root: its bare URI)."""
        uri = self.absolute(ref)
        found = self._lookups.get(uri)
        if found is None:
            found = self._lookups[uri] = self._resolve(uri, ref)
        return found

    def dynamic(self, ref: str, scope: Sequence[str]) -> tuple[str, Schema]:
        """Resolve a ``$dynamicRef`` where the ``$ref`` URIs ``scope`` (outermost first) led.

        As Draft 2020-12 says: a reference whose static target carries the
        ``$dynamicAnchor`` its fragment names goes to the outermost schema
        resource in the dynamic scope (the root, then each resource entered)
        that declares that dynamic anchor; any other behaves like ``$ref``.
        """
        uri, target = self.lookup(ref)
        name = urldefrag(self.absolute(ref)).fragment
        if not name or name.startswith("/"):
            return uri, target
        if not (isinstance(target, dict) and target.get("$dynamicAnchor") == name):
            return uri, target
        resources = dict.fromkeys([self.base, *(urldefrag(entered).url for entered in scope)])
        for resource in resources:
            anchored = f"{resource}#{name}"
            if self._is_dynamic_anchor(anchored, name):
                return self.lookup(anchored)
        return uri, target

    def _is_dynamic_anchor(self, uri: str, name: str) -> bool:
        found = self._dynamic_anchors.get(uri)
        if found is None:
            try:
                target = self._resolver.lookup(uri).contents
            except (referencing.exceptions.Unresolvable, ValueError):
                target = None
            found = self._dynamic_anchors[uri] = (
                isinstance(target, dict) and target.get("$dynamicAnchor") == name
            )
        return found

    def _resolve(self, uri: str, ref: str) -> tuple[str, Schema]:
        try:
            target = self._resolver.lookup(uri).contents
            base = urldefrag(uri).url
            if uri != base and target is self._resolver.lookup(base).contents:
                uri = base  # `#meta` on a resource's root is the resource itself
        except (referencing.exceptions.Unresolvable, ValueError):
            raise SchemaError(f"$ref {ref!r} cannot be resolved within the schema") from None
        if base == self.base:
            return uri, target
        # Another resource (a draft's metaschema): its refs are relative to its own URI.
        found = self._foreign.get(uri)
        if found is None:
            found = self._foreign[uri] = self._absolute_refs(target, base)
        return uri, found

    def absolute(self, ref: str, base: str | None = None) -> str:
        base = self.base if base is None else base
        return base + ref if ref.startswith("#") else urljoin(base, ref)

    def check(self, schema: Schema) -> Callable[[Any], bool]:
        """A fast ``is_valid`` for a part of the root schema (its refs resolve against the root)."""
        key = canonical(schema)
        found = self._checks.get(key)
        if found is None:
            try:
                found = compile_instance_validator(
                    self._absolute_refs(schema, self.base), registry=self._registry
                ).is_valid
            except (
                jsonschema_rs.ValidationError,
                jsonschema_rs.ReferencingError,
                ValueError,
            ) as error:
                raise SchemaError(f"part of the schema cannot be checked: {error}") from None
            self._checks[key] = found
        return found

    def _absolute_refs(self, schema: Schema, base: str) -> Schema:
        if isinstance(schema, dict):
            return {
                key: (
                    self.absolute(value, base)
                    if key in ("$ref", "$dynamicRef") and isinstance(value, str)
                    else value
                    if key in DATA_KEYWORDS
                    else self._absolute_refs(value, base)
                )
                for key, value in schema.items()
            }
        if isinstance(schema, list):
            return [self._absolute_refs(item, base) for item in schema]
        return schema


def _reject_nested_ids(schema: Schema, *, is_root: bool) -> None:
    if isinstance(schema, dict):
        if not is_root and isinstance(schema.get("$id"), str):
            raise SchemaError("$id inside a subschema (an embedded resource) is not supported")
        for key, value in schema.items():
            if key not in DATA_KEYWORDS:
                _reject_nested_ids(value, is_root=False)
    elif isinstance(schema, list):
        for item in schema:
            _reject_nested_ids(item, is_root=False)
