"""RFC 6570 URI templates, as far as ``check`` needs them: the variables, and one expansion.

A resource template (``file:///logs/{date}``, ``search{?q,limit}``) names its
variables in ``{...}`` expressions; ``check`` fills each with one string value
and reads the URI that makes. Levels 1 to 3 of RFC 6570 are expanded (every
operator; ``*`` and ``:N`` modifiers are accepted and a prefix is applied);
a value is always a string, never a list or map.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

__all__ = ["expand", "variables"]

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_MODIFIER = re.compile(r"^(?P<name>[^:*]*)(?::(?P<prefix>\d{1,4})|\*)?$")

# operator -> (first, separator, named, empty-value suffix, reserved characters allowed)
_OPERATORS: dict[str, tuple[str, str, bool, str, bool]] = {
    "": ("", ",", False, "", False),
    "+": ("", ",", False, "", True),
    "#": ("#", ",", False, "", True),
    ".": (".", ".", False, "", False),
    "/": ("/", "/", False, "", False),
    ";": (";", ";", True, "", False),
    "?": ("?", "&", True, "=", False),
    "&": ("&", "&", True, "=", False),
}
_RESERVED = ":/?#[]@!$&'()*+,;="


def variables(template: str) -> list[str]:
    """Every variable ``template`` names, in order, each once."""
    names: list[str] = []
    for body in _EXPRESSION.findall(template):
        _, specs = _split(body)
        for name, _ in specs:
            if name and name not in names:
                names.append(name)
    return names


def expand(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each expression replaced; a variable without a value is left out."""

    def replace(match: re.Match[str]) -> str:
        operator, specs = _split(match.group(1))
        first, separator, named, if_empty, reserved = _OPERATORS[operator]
        safe = _RESERVED if reserved else ""
        parts: list[str] = []
        for name, prefix in specs:
            if name not in values:
                continue
            value = values[name] if prefix is None else values[name][:prefix]
            encoded = quote(value, safe=safe)
            if named:
                encoded = f"{name}={encoded}" if encoded else f"{name}{if_empty}"
            parts.append(encoded)
        return first + separator.join(parts) if parts else ""

    return _EXPRESSION.sub(replace, template)


def _split(body: str) -> tuple[str, list[tuple[str, int | None]]]:
    """An expression's operator and its variables, each with its prefix length (``:N``)."""
    operator = body[:1] if body[:1] in _OPERATORS and body[:1] else ""
    specs: list[tuple[str, int | None]] = []
    for spec in body[len(operator) :].split(","):
        match = _MODIFIER.match(spec.strip())
        if match is None:
            continue
        prefix = match.group("prefix")
        specs.append((match.group("name"), None if prefix is None else int(prefix)))
    return operator, specs
