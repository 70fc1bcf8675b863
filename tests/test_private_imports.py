"""Who may import what: private modules stay in their package, internals in ``_compat``.

A private module (``_name.py``, or a module inside a private package) is the
business of its own package and the packages inside it. Any other package
reaches it only through a package's ``__init__``: ``littleghost``,
``littleghost.mcp``, ``littleghost_testing.strategies`` and
``littleghost_testing.cli`` end with the names they share that way (leading
underscore, not API); a private package such as ``_engine`` or
``_validation`` lists them in its ``__all__``. And third-party internals
(Hypothesis' and the MCP SDK's) are imported by one ``_compat`` module each.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("littleghost", "littleghost_testing")

COMPAT = {
    "littleghost.mcp._compat": "mcp",
    "littleghost_testing._compat": "hypothesis",
}
"""The one module that may import each dependency's internals."""

INTERNAL = (
    "hypothesis.configuration",
    "hypothesis.control.BuildContext",
    "hypothesis.control.current_build_context",
    "hypothesis.core",
    "hypothesis.errors.StopTest",
    "hypothesis.internal",
)
"""Internal modules and names of a dependency, although no part of their name is private."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(name: str) -> bool:
    return (ROOT.joinpath(*name.split(".")) / "__init__.py").is_file()


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or _is_package(name)


@functools.cache
def _import_statements(source: str) -> list[ast.Import | ast.ImportFrom]:
    """Every import in ``source``, at the top or inside a function (both tests read each)."""
    nodes = ast.walk(ast.parse(source))
    return [node for node in nodes if isinstance(node, ast.Import | ast.ImportFrom)]


def _imported(module: str, is_package: bool, source: str) -> Iterator[tuple[int, str]]:
    """Every module ``source`` imports (a name imported from a module may be a module too)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in _import_statements(source):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            yield node.lineno, source
            for alias in node.names:
                if _is_module(f"{source}.{alias.name}") or not source.startswith(PACKAGES):
                    yield node.lineno, f"{source}.{alias.name}"


def private_imports(module: str, source: str, *, is_package: bool = False) -> list[str]:
    """The private modules of other packages that ``module`` imports, as ``line: name``."""
    found = []
    importer = module if is_package else module.rpartition(".")[0]
    for line, name in _imported(module, is_package, source):
        if not name.startswith(tuple(f"{package}." for package in PACKAGES)):
            continue
        if _is_package(name):
            continue  # a package's __init__ is how it shares
        owner, _, leaf = name.rpartition(".")
        if not leaf.startswith("_") or f"{importer}.".startswith(f"{owner}."):
            continue  # public, or private to a package that encloses the importer
        found.append(f"{line}: {name}")
    return found


def third_party_internals(module: str, source: str, *, is_package: bool = False) -> list[str]:
    """The dependencies' internal modules that ``module`` imports, as ``line: name``."""
    found: dict[int, str] = {}
    for line, name in _imported(module, is_package, source):
        top = name.split(".")[0]
        if top in PACKAGES or top.startswith("_") or COMPAT.get(module) == top:
            continue
        private = any(part.startswith("_") for part in name.split(".")[1:])
        if private or any(name == known or name.startswith(f"{known}.") for known in INTERNAL):
            found.setdefault(line, f"{line}: {name}")  # one finding an import statement
    return list(found.values())


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _everywhere(check: Callable[..., list[str]]) -> dict[str, list[str]]:
    """What ``check`` finds in each module of the two packages, by module."""
    found = {}
    for path in _modules():
        module = _module_name(path)
        found[module] = check(module, path.read_text(), is_package=path.name == "__init__.py")
    return {module: names for module, names in found.items() if names}


def test_no_module_imports_another_packages_private_module() -> None:
    assert not _everywhere(private_imports)


def test_third_party_internals_are_imported_only_by_compat() -> None:
    assert not _everywhere(third_party_internals)


@pytest.mark.parametrize(
    ("module", "source", "name"),
    [
        (
            "littleghost_testing._engine._draws",
            "from ..strategies._in_turn import SeedsFirst",
            "littleghost_testing.strategies._in_turn",
        ),
        (
            "littleghost_testing._engine._draws",
            "from ..strategies import _in_turn",
            "littleghost_testing.strategies._in_turn",
        ),
        (
            "littleghost_testing.contracts._rules",
            "from littleghost._results import Result",
            "littleghost._results",
        ),
        (
            "littleghost_testing.contracts._rules",
            "import littleghost.mcp._failures",
            "littleghost.mcp._failures",
        ),
        (
            "littleghost_testing._server_fuzzing",
            "from .cli._output import details",
            "littleghost_testing.cli._output",
        ),
        (
            "littleghost._tool",
            "from ._validation._compile import compile_schema",
            "littleghost._validation._compile",
        ),
    ],
)
def test_a_private_import_across_packages_is_caught(module: str, source: str, name: str) -> None:
    assert private_imports(module, source) == [f"1: {name}"]


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("littleghost_testing._engine._draws", "from ..strategies import _SeedsFirst"),
        ("littleghost_testing._engine._draws", "from .._compat import building"),
        ("littleghost_testing._engine._draws", "from ._options import FuzzOptions"),
        ("littleghost_testing.cli._run", "from .._engine import fuzz_tool"),
        ("littleghost.mcp._tools", "from .._tool import Tool"),
        ("littleghost_testing.strategies._api", "from littleghost._validation import json_path"),
        ("littleghost_testing.contracts._rules", "from littleghost import _render_content"),
    ],
)
def test_imports_within_a_package_or_through_an_init_pass(module: str, source: str) -> None:
    assert private_imports(module, source) == []


@pytest.mark.parametrize(
    ("module", "source", "caught"),
    [
        ("littleghost_testing._engine._draws", "from hypothesis.control import BuildContext", 1),
        ("littleghost_testing._engine._draws", "from hypothesis.errors import StopTest", 1),
        ("littleghost_testing._engine._storage", "from hypothesis import configuration", 1),
        ("littleghost_testing.auto_model", "import hypothesis.core", 1),
        ("littleghost_testing.auto_model", "from hypothesis import currently_in_test_context", 0),
        ("littleghost_testing.fake_server._memory", "from mcp.client._transport import X", 1),
        ("littleghost.mcp._wire", "from mcp.shared import _httpx_utils", 1),
        ("littleghost_testing._compat", "from hypothesis.control import BuildContext", 0),
        ("littleghost.mcp._compat", "from mcp.shared import _httpx_utils", 0),
        ("littleghost_testing._engine._tool_run", "from hypothesis.errors import Flaky", 0),
        ("littleghost_testing._engine._storage", "from mcp.shared.message import M", 0),
    ],
)
def test_internals_outside_compat_are_caught(module: str, source: str, caught: int) -> None:
    assert len(third_party_internals(module, source)) == caught
