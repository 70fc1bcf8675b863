"""``littleghost_testing._targets``: what a target is called, and what it never shows."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from littleghost_testing._targets import TargetError, expand, from_config, parse_header, resolve
from littleghost_testing.cli._text import command_line, json_text, visible


def test_a_url_label_drops_userinfo_and_query_and_headers_become_references() -> None:
    target = resolve(
        "https://user:pw@mcp.example.com:8443/mcp?key=abc",
        headers={"X-Auth": "Bearer ${API_TOKEN}", "X-Api-Key": "literal-secret"},
    )
    assert target.label == "https://mcp.example.com:8443/mcp"
    assert target.kind == "http"
    assert target.connect_words("lookup", "{}") == [
        "https://user:${URL_PASSWORD}@mcp.example.com:8443/mcp?key=${URL_KEY}",
        "lookup",
        "{}",
        "--header",
        "X-Auth: Bearer ${API_TOKEN}",
        "--header",
        "X-Api-Key: ${X_API_KEY}",
    ]


def test_a_stdio_label_keeps_references_and_masks_env_assignments() -> None:
    target = resolve(
        None,
        command=["env", "TOKEN=hunter22", "DEBUG=1", "npx", "server", "--root", "${HOME}"],
        env={"API_KEY": "hunter22"},
        cwd="/srv/sandbox",
    )
    assert target.label == "env 'TOKEN=${TOKEN}' DEBUG=1 npx server --root '${HOME}'"
    assert "hunter22" not in " ".join(target.connect_words("t", "{}"))
    assert target.connect_words("t", "{}") == [
        "t",
        "{}",
        "--env",
        "API_KEY=${API_KEY}",
        "--cwd",
        "/srv/sandbox",
        "--",
        "env",
        "TOKEN=${TOKEN}",
        "DEBUG=1",
        "npx",
        "server",
        "--root",
        "${HOME}",
    ]


def test_env_options_do_not_end_the_masking() -> None:
    target = resolve(None, command=["/usr/bin/env", "-i", "KEY=hunter22", "server", "A=b"])
    assert target.label == "/usr/bin/env -i 'KEY=${KEY}' server A=b"


def test_expansion_reads_the_environment_and_names_what_is_missing() -> None:
    assert expand("Bearer ${A}${B}", {"A": "x", "B": "y"}, where="--header X") == "Bearer xy"
    assert expand("$HOME ${not-a-name}", {}, where="x") == "$HOME ${not-a-name}"
    with pytest.raises(
        TargetError, match=r"^environment variable A is not set \(used in --env K\)$"
    ):
        expand("${A}", {}, where="--env K")


def test_headers_parse_without_ever_echoing_a_value() -> None:
    assert parse_header("Authorization:  Bearer x ") == ("Authorization", "Bearer x")
    with pytest.raises(TargetError) as error:
        parse_header("Bearer hunter22")
    assert "hunter22" not in str(error.value)
    with pytest.raises(TargetError, match="is not a header name"):
        parse_header("Bad Name: x")


def test_a_config_file_entry_by_url(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    entry = {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer hunter22"}}
    config.write_text(json.dumps({"mcpServers": {"remote": entry}}))
    target = from_config(config, "remote", environ={})
    assert target.label == "remote (http://127.0.0.1:9/mcp)"
    assert target.connect_words("t", "{}") == [
        "t",
        "{}",
        "--config",
        str(config),
        "--server",
        "remote",
    ]
    config.write_text(json.dumps({"mcpServers": {"odd": {"args": []}}}))
    with pytest.raises(TargetError, match="has neither 'command' nor 'url'"):
        from_config(config, "odd")
    config.write_text("{")
    with pytest.raises(TargetError, match="is not valid JSON"):
        from_config(config, "odd")


def test_json_text_escapes_what_a_terminal_would_hide_and_decodes_to_the_same_value() -> None:
    value = {"text": "nul\x00 del\x7f c1\x85 rlo\u202e ls\u2028 lone\ud800 ok é 😀"}
    text = json_text(value)
    assert text.isprintable()
    assert "é 😀" in text and "\\u202e" in text and "\\ud800" in text
    assert json.loads(text) == value
    assert visible("a\nb\x1b[31m") == "a\\nb\\u001b[31m"


def test_a_long_command_is_continued_with_backslashes_between_words_only() -> None:
    words = ["littleghost", "call", "x:y", "tool", json_text({"k": "v" * 90}), "--cwd", "/d"]
    text = command_line(words, groups=[5])
    assert text.count(" \\\n    ") == 1
    assert shlex.split(text.replace(" \\\n    ", " ")) == words
    assert command_line(["a", "b c"], groups=[1]) == "a 'b c'"
