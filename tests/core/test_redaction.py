"""``Redactor``: secrets replaced by value, in every spelling a server may echo them in."""

from __future__ import annotations

import base64
import html
import itertools
import json
from urllib.parse import quote, quote_plus

import pytest

from littleghost._redaction import MAX_REDACTED_CHAIN, MIN_SECRET_CHARS, Redactor

SECRET = 'p@ss "w0rd"/+é=&'


@pytest.mark.parametrize(
    "spelling",
    [
        SECRET,
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET, ensure_ascii=False)[1:-1],
        repr(SECRET)[1:-1],
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        quote(SECRET, safe="").lower(),
        html.escape(SECRET),
        base64.b64encode(SECRET.encode()).decode(),
        base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("="),
    ],
)
def test_every_spelling_of_a_secret_is_redacted(spelling: str) -> None:
    text = f"the gateway received <{spelling}> and refused it"
    assert Redactor([SECRET]).text(text) == "the gateway received <[redacted]> and refused it"


def test_a_value_shorter_than_the_minimum_is_left_alone() -> None:
    short = "x" * (MIN_SECRET_CHARS - 1)
    redactor = Redactor([short, "on", "8080"])
    assert not redactor
    assert redactor.text(f"{short} on port 8080") == f"{short} on port 8080"
    assert Redactor(["y" * MIN_SECRET_CHARS]).text("a yyyyyyyy b") == "a [redacted] b"


def test_a_secret_holding_another_is_redacted_whole() -> None:
    redactor = Redactor(["alice:hunter2-pass", "hunter2-pass"])
    assert redactor.text("got alice:hunter2-pass") == "got [redacted]"


def test_json_values_are_redacted_keys_and_all() -> None:
    redactor = Redactor(["tok-123456789"])
    value = {"tok-123456789": ["a", {"b": "x tok-123456789 y"}], "n": 3, "t": True}
    assert redactor.json(value) == {
        "[redacted]": ["a", {"b": "x [redacted] y"}],
        "n": 3,
        "t": True,
    }


def test_an_error_chain_is_redacted_in_place() -> None:
    redactor = Redactor(["tok-123456789"])
    inner = ValueError("GET /mcp?token=tok-123456789 failed")
    inner.add_note("while connecting with tok-123456789")
    outer = RuntimeError("connect failed: tok-123456789")
    outer.__cause__ = ExceptionGroup("several", [inner])
    redactor.exception(outer)
    assert str(outer) == "connect failed: [redacted]"
    assert str(inner) == "GET /mcp?token=[redacted] failed"
    assert inner.__notes__ == ["while connecting with [redacted]"]


def test_a_cyclic_or_endless_chain_is_walked_a_bounded_number_of_times() -> None:
    redactor = Redactor(["tok-123456789"])
    first = ValueError("tok-123456789")
    second = ValueError("tok-123456789")
    first.__context__, second.__context__ = second, first
    redactor.exception(first)
    assert str(first) == str(second) == "[redacted]"
    errors = [ValueError(f"{n} tok-123456789") for n in range(MAX_REDACTED_CHAIN + 5)]
    for error, cause in itertools.pairwise(errors):
        error.__cause__ = cause
    redactor.exception(errors[0])
    assert str(errors[MAX_REDACTED_CHAIN - 1]).endswith("[redacted]")
    assert str(errors[-1]).endswith("tok-123456789")


def test_an_empty_redactor_changes_nothing() -> None:
    value = {"a": ["b"]}
    assert Redactor().json(value) is value
    assert Redactor().text("anything") == "anything"


@pytest.mark.parametrize("before", ["", "P", "PO", "POST /mcp?token="])
@pytest.mark.parametrize("after", ["", " HTTP/1.1"])
def test_a_secret_inside_the_base64_of_a_longer_text_is_redacted(before: str, after: str) -> None:
    """A server echoing a whole request line in base64: the secret at any byte offset."""
    line = base64.b64encode(f"{before}{SECRET}{after}".encode()).decode()
    redacted = Redactor([SECRET]).text(f"received {line}")
    assert "[redacted]" in redacted
    # What is left around it is at most the few characters mixing the secret's bits and
    # its neighbours': never enough to decode a whole byte of the secret by itself.
    kept = redacted.removeprefix("received ").split("[redacted]")
    assert len(kept) == 2
    assert len(kept[0]) <= len(base64.b64encode(before.encode()).rstrip(b"=")) + 1
    assert len(kept[1]) <= len(line) - len(base64.b64encode(f"{before}{SECRET}".encode())) + 4


def test_base64_of_a_text_without_the_secret_is_left_alone() -> None:
    line = base64.b64encode(b"POST /mcp?token=another-value-123 HTTP/1.1").decode()
    assert Redactor([SECRET]).text(line) == line
