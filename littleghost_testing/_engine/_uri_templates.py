"""RFC 6570 URI templates, as far as ``check`` needs them: the variables, and one expansion.

A resource template (``file:///logs/{date}``, ``search{?q,limit}``) names its
variables in ``{...}`` expressions; ``check`` fills each with one string value
and reads the URI that makes. Levels 1 to 3 of RFC 6570 are expanded (every
operator; ``*`` and ``:N`` modifiers are accepted and a prefix is applied);
a value is always a string, never a list or map. ``match`` reads the values
back out of a URI the server listed, for templates of simple expressions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote, unquote

__all__ = ["expand", "match", "variables"]

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_SIMPLE_NAME = re.compile(r"[A-Za-z0-9_]+")
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
    names: dict[str, None] = {}  # ordered, and linear: a template may name 40,000 variables
    for body in _EXPRESSION.findall(template):
        _, specs = _split(body)
        names.update((name, None) for name, _ in specs if name)
    return list(names)


def match(template: str, uri: str) -> dict[str, str] | None:
    """The values that make ``uri`` from ``template``, when each of its expressions is one
    simple variable (``{id}``, as in ``docs://books/{id}``); ``None`` otherwise.

    A value is one path segment, percent-decoded: what a server listing
    ``docs://books/7`` offers for ``{id}``.
    """
    pattern: list[str] = []
    names: list[str] = []
    position = 0
    for expression in _EXPRESSION.finditer(template):
        name = expression.group(1)
        if not _SIMPLE_NAME.fullmatch(name) or name in names:
            return None
        pattern += [re.escape(template[position : expression.start()]), "([^/?#]+)"]
        names.append(name)
        position = expression.end()
    if not names:
        return None
    pattern.append(re.escape(template[position:]))
    found = re.fullmatch("".join(pattern), uri)
    if found is None:
        return None
    return {name: unquote(value) for name, value in zip(names, found.groups(), strict=True)}


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
