"""What a connection sends that is a secret: headers, URL parts, secret-looking env values."""

from __future__ import annotations

import base64

from littleghost.mcp._secrets import secret_env, secrets_sent


def test_header_values_and_the_credentials_inside_them() -> None:
    pair = base64.b64encode(b"bob:basic-pass-1").decode()
    redactor = secrets_sent(
        headers={
            "Authorization": "Bearer bearer-token-1",
            "Cookie": "session=cookie-value-1; theme=dark",
            "Proxy-Authorization": f"Basic {pair}",
        }
    )
    text = "bearer-token-1 cookie-value-1 theme=dark bob:basic-pass-1 basic-pass-1 " + pair
    assert (
        redactor.text(text) == "[redacted] [redacted] theme=dark [redacted] [redacted] [redacted]"
    )


def test_a_urls_query_values_password_and_basic_header() -> None:
    redactor = secrets_sent("https://alice:url-pass-1@h.example/mcp?token=query-tok-1&v=2")
    basic = base64.b64encode(b"alice:url-pass-1").decode()
    text = f"query-tok-1 url-pass-1 alice:url-pass-1 Basic {basic} v=2 alice"
    assert redactor.text(text) == "[redacted] [redacted] [redacted] [redacted] v=2 alice"


def test_env_values_are_secrets_when_their_name_or_value_says_so() -> None:
    env = {
        "API_TOKEN": "env-token-1",
        "DATABASE_URL": "postgres://u:db-pass-1@db/prod",
        "OPAQUE": "a1b2c3d4e5f6g7h8i9j0k1",
        "HOME": "/srv/sandbox/home",
        "LOG_LEVEL": "debugging",
    }
    assert [name for name, value in env.items() if secret_env(name, value)] == [
        "API_TOKEN",
        "DATABASE_URL",
        "OPAQUE",
    ]
    redactor = secrets_sent(env=env, secrets=["argv-secret-1"])
    text = "env-token-1 /srv/sandbox/home debugging argv-secret-1 a1b2c3d4e5f6g7h8i9j0k1"
    assert redactor.text(text) == "[redacted] /srv/sandbox/home debugging [redacted] [redacted]"
