"""The contract checks' defaults: declared once (``ContractSettings``) and documented truly."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from littleghost_testing.contracts import (
    DEFAULTS,
    ContractSettings,
    ToolContract,
    ToolsetContract,
    check_tool,
    check_toolset,
)

DOCS = Path(__file__).parent.parent.parent / "docs" / "contracts.md"
SETTINGS = [field.name for field in dataclasses.fields(ContractSettings)]


def documented_defaults() -> dict[str, str]:
    """The "default" column of docs/contracts.md's Options table, by option."""
    section = DOCS.read_text().split("\n## Options\n", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    return {row[0].strip("`"): row[1].strip("`") for row in cells}


def test_the_docs_table_shows_every_setting_with_its_default() -> None:
    documented = documented_defaults()
    assert {name: documented[name] for name in SETTINGS} == {
        name: repr(getattr(DEFAULTS, name)).replace("'", '"') for name in SETTINGS
    }


@pytest.mark.parametrize("function", [check_tool, check_toolset])
def test_the_functions_take_their_defaults_from_the_one_declaration(
    function: Callable[..., Any],
) -> None:
    parameters = inspect.signature(function).parameters
    assert {name: parameters[name].default for name in SETTINGS} == dataclasses.asdict(DEFAULTS)


@pytest.mark.parametrize("contract", [ToolContract, ToolsetContract])
def test_the_contract_classes_take_their_defaults_from_it_too(contract: type) -> None:
    declared = {name: getattr(contract, name) for name in SETTINGS if name != "backend"}
    assert declared == {name: getattr(DEFAULTS, name) for name in declared}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_examples": 0}, "max_examples must be at least 1, not 0"),
        ({"cancel_within": 0}, "cancel_within must be a positive number of seconds, not 0"),
        ({"call_timeout": -1.0}, "call_timeout must be a positive number of seconds, not -1.0"),
    ],
)
def test_settings_name_a_bad_value(options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ContractSettings(**options)  # type: ignore[arg-type]
