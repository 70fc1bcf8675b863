"""Strings that are genuinely valid for the ``format`` values tool schemas use.

Formats are annotations in Draft 2020-12 (validators do not assert them), but a
tool that parses a ``date-time`` deserves real date-times when it is fuzzed.
"""

from __future__ import annotations

import datetime as dt
import string

from hypothesis import strategies as st

__all__ = ["FORMATS"]

_UTC_OFFSETS = st.sampled_from(["Z", "+00:00", "+05:30", "-08:00", "+14:00", "-12:00"])
_DIGITS = st.integers(0, 999)
_LABEL = st.from_regex(r"\A[a-z0-9](?:[a-z0-9-]{0,14}[a-z0-9])?\Z")
_TLD = st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=6)
_UNRESERVED = string.ascii_letters + string.digits + "-._~"
_SEGMENT = st.text(alphabet=_UNRESERVED, max_size=8)


def _time(value: dt.time, offset: str) -> str:
    return value.isoformat() + offset


def _duration(parts: tuple[int, int, int, int, int, int]) -> str:
    years, months, days, hours, minutes, seconds = parts
    date = "".join(f"{n}{unit}" for n, unit in zip((years, months, days), "YMD", strict=True) if n)
    clock = "".join(
        f"{n}{unit}" for n, unit in zip((hours, minutes, seconds), "HMS", strict=True) if n
    )
    if not date and not clock:
        return "P0D"
    return "P" + date + ("T" + clock if clock else "")


_DATE = st.dates().map(dt.date.isoformat)
_TIME = st.builds(_time, st.times(), _UTC_OFFSETS)
_DATE_TIME = st.builds(lambda day, time: f"{day}T{time}", _DATE, _TIME)
_DURATION = st.one_of(
    st.tuples(*[_DIGITS] * 6).map(_duration),
    st.integers(0, 520).map(lambda weeks: f"P{weeks}W"),
)
_HOSTNAME = st.lists(_LABEL, min_size=1, max_size=4).map(".".join)
_DOMAIN = st.builds(
    lambda labels, tld: ".".join([*labels, tld]),
    st.lists(_LABEL, min_size=1, max_size=2),
    _TLD,
)
_LOCAL = st.lists(
    st.text(
        alphabet=string.ascii_letters + string.digits + "!#$%&'*+/=?^_`{|}~-",
        min_size=1,
        max_size=10,
    ),
    min_size=1,
    max_size=3,
).map(".".join)
_EMAIL = st.builds(lambda local, domain: f"{local}@{domain}", _LOCAL, _DOMAIN)
_PATH = st.lists(_SEGMENT, max_size=4).map(lambda segments: "".join("/" + s for s in segments))
_QUERY = st.one_of(st.just(""), _SEGMENT.map(lambda s: "?q=" + s))
_URI = st.builds(
    lambda scheme, host, port, path, query: f"{scheme}://{host}{port}{path}{query}",
    st.sampled_from(["https", "http", "ftp", "ws"]),
    _DOMAIN,
    st.one_of(st.just(""), st.integers(1, 65535).map(lambda port: f":{port}")),
    _PATH,
    _QUERY,
)
_URI_REFERENCE = st.one_of(
    _URI,
    st.builds(lambda path, query: (path or "/") + query, _PATH, _QUERY),
    _SEGMENT.map(lambda fragment: "#" + fragment),
)
_TOKEN = st.text(alphabet=string.ascii_letters + string.digits + "~/_", max_size=6)
_JSON_POINTER = st.lists(_TOKEN, max_size=4).map(
    lambda tokens: "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)
)
_REGEX = st.sampled_from(
    ["^[a-z]+$", "\\d{3}-\\d{4}", "a|b", ".*", "^(foo|bar)?$", "[A-Z][a-z]*", "^\\S+@\\S+$"]
)

FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date-time": _DATE_TIME,
    "date": _DATE,
    "time": _TIME,
    "duration": _DURATION,
    "email": _EMAIL,
    "idn-email": _EMAIL,
    "hostname": _HOSTNAME,
    "idn-hostname": _HOSTNAME,
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "uri": _URI,
    "iri": _URI,
    "uri-reference": _URI_REFERENCE,
    "iri-reference": _URI_REFERENCE,
    "uri-template": _URI,
    "url": _URI,
    "uuid": st.uuids().map(str),
    "regex": _REGEX,
    "json-pointer": _JSON_POINTER,
    "relative-json-pointer": st.builds(lambda n, p: f"{n}{p}", st.integers(0, 5), _JSON_POINTER),
}
