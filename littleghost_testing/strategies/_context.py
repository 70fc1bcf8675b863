"""Per-schema state shared by every builder: references, validity checks, recursion.

A subschema with ``$id`` is a schema resource of its own (Draft 2020-12
bundling): the context's root is a copy of the schema in which every ``$id``,
``$ref`` and ``$dynamicRef`` is an absolute URI, resolved against the base
where it stands, so a reference means the same wherever a builder meets it.
``referencing`` crawls the resources for their anchors and pointers.

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

from littleghost._schema import DATA_KEYWORDS, map_subschemas
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
# Subschemas kept to be referenced: they never apply where they stand.
_DEFINITIONS = frozenset({"$defs", "definitions"})


class TooDeep(Exception):
    """A recursive ``$ref`` is still required past the recursion bound."""


def _as_written(uri: str) -> str:
    """A reference in a schema without ``$id`` as its author wrote it (``#/$defs/node``)."""
    if uri.startswith(_DEFAULT_BASE):
        return "#" + uri.removeprefix(_DEFAULT_BASE).removeprefix("#")
    return uri


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
    """The references expanded on the way to the schema being built.

    ``refs`` is every one (the dynamic scope); ``loops`` only those whose
    target can lead back to itself. A reference met twice on a path is a
    recursion only then: a schema whose root ``$ref``s the resource one of its
    properties is meets that resource twice, and nothing recurses.
    """

    refs: tuple[str, ...] = ()
    loops: tuple[str, ...] = ()

    def push(self, uris: Sequence[str], ctx: Context) -> RefStack:
        if not uris:
            return self
        loops = (*self.loops, *(uri for uri in uris if ctx.cyclic(uri)))
        if any(loops.count(uri) > _HARD_DEPTH for uri in uris):
            raise TooDeep(_as_written(uris[-1]))
        return RefStack((*self.refs, *uris), loops)

    @property
    def leaf(self) -> bool:
        """Past the recursion bound: build only what the schema requires."""
        return any(self.loops.count(uri) > RECURSION_DEPTH for uri in set(self.loops))

    @property
    def recursing(self) -> bool:
        """Inside a recursive ``$ref`` already being expanded further out."""
        return len(set(self.loops)) < len(self.loops)

    @property
    def repeats(self) -> int:
        """How often the recursive ``$ref`` entered most on the path was entered again
        (0 outside any repeat, 1 inside its second expansion)."""
        return max((self.loops.count(uri) for uri in set(self.loops)), default=1) - 1

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
    _cyclic: dict[str, bool] = field(default_factory=dict)
    # The URIs of the resources embedded in the root (subschemas with `$id`).
    _embedded: set[str] = field(default_factory=set)
    memo: dict[Any, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        root_id = self.root.get("$id") if isinstance(self.root, dict) else None
        self.base = root_id.split("#")[0] if isinstance(root_id, str) else _DEFAULT_BASE
        if _embeds(self.root, is_root=True):
            self.root = _absolute(self.root, self.base, self._embedded, is_root=True)
        resource = referencing.jsonschema.DRAFT202012.create_resource(self.root)
        # The drafts' metaschemas resolve offline, read as Draft 2020-12 (see _metaschemas).
        self._resolver = metaschemas().with_resource(self.base, resource).resolver(self.base)
        self._registry = jsonschema_rs.Registry([(self.base, self.root)])

    def lookup(self, ref: str) -> tuple[str, Schema]:
        """Resolve a ``$ref`` to its absolute URI and target (a resource's root: its bare URI)."""
        uri = self.absolute(ref)
        found = self._lookups.get(uri)
        if found is None:
            found = self._lookups[uri] = self._resolve(uri, ref)
        return found

    def cyclic(self, uri: str) -> bool:
        """Whether the schema at ``uri`` can reach a reference back to ``uri`` (a recursion).

        A ``$dynamicRef`` on the way counts as one: where it goes depends on the
        path, and taking it for a recursion only bounds what is built.
        """
        found = self._cyclic.get(uri)
        if found is None:
            found = self._cyclic[uri] = self._reaches_itself(uri)
        return found

    def _reaches_itself(self, start: str) -> bool:
        _, root = self.lookup(start)
        pending: list[Schema] = [root]
        visited: set[int] = set()
        while pending:
            schema = pending.pop()
            if not isinstance(schema, dict) or id(schema) in visited:
                continue
            visited.add(id(schema))
            if "$dynamicRef" in schema or (schema is not root and self.entered(schema) == start):
                return True
            if isinstance(schema.get("$ref"), str):
                uri, target = self.lookup(schema["$ref"])
                if uri == start:
                    return True
                pending.append(target)
            for key, value in schema.items():
                if key not in _DEFINITIONS:  # applied only where a $ref names them, followed above
                    map_subschemas(key, value, lambda subschema, _: pending.append(subschema))
        return False

    def entered(self, schema: Schema) -> str | None:
        """The URI of the embedded resource ``schema`` is the root of, if it is one."""
        resource = schema.get("$id") if isinstance(schema, dict) else None
        return resource if resource in self._embedded else None

    def dynamic(self, ref: str, scope: Sequence[str]) -> tuple[str, Schema]:
        """Resolve a ``$dynamicRef`` in the dynamic ``scope``: the URIs entered, outermost first.

        As Draft 2020-12 says: a reference whose static target carries the
        ``$dynamicAnchor`` its fragment names goes to the outermost schema
        resource in the dynamic scope (the root, then each resource entered by
        ``$ref`` or by nesting) that declares that dynamic anchor; any other
        behaves like ``$ref``.
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
        resource = self.entered(target)
        if resource is not None:
            return resource, target  # an embedded resource's root, by any path: its own URI
        if base == self.base or base in self._embedded:
            return uri, target
        # Another resource (a draft's metaschema): its refs are relative to its own URI.
        found = self._foreign.get(uri)
        if found is None:
            found = self._foreign[uri] = self._absolute_refs(target, base)
        return uri, found

    def absolute(self, ref: str, base: str | None = None) -> str:
        return _join(self.base if base is None else base, ref)

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


def _embeds(schema: Schema, *, is_root: bool = False) -> bool:
    """Whether a subschema of ``schema`` (or it, unless it is the root) has an ``$id``."""
    if not isinstance(schema, Mapping):
        return False
    if not is_root and isinstance(referencing.jsonschema.DRAFT202012.id_of(schema), str):
        return True
    found = False

    def visit(subschema: Schema, _: Any) -> None:
        nonlocal found
        found = found or _embeds(subschema)

    for key, value in schema.items():
        map_subschemas(key, value, visit)
    return found


def _absolute(schema: Schema, base: str, embedded: set[str], *, is_root: bool = False) -> Schema:
    """``schema`` with every ``$id``, ``$ref`` and ``$dynamicRef`` an absolute URI.

    Each resolves against the base where it stands: the ``$id`` of the nearest
    enclosing resource, itself resolved against the one around it (as
    ``referencing`` crawls them); each embedded resource's URI joins ``embedded``.
    """
    if not isinstance(schema, Mapping):
        return schema
    own = referencing.jsonschema.DRAFT202012.id_of(schema)
    out: dict[str, Any] = {}
    if isinstance(own, str) and not is_root:
        resolved = urldefrag(urljoin(base, own)).url
        if resolved != base:  # `"$id": "#"` names the resource it stands in
            base = resolved
            embedded.add(base)
    for key, value in schema.items():
        if key == "$id" and isinstance(own, str):
            out[key] = value if is_root else base
        elif key in ("$ref", "$dynamicRef") and isinstance(value, str):
            out[key] = _join(base, value)
        else:
            out[key] = map_subschemas(key, value, lambda item, _: _absolute(item, base, embedded))
    return out


def _join(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (a fragment alone also on a base ``urljoin`` cannot
    join to, such as a URN)."""
    return base + ref if ref.startswith("#") else urljoin(base, ref)
