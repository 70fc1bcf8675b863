"""The drafts' metaschemas, offline and in Draft 2020-12 spelling, for schemas that ``$ref`` them.

A tool that takes a schema may declare its input as ``{"$ref": <a draft's
metaschema>}``. The builders speak 2020-12 only, so an older draft's document
is rewritten as ``to_2020_12`` rewrites a root schema: draft-04's
``dependencies`` (``exclusiveMaximum`` needs ``maximum``) and boolean exclusive
bounds are then honoured when values are built, not left to the final check,
which threw most of them away (and every container of a violation with them).

These are the published documents. The validator's own copies (jsonschema-rs)
differ in two places: its draft-04 ``enum`` may be empty or repeat values, and
its draft-07 declares ``writeOnly``. Values built from the published ones pass
both.
"""

from __future__ import annotations

import functools
from typing import Any

import referencing
import referencing.jsonschema
from jsonschema_specifications import REGISTRY

from ._drafts import to_2020_12

__all__ = ["metaschemas"]


@functools.cache
def metaschemas() -> referencing.Registry[Any]:
    """Every draft's metaschema documents, keyed by their URIs, read as Draft 2020-12."""
    resources = [
        (
            uri,
            referencing.jsonschema.DRAFT202012.create_resource(to_2020_12(REGISTRY.contents(uri))),
        )
        for uri in REGISTRY
    ]
    return referencing.Registry().with_resources(resources).crawl()
