"""Model-facing names for MCP tools.

Server names are untrusted and may use any characters or length; model APIs
accept ``^[A-Za-z0-9_-]{1,64}$``. The mapping is deterministic so the same
server always yields the same tool names.
"""

from __future__ import annotations

import hashlib
import re

from littleghost._registry import MAX_TOOL_NAME_LENGTH, TOOL_NAME_CHARACTERS

__all__ = ["normalize_name"]

_DIGEST_LENGTH = 12
_PREFIX_LENGTH = MAX_TOOL_NAME_LENGTH - 1 - _DIGEST_LENGTH  # 51: prefix, "_", digest
_INVALID = re.compile(f"[^{TOOL_NAME_CHARACTERS}]")


def normalize_name(name: str) -> str:
    """Replace characters outside ``[A-Za-z0-9_-]`` with ``_``; shorten past 64.

    A long name keeps its first 51 characters, then ``_`` and the first 12 hex
    digits of the SHA-256 of the whole normalized name, so two long names that
    share a prefix still differ.
    """
    normalized = _INVALID.sub("_", name)
    if len(normalized) <= MAX_TOOL_NAME_LENGTH:
        return normalized
    digest = hashlib.sha256(normalized.encode()).hexdigest()[:_DIGEST_LENGTH]
    return f"{normalized[:_PREFIX_LENGTH]}_{digest}"
