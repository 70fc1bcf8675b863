"""A server's catalog pinned to a file, and what changed since: breaking, compatible, suspicious.

A lock records, per tool, what a model and a client rely on: name, title,
description, input and output schema, annotations and execution, each with a
digest; and per resource, resource template and prompt, its name, title,
description, MIME type or arguments, each with a digest too. Comparing a lock
with the catalog a server lists now classifies every change. *Breaking*
changes stop a client that worked (a tool or property removed, a new
required property, a narrowed constraint); *suspicious* ones change what a
model is told or trusts (a rewritten description, annotations flipped toward
trust, text that reads as instructions to a model: the "rug pull");
*compatible* ones add or widen. A schema change the comparison does not
understand counts as breaking: the lock errs toward saying so.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import threading
import time
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types

from . import _lock_file
from ._lock_file import IDENTIFIER, LOCK_FORMAT, MAX_LOCK_BYTES

__all__ = [
    "LOCK_FORMAT",
    "MAX_CACHED_LOCKS",
    "MAX_LOCK_BYTES",
    "CatalogLock",
    "Change",
    "ChangeKind",
    "instruction_hints",
    "load_cached",
]

MAX_CACHED_LOCKS = 64
"""How many lock files ``load_cached`` keeps parsed (the least recently used is dropped)."""

SETTLED_SECONDS = 2.0
"""A lock file changed less than this long ago is parsed again at every discovery.

Its modification time may not have moved yet for a write in the same clock
tick; once it is this old, any rewrite gives it a new one.
"""

SHOWN_TEXT_CHARS = 160
"""How much of a changed title or description ``diff`` shows, old and new, from a little
before the first difference (escaped, so invisible characters show)."""

ChangeKind = Literal["breaking", "suspicious", "compatible"]
_Changes = Iterator[tuple[ChangeKind, str]]

_FIELDS = ("title", "description", "inputSchema", "outputSchema", "annotations", "execution")

# Text-bearing keywords: a model reads them, so changing them is suspicious, not breaking.
_READ_FIELDS = {
    "resources": ("name", "title", "description", "mimeType"),
    "resourceTemplates": ("name", "title", "description", "mimeType"),
    "prompts": ("title", "description", "arguments"),
}
"""What a lock records of a resource (by URI), a resource template (by URI template) and a
prompt (by name), in its section of the lock file."""

_SUBJECTS = {"resources": "resource", "resourceTemplates": "resource template", "prompts": "prompt"}

_LAST_KEY = re.compile(rf"\.({IDENTIFIER.pattern})$")  # of a JSON path: $.a.max_count
_TEXT_KEYWORDS = frozenset({"title", "description"})
# Keywords that only offer values: changing them breaks nobody.
_OFFER_KEYWORDS = frozenset({"examples", "default", "$comment", "deprecated", "readOnly"})
# Lower bounds (raising one narrows) and upper bounds (lowering one narrows).
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_HANDLED = frozenset(
    {
        *_TEXT_KEYWORDS,
        *_OFFER_KEYWORDS,
        *_LOWER_BOUNDS,
        *_UPPER_BOUNDS,
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "pattern",
        "format",
        "multipleOf",
    }
)

# Annotations whose flip makes a client trust a tool more: (name, default, trusted value).
_TRUST_FLIPS = (
    ("readOnlyHint", False, True),
    ("destructiveHint", True, False),
    ("idempotentHint", False, True),
    ("openWorldHint", True, False),
)

_INSTRUCTION_PATTERNS = tuple(
    (re.compile(pattern, re.IGNORECASE), why)
    for pattern, why in (
        (r"<\s*/?\s*(important|system|instructions?|secret|hidden)\b", "a hidden tag"),
        (r"<!--", "an HTML comment"),
        (
            r"\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?"
            r"(previous|prior|above|earlier|other)\s+(instructions|prompts?|rules)",
            "an order to ignore instructions",
        ),
        (
            r"\b(do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|show)\b"
            r"[^.]{0,40}\b(user|human)",
            "an order to hide something from the user",
        ),
        (
            r"(~/|\$HOME/|\b)(\.ssh|id_rsa|\.env\b|\.aws|credentials|mcp\.json|\.netrc|"
            r"/etc/passwd|private[ _]key)",
            "a request touching credentials or private files",
        ),
        (
            r"\b(read|open|cat|include|attach|upload|send|post|forward|exfiltrate)\b[^.]{0,60}"
            r"\b(file|contents?|conversation|history|secrets?|tokens?|keys?)\b[^.]{0,60}"
            r"\b(to|into|as|via)\b",
            "a request to read or send data",
        ),
        (r"\bbefore\s+(using|calling)\s+(this|any)\s+tool\b", "a precondition aimed at a model"),
    )
)


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between a lock and the catalog now: which tool, how serious, what."""

    tool: str
    kind: ChangeKind
    what: str

    def __str__(self) -> str:
        return f"{self.tool}: {self.kind}: {self.what}"


class CatalogLock:
    """The pinned catalog of one server: ``dumps()`` writes it, ``diff()`` compares a newer one."""

    def __init__(
        self,
        server: Mapping[str, Any],
        tools: Mapping[str, Mapping[str, Any]],
        reads: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
    ) -> None:
        self.server = dict(server)
        self.tools = {name: dict(entry) for name, entry in tools.items()}
        self.reads = {
            section: {key: dict(entry) for key, entry in entries.items()}
            for section, entries in (reads or {}).items()
        }
        """``resources``, ``resourceTemplates`` and ``prompts``, each by URI, URI template or
        name; a section the lock does not hold (an older lock) is not compared."""

    @classmethod
    def from_tools(
        cls,
        tools: Iterable[types.Tool],
        server: types.Implementation | None = None,
        *,
        resources: Iterable[types.Resource] | None = None,
        resource_templates: Iterable[types.ResourceTemplate] | None = None,
        prompts: Iterable[types.Prompt] | None = None,
    ) -> CatalogLock:
        """The lock of a listed catalog (``server``: the initialize answer's ``serverInfo``).

        ``resources``, ``resource_templates`` and ``prompts`` left ``None`` are not recorded.
        """
        entries = {tool.name: _entry(tool, _FIELDS) for tool in tools}
        reads: dict[str, dict[str, dict[str, Any]]] = {}
        if resources is not None:
            reads["resources"] = {
                str(resource.uri): _entry(resource, _READ_FIELDS["resources"])
                for resource in resources
            }
        if resource_templates is not None:
            reads["resourceTemplates"] = {
                template.uri_template: _entry(template, _READ_FIELDS["resourceTemplates"])
                for template in resource_templates
            }
        if prompts is not None:
            reads["prompts"] = {
                prompt.name: _entry(prompt, _READ_FIELDS["prompts"]) for prompt in prompts
            }
        info = {}
        if server is not None:
            info = {"name": server.name, "version": server.version}
        return cls(info, entries, reads)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CatalogLock:
        """Read a lock file; a missing, oversized or malformed one is a ``ConfigurationError``.

        Its whole shape is checked against ``lock.schema.json`` first, so a
        hand merge that left a wrong type is named, not met mid-comparison.
        """
        return cls.loads(_lock_file.read(path), where=os.fspath(path))

    @classmethod
    def loads(cls, text: str | bytes, *, where: str = "lock") -> CatalogLock:
        """Parse a lock's JSON text, checked as ``load`` checks a file."""
        return cls._of(_lock_file.parse(text, where))

    @classmethod
    def _of(cls, data: dict[str, Any]) -> CatalogLock:
        reads = {section: data[section] for section in _READ_FIELDS if section in data}
        return cls(data.get("server", {}), data["tools"], reads)

    def dumps(self) -> str:
        """Stable JSON: sorted keys, one tool per block, so a git diff reads well."""
        document = {
            "littleghost_lock": LOCK_FORMAT,
            "server": self.server,
            "tools": self.tools,
            **self.reads,
        }
        return _lock_file.dumps(document)

    def write(self, path: str | os.PathLike[str]) -> None:
        """Replace ``path`` with this lock in one step; one readers would refuse (over
        ``MAX_LOCK_BYTES``) is a ``ConfigurationError`` and nothing is written."""
        _lock_file.replace(path, _lock_file.bounded(self.dumps()))

    def hints(self) -> list[Change]:
        """What in the catalog's own texts reads as instructions to a model (what ``diff``
        says of a new entry), for a first lock's reviewer."""
        found = [
            change for name, entry in self.tools.items() for change in _new_text_hints(name, entry)
        ]
        for section, subject in _SUBJECTS.items():
            for key, entry in self.reads.get(section, {}).items():
                found += _new_text_hints(f"{subject} {key}", entry)
        return found

    def drift(self, tool: types.Tool) -> list[Change]:
        """Why ``tool`` cannot be trusted as locked: breaking or suspicious changes, or unknown."""
        entry = CatalogLock.from_tools([tool]).tools[tool.name]
        locked = self.tools.get(tool.name)
        if locked is None:
            return [Change(tool.name, "suspicious", "not in the lock")]
        return [c for c in tool_changes(tool.name, locked, entry) if c.kind != "compatible"]

    def diff(self, current: CatalogLock) -> list[Change]:
        """Every change from this lock to ``current``, tool by tool in name order."""
        changes: list[Change] = []
        for name in sorted(self.tools.keys() | current.tools.keys()):
            locked, now = self.tools.get(name), current.tools.get(name)
            if now is None:
                changes.append(Change(name, "breaking", "tool removed"))
            elif locked is None:
                changes.append(Change(name, "compatible", "new tool"))
                changes += _new_text_hints(name, now)
            else:
                changes += tool_changes(name, locked, now)
        for section, subject in _SUBJECTS.items():
            if section in self.reads and section in current.reads:
                changes += _read_changes(subject, self.reads[section], current.reads[section])
        return changes


def _read_changes(
    subject: str,
    locked: Mapping[str, Mapping[str, Any]],
    current: Mapping[str, Mapping[str, Any]],
) -> list[Change]:
    """Every change in one section: resources, resource templates or prompts."""
    changes: list[Change] = []
    for key in sorted(locked.keys() | current.keys()):
        label, old, new = f"{subject} {key}", locked.get(key), current.get(key)
        if new is None:
            changes.append(Change(label, "breaking", f"{subject} removed"))
        elif old is None:
            changes.append(Change(label, "compatible", f"new {subject}"))
            changes += _new_text_hints(label, new)
        else:
            changes += [Change(label, kind, what) for kind, what in _entry_changes(old, new)]
    return changes


def _entry_changes(locked: Mapping[str, Any], now: Mapping[str, Any]) -> _Changes:
    """A resource's, template's or prompt's changes: its texts, MIME type and arguments."""
    for field in ("name", "title", "description"):
        yield from _text_changes(field, locked.get(field), now.get(field))
    if locked.get("mimeType") != now.get("mimeType"):
        yield "breaking", "mimeType changed"
    old = {arg.get("name"): arg for arg in _arguments(locked)}
    new = {arg.get("name"): arg for arg in _arguments(now)}
    for name in sorted(old.keys() | new.keys(), key=str):
        before, after = old.get(name), new.get(name)
        if after is None:
            yield "breaking", f"argument {name} removed"
        elif before is None:
            required = bool(after.get("required"))
            yield (
                ("breaking" if required else "compatible"),
                (f"new {'required' if required else 'optional'} argument {name}"),
            )
        else:
            required = bool(after.get("required"))
            if bool(before.get("required")) != required:
                kind: ChangeKind = "breaking" if required else "compatible"
                yield kind, f"argument {name} now {'required' if required else 'optional'}"
            if before.get("description") != after.get("description"):
                yield "suspicious", f"argument {name} description changed"


def _arguments(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    arguments = entry.get("arguments")
    if not isinstance(arguments, list):
        return []
    return [argument for argument in arguments if isinstance(argument, dict)]


def tool_changes(name: str, locked: Mapping[str, Any], now: Mapping[str, Any]) -> list[Change]:
    """What changed in one tool, classified."""
    return [Change(name, kind, what) for kind, what in _tool_changes(locked, now)]


def _tool_changes(locked: Mapping[str, Any], now: Mapping[str, Any]) -> _Changes:
    for field in ("title", "description"):
        yield from _text_changes(field, locked.get(field), now.get(field))
    yield from _annotation_changes(locked.get("annotations") or {}, now.get("annotations") or {})
    if locked.get("execution") != now.get("execution"):
        yield "breaking", "execution changed"
    yield from _schema_changes(locked.get("inputSchema"), now.get("inputSchema"), "input", "$")
    old_output, new_output = locked.get("outputSchema"), now.get("outputSchema")
    if old_output is not None and new_output is None:
        yield "breaking", "outputSchema removed"
    elif old_output is None and new_output is not None:
        yield "compatible", "outputSchema added"
    elif old_output is not None:
        yield from _schema_changes(old_output, new_output, "output", "$")


def _annotation_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> _Changes:
    """Hints compared with MCP's defaults where absent: one made explicit at its default is
    no change; a tool annotated for the first time is one line, not one per hint."""
    flips = [
        (key, old.get(key, default), new.get(key, default), trusted)
        for key, default, trusted in _TRUST_FLIPS
        if old.get(key, default) != new.get(key, default)
    ]
    if flips and not old:
        declared = ", ".join(f"{key} {json.dumps(after)}" for key, _before, after, _ in flips)
        if any(after == trusted for _key, _before, after, trusted in flips):
            yield (
                "suspicious",
                f"annotations declared, trusted more than MCP's defaults: {declared}",
            )
        else:
            yield "compatible", f"annotations declared: {declared}"
    else:
        for key, before, after, trusted in flips:
            kind: ChangeKind = "suspicious" if after == trusted else "compatible"
            yield kind, f"annotation {key} {json.dumps(before)} -> {json.dumps(after)}"
    yield from _text_changes("annotation title", old.get("title"), new.get("title"))


def _text_changes(label: str, old: Any, new: Any, *, generated: bool = False) -> _Changes:
    """A text a model reads, added, removed or changed, shown old and new (bounded, escaped).

    ``generated``: both sides are names a library derives from code (pydantic's
    ``"Max Count"`` for ``max_count``, a class name): compatible, not suspicious.
    """
    if old == new:
        return
    kind: ChangeKind = "compatible" if generated else "suspicious"
    note = " (a name derived from code)" if generated else ""
    if old is None:
        yield kind, f"{label} added: {_quoted(new)}{note}"
    elif new is None:
        yield kind, f"{label} removed (was {_quoted(old)}){note}"
    else:
        shown_old, shown_new = _excerpts(old, new)
        yield kind, f"{label} changed: {shown_old} -> {shown_new}{note}"
    if not generated:
        for why in instruction_hints(new):
            yield "suspicious", f"the new {label} holds {why}"


def _excerpts(old: Any, new: Any) -> tuple[str, str]:
    """Both texts from a little before their first difference, each ``SHOWN_TEXT_CHARS`` long."""
    if not isinstance(old, str) or not isinstance(new, str):
        return _quoted(old), _quoted(new)
    same = next(
        (n for n, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    start = max(0, same - SHOWN_TEXT_CHARS // 4)
    return _quoted(old, start), _quoted(new, start)


def _quoted(text: Any, start: int = 0) -> str:
    if not isinstance(text, str):
        return _lock_file.quoted(text)
    end = start + SHOWN_TEXT_CHARS
    shown = _lock_file.quoted(text[start:end])
    return ("..." if start else "") + shown + ("..." if end < len(text) else "")


def _generated_title(title: Any, at: str) -> bool:
    """A title a schema library derives from code: a class or function name (one word), or
    pydantic's title of the property's own name (``max_count``: ``"Max Count"``)."""
    if title is None:
        return True
    if not isinstance(title, str):
        return False
    if IDENTIFIER.fullmatch(title):
        return True
    key = _LAST_KEY.search(at)
    return key is not None and title == key.group(1).title().replace("_", " ").strip()


def _new_text_hints(name: str, entry: Mapping[str, Any]) -> list[Change]:
    return [
        Change(name, "suspicious", f"its {field} holds {why}")
        for field in ("title", "description")
        for why in instruction_hints(entry.get(field))
    ]


def instruction_hints(text: Any) -> list[str]:
    """What in ``text`` reads as instructions to a model rather than a description of a tool."""
    if not isinstance(text, str):
        return []
    hints = [why for pattern, why in _INSTRUCTION_PATTERNS if pattern.search(text)]
    if any(_invisible(character) for character in text):
        hints.append("invisible characters")
    return list(dict.fromkeys(hints))


def _invisible(character: str) -> bool:
    """Format characters (zero-width, bidi controls) and Unicode tag characters hide text."""
    return unicodedata.category(character) == "Cf" or 0xE0000 <= ord(character) <= 0xE007F


# -- schemas ------------------------------------------------------------------------------------

Direction = Literal["input", "output"]


def _schema_changes(old: Any, new: Any, direction: Direction, at: str) -> _Changes:
    """Input: narrowing breaks callers. Output: what a client relies on is the reverse."""
    if old == new:
        return
    if not isinstance(old, dict) or not isinstance(new, dict):
        if new is True or new == {}:
            yield _widened(direction), f"{at} accepts anything now"
        else:
            yield "breaking", f"{at} changed"
        return
    for keyword in sorted((old.keys() | new.keys()) - _HANDLED):
        if old.get(keyword) != new.get(keyword):
            yield "breaking", f"{keyword!r} at {at} changed"
    for keyword in sorted(_TEXT_KEYWORDS):
        before, after = old.get(keyword), new.get(keyword)
        generated = keyword == "title" and all(_generated_title(t, at) for t in (before, after))
        yield from _text_changes(f"{keyword} at {at}", before, after, generated=generated)
    for keyword in sorted(_OFFER_KEYWORDS):
        if old.get(keyword) != new.get(keyword):
            yield "compatible", f"{keyword!r} at {at} changed"
    yield from _value_changes(old, new, direction, at)
    yield from _bound_changes(old, new, direction, at)
    yield from _object_changes(old, new, direction, at)
    if "items" in old or "items" in new:
        yield from _schema_changes(old.get("items", {}), new.get("items", {}), direction, f"{at}[]")


def _narrowed(direction: Direction) -> ChangeKind:
    return "breaking" if direction == "input" else "compatible"


def _widened(direction: Direction) -> ChangeKind:
    return "compatible" if direction == "input" else "breaking"


def _value_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction, at: str
) -> _Changes:
    old_types, new_types = _types(old.get("type")), _types(new.get("type"))
    if old_types != new_types:
        yield (
            _compare_sets(old_types, new_types, direction),
            f"type at {at} {_arrow(old, new, 'type')}",
        )
    for keyword in ("enum", "const"):
        before = _values(old, keyword)
        after = _values(new, keyword)
        if before != after:
            yield _compare_sets(before, after, direction), f"{keyword} at {at} changed"
    for keyword in ("pattern", "format", "multipleOf"):
        if old.get(keyword) != new.get(keyword):
            kind = _widened(direction) if keyword not in new else _narrowed(direction)
            yield kind, f"{keyword} at {at} {_arrow(old, new, keyword)}"


def _bound_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction, at: str
) -> _Changes:
    for keyword in (*_LOWER_BOUNDS, *_UPPER_BOUNDS):
        before, after = old.get(keyword), new.get(keyword)
        if before == after:
            continue
        lower = keyword in _LOWER_BOUNDS
        if after is None:
            kind = _widened(direction)
        elif before is None or not _numbers(before, after):
            kind = _narrowed(direction)
        else:
            tighter = after > before if lower else after < before
            kind = _narrowed(direction) if tighter else _widened(direction)
        yield kind, f"{keyword} at {at} {_arrow(old, new, keyword)}"


def _object_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], direction: Direction, at: str
) -> _Changes:
    old_properties = _mapping(old.get("properties"))
    new_properties = _mapping(new.get("properties"))
    old_required, new_required = (
        set(_strings(old.get("required"))),
        set(_strings(new.get("required"))),
    )
    for key in sorted(old_properties.keys() - new_properties.keys()):
        yield "breaking", f"property {_key(at, key)} removed"
    for key in sorted(new_properties.keys() - old_properties.keys()):
        if key in new_required and direction == "input":
            yield "breaking", f"new required property {_key(at, key)}"
        else:
            yield "compatible", f"new optional property {_key(at, key)}"
    for key in sorted(old_properties.keys() & new_properties.keys()):
        yield from _schema_changes(
            old_properties[key], new_properties[key], direction, _key(at, key)
        )
    for key in sorted((new_required - old_required) & old_properties.keys()):
        yield _narrowed(direction), f"property {_key(at, key)} is required now"
    for key in sorted((old_required - new_required) & new_properties.keys()):
        yield _widened(direction), f"property {_key(at, key)} is optional now"
    before, after = old.get("additionalProperties", True), new.get("additionalProperties", True)
    if before != after:
        if after is False:
            yield _narrowed(direction), f"additionalProperties at {at} closed"
        elif before is False and after in (True, {}):
            yield _widened(direction), f"additionalProperties at {at} opened"
        else:
            yield from _schema_changes(before, after, direction, f"{at}.*")


def _compare_sets(
    before: frozenset[Any] | None, after: frozenset[Any] | None, direction: Direction
) -> ChangeKind:
    """``None`` is "any value": losing values narrows, gaining them widens, both is breaking."""
    if after is None or (before is not None and before < after):
        return _widened(direction)
    if before is None or after < before:
        return _narrowed(direction)
    return "breaking"


def _types(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    names = [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
    found = {name for name in names if isinstance(name, str)}
    if "number" in found:
        found.add("integer")  # an integer is a number: number -> integer narrows
    return frozenset(found)


def _values(schema: Mapping[str, Any], keyword: str) -> frozenset[str] | None:
    if keyword not in schema:
        return None
    values = schema[keyword] if keyword == "enum" else [schema[keyword]]
    if not isinstance(values, list):
        return frozenset()
    return frozenset(json.dumps(value, sort_keys=True) for value in values)


def _numbers(*values: Any) -> bool:
    return all(isinstance(value, int | float) and not isinstance(value, bool) for value in values)


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _key(at: str, key: str) -> str:
    return at + _lock_file.member(key)


def _arrow(old: Mapping[str, Any], new: Mapping[str, Any], keyword: str) -> str:
    def shown(schema: Mapping[str, Any]) -> str:
        if keyword not in schema:
            return "(none)"
        return json.dumps(schema[keyword], ensure_ascii=True)[:80]

    return f"{shown(old)} -> {shown(new)}"


def _entry(model: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    """``fields`` of an SDK model as JSON, each with its digest."""
    dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    entry = {key: dumped[key] for key in fields if key in dumped}
    entry["digest"] = {key: _digest(value) for key, value in entry.items()}
    return entry


def _digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


_FileVersion = tuple[int, int, int, int]
"""What tells two versions of a file apart: device, inode, modification time (ns), size."""

_cached: dict[str, tuple[_FileVersion, CatalogLock]] = {}
_cached_guard = threading.Lock()


def load_cached(path: str | os.PathLike[str]) -> CatalogLock:
    """``CatalogLock.load(path)``, parsed once per version of the file: share it, never change it.

    Discovery runs at every connection; a lock of a large catalog costs
    milliseconds to parse. A file that changed (another modification time,
    size or inode: an edit, or a new file renamed over it) is read again, and
    so is one that cannot be read (``load`` says why).
    """
    where = os.path.abspath(path)
    try:
        info = os.stat(where)
    except OSError:
        return CatalogLock.load(path)
    if not stat.S_ISREG(info.st_mode):
        return CatalogLock.load(path)
    version = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)
    with _cached_guard:
        hit = _cached.pop(where, None)
        if hit is not None and hit[0] == version:
            _cached[where] = hit  # now the most recently used
            return hit[1]
    lock = CatalogLock.load(path)
    if time.time() - info.st_mtime_ns / 1e9 >= SETTLED_SECONDS:
        with _cached_guard:
            _cached[where] = (version, lock)
            while len(_cached) > MAX_CACHED_LOCKS:
                del _cached[next(iter(_cached))]
    return lock
