"""The public entry points: `from_schema`, `tool_inputs`, `invalid_inputs`, cached per schema."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from hypothesis import strategies as st

from littleghost import ConfigurationError
from littleghost._validation import SchemaValidator, Violation, json_path, schema_problem

from ._build import Builder
from ._context import Context, RefStack, TooDeep, thaw
from ._drafts import KEYWORD_ALIASES, to_2020_12
from ._errors import SchemaError
from ._in_turn import Seed, SeedsFirst, draw_outside
from ._invalid import Broken, InvalidInput, Mutations, Site, beside_unevaluated
from ._untyped import evenly

__all__ = ["compiled", "from_schema", "invalid_inputs", "tool_inputs"]

SchemaSource = Mapping[str, Any] | bool | type
# Fixed draws a schema's valid seeds are chosen from (fewer once every shape is
# reached, more while they reach new shapes, up to _MOST), and tries per
# constraint site.
_CANDIDATES = 48
_MOST = 192
_SITE_TRIES = 4
# Fixed draws a strategy gets when it is built, to find one value; none is a SchemaError
# then, not Hypothesis's Unsatisfiable or FailedHealthCheck mid-run.
_PROBES = 16
# A strategy's repr shows this much of its schema's JSON.
_REPR_CHARS = 80
# Within MAX_SCHEMA_DEPTH, nesting can still outrun Python's stack where each level
# costs the builders several frames (combinators inside combinators).
_TOO_NESTED = "the schema nests too deeply for the strategies to build (Python's recursion limit)"


def from_schema(schema: Mapping[str, Any] | bool) -> st.SearchStrategy[Any]:
    """Values valid for ``schema``; raises ``SchemaError`` if it cannot be honoured."""
    return compiled(_key(schema)).valid


def tool_inputs(tool: SchemaSource) -> st.SearchStrategy[Any]:
    """Valid inputs for a Tool class (or anything with an ``input_schema``), or for a schema."""
    return from_schema(_schema_of(tool))


def invalid_inputs(tool: SchemaSource) -> st.SearchStrategy[InvalidInput]:
    """Inputs breaking exactly one constraint, each naming its keyword and path.

    Accepts a schema or a Tool class, like ``tool_inputs``.
    """
    return compiled(_key(_schema_of(tool))).invalid


def _key(schema: Mapping[str, Any] | bool) -> str:
    """The schema's JSON, the cache key; nesting and cycles are checked before any recursion."""
    problem = schema_problem(schema)
    if problem is not None:
        raise SchemaError(f"Invalid input schema: {problem}")
    return json.dumps(thaw(schema), sort_keys=True)


def _schema_of(tool: SchemaSource) -> Mapping[str, Any] | bool:
    if isinstance(tool, Mapping | bool):
        return tool
    schema = getattr(tool, "input_schema", None)
    if not isinstance(schema, Mapping):
        raise TypeError(f"{tool!r} is neither a JSON Schema nor a class with an input_schema")
    return schema


class Compiled:
    """A schema's context, validator and valid-value strategy, built once.

    The validator judges the schema as written (any draft a Tool accepts); the
    builders read it in Draft 2020-12 spelling.
    """

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.validator = _validator(schema)
        readable = to_2020_12(schema)
        try:
            self.context = Context(readable)
            readable = self.context.root  # embedded resources' references made absolute
            self.builder = Builder(self.context)
            self.constructed = self.builder.build(readable, RefStack())
        except TooDeep as too_deep:
            raise SchemaError(f"$ref {too_deep} recurses without a finite instance") from None
        except RecursionError:
            raise SchemaError(_TOO_NESTED) from None
        self.readable = readable
        # Construction is exact for the keywords it handles; the final check
        # guarantees that no value breaking the schema ever reaches a test.
        self.checked = self.constructed.filter(self.validator.is_valid)
        _probe(self.checked, "no value generated for the schema passed its validator")
        self.valid = SeedsFirst(self._valid_seeds, self.checked, f"from_schema({self.summary})")

    def _valid_seeds(self) -> list[Seed[Any]]:
        """A few draws that between them reach every shape fixed draws reach, and the shapes
        steered draws reach past them, smallest first."""
        from ._coverage import covering

        seeds = itertools.chain([None], range(1, _MOST))  # the simplest first
        drawn = (draw_outside(self.checked, seed) for seed in seeds)
        candidates = (seed for seed in drawn if seed is not None)
        chosen = covering(self.schema, candidates, _CANDIDATES, _MOST, self._steered)
        return sorted(chosen, key=_size)

    def _steered(self, prefix: Sequence[Any], seed: int | None) -> Seed[Any] | None:
        """A valid draw from fixed first choices: the rest simplest, or random from ``seed``
        (numbered past the fixed draws' seeds)."""
        return draw_outside(self.checked, None if seed is None else _MOST + seed, prefix)

    @functools.cached_property
    def sites(self) -> list[Site]:
        """Every place and keyword a value can be broken at, fewest recursion repeats first."""
        try:
            mutations = Mutations(self.builder)
            return mutations.every_site(self.readable, self.confirms, self.validator.is_valid)
        except TooDeep as too_deep:
            raise SchemaError(f"$ref {too_deep} recurses without a finite instance") from None
        except RecursionError:
            raise SchemaError(_TOO_NESTED) from None

    @functools.cached_property
    def mutations(self) -> st.SearchStrategy[Broken]:
        """Every constructed violation, before the validator confirms it (for tests)."""
        return evenly([site.strategy for site in self.sites])  # a site of several types is one

    @functools.cached_property
    def invalid_drawn(self) -> st.SearchStrategy[InvalidInput]:
        """Confirmed violations of sites drawn at random."""
        confirmed = self.mutations.map(self.confirmed).filter(_is_input)
        return cast("st.SearchStrategy[InvalidInput]", confirmed)  # the filter drops None

    @functools.cached_property
    def invalid(self) -> st.SearchStrategy[InvalidInput]:
        label = f"invalid_inputs({self.summary})"
        _probe(self.invalid_drawn, "no input generated broke exactly one constraint")
        return SeedsFirst(self._invalid_seeds, self.invalid_drawn, label)

    @property
    def summary(self) -> str:
        """The schema's JSON, shortened for a repr."""
        text = json.dumps(self.schema, sort_keys=True)
        return text if len(text) <= _REPR_CHARS else text[: _REPR_CHARS - 3] + "..."

    def _invalid_seeds(self) -> list[Seed[InvalidInput]]:
        """Per constraint broken, the first of a few fixed draws of each site; those at their
        first pass through every ``$ref`` first (``one_per_break``), then smallest first."""
        from ._coverage import one_per_break

        found: list[Seed[InvalidInput]] = []
        for index in range(len(self.sites)):
            for seed in (None, *range(1, _SITE_TRIES)):
                drawn = draw_outside(self.invalid_drawn, seed, prefix=[index])
                if drawn is not None:
                    found.append(drawn)
                    break
        simplest = draw_outside(self.invalid_drawn)  # Hypothesis draws it first anyway
        seeds = one_per_break(self.schema, found)
        if simplest is not None:
            seeds = [seed for seed in seeds if seed.value != simplest.value]
        return sorted(seeds, key=lambda seed: (seed.tier, _size(seed)))

    def confirmed(self, broken: Broken) -> InvalidInput | None:
        """The input, if the validator reports exactly the one violation the mutation claims.

        A mutation that claims no keyword (a negated combinator) takes the one the
        validator names; the keys or items that the broken subschema evaluated
        are then unevaluated, which the validator reports too (left out); a
        keyword an older draft spells differently takes its spelling.
        """
        value, keyword, parts = broken
        found = beside_unevaluated(self.validator.violations(value))
        if len(found) != 1 or not _claims(found[0], keyword, parts):
            return None
        return InvalidInput(value, found[0].keyword, found[0].path)

    def confirms(self, broken: Broken) -> bool:
        return self.confirmed(broken) is not None


def _probe(strategy: st.SearchStrategy[Any], failure: str) -> None:
    """Raise ``SchemaError`` unless one of ``_PROBES`` fixed draws of ``strategy`` gives a value."""
    seeds = itertools.chain([None], range(1, _PROBES))
    if all(draw_outside(strategy, seed) is None for seed in seeds):
        raise SchemaError(f"{failure} in {_PROBES} tries: it is unsatisfiable or too rare to find")


def _size(seed: Seed[Any]) -> int:
    """How big a seed's value is: seeds go smallest first, as Hypothesis's own draws do."""
    value = seed.value.value if isinstance(seed.value, InvalidInput) else seed.value
    return len(json.dumps(value))


def _claims(found: Violation, keyword: str | None, parts: tuple[str | int, ...] | None) -> bool:
    if parts is not None and found.path != json_path(parts):
        return False
    return keyword is None or found.keyword in (keyword, *KEYWORD_ALIASES.get(keyword, ()))


def _is_input(record: InvalidInput | None) -> bool:
    return record is not None


def _validator(schema: Any) -> SchemaValidator:
    """littleghost's own validator: it accepts exactly the schemas a Tool accepts, offline."""
    try:
        return SchemaValidator(schema if isinstance(schema, dict) else {"allOf": [schema]})
    except ConfigurationError as error:
        raise SchemaError(str(error)) from None


@functools.lru_cache(maxsize=256)
def compiled(key: str) -> Compiled:
    return Compiled(json.loads(key))
