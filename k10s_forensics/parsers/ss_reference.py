"""Reference ``ss`` parser: plain Python ``re``, one output and one socket at a time.

Not used by rebuild. It states what the vectorised parser (``ss.py`` + ``ss_fields.py``: pyarrow
string kernels and a numpy token scan) computes, one line at a time, so the tests can compare
the two on every real sample and on fuzzed input: both must give the same rows and the same
unrecognised lines. The patterns are the fast path's own, with RE2's classes spelled out
(RE2's ``\\s`` is ``[\\t\\n\\f\\r ]`` and ``\\d`` is ASCII; Python's would be Unicode). A field is
the first ``key:value`` token (tokens are separated by space, tab or form feed) whose value
matches the field's pattern, i.e. the first match of ``(?:^|[\\t\\f ])key:value``.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.ss import HEADER_RE, SOCKET_FIELDS_RE, SPACES, TCP_NETIDS
from k10s_forensics.parsers.ss_fields import CONG, INFO_KEYS, PID_RE, RATES, TOKEN_FIELDS, UNIT_SCALE

_WS, _NOT_WS = "[\t\n\f\r ]", "[^\t\n\f\r ]"


def _py(pattern: str) -> re.Pattern:
    """An RE2 pattern of this parser as Python ``re`` (ASCII classes, as RE2 has them)."""
    return re.compile(pattern.replace(r"\s", _WS).replace(r"\S", _NOT_WS).replace(r"\d", "[0-9]"))


HEADER = _py(HEADER_RE)
SOCKET = _py(SOCKET_FIELDS_RE)
_SEP = "(?:^|[\t\f ])"  # a token starts at the text's start or after a separator
FIELDS = [(column, re.compile(_SEP + pattern[1:]), kind) for column, _prefix, pattern, kind in TOKEN_FIELDS]
HAS_INFO = re.compile(_SEP + "(?:" + "|".join(re.escape(k) for k in INFO_KEYS) + ")")
CONG_RE = re.compile(_SEP + "(" + "|".join(CONG) + ")(?=[\t\f ]|$)")
PID = re.compile(PID_RE)
INT64 = (-(1 << 63), (1 << 63) - 1)


def _int(text: str | None, bits: int = 64) -> int | None:
    if text is None:
        return None
    number = int(text)
    return number if -(1 << (bits - 1)) <= number < (1 << (bits - 1)) else None


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def host(addr: str) -> str:
    """Before the last colon; ``[v6]`` unwrapped, ``%scope`` and ``::ffff:`` removed."""
    m = re.search(r"^(.*):[^:]*$", addr)
    text = m.group(1) if m else ""
    text = re.sub(r"^\[(.*)\]$", r"\1", text, count=1)
    text = re.sub(r"%[^%]*$", "", text, count=1)
    return re.sub(r"^::ffff:([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+)$", r"\1", text, count=1)


def port(addr: str) -> int | None:
    m = re.search(r":([0-9]+)$", addr)
    return _int(m.group(1), bits=32) if m else None


def _rate(info: str, word: str) -> float | None:
    """``word rate`` / ``word:rate`` -> bit/s: first number and first unit, found independently."""
    value = re.search(_SEP + word + "[ :]([0-9.]+)", info)
    unit = re.search(_SEP + word + "[ :][0-9.]+([KMGT]?)bps", info)
    number = _float(value.group(1)) if value else None
    if number is None:
        return None
    return number * UNIT_SCALE.get(unit.group(1) if unit else "", 1.0)


def fields(info: str) -> dict[str, Any]:
    """Every tcp_info column for one socket's info text."""
    has_info = HAS_INFO.search(info) is not None
    out: dict[str, Any] = {}
    for column, pattern, kind in FIELDS:
        m = pattern.search(info)
        text = m.group("v") if m else None
        if kind == "double":
            out[column] = _float(text)
        elif kind == "int":
            out[column] = _int(text)
        else:
            out[column] = (_int(text) or 0) if has_info else None
    for column, word in RATES:
        out[column] = _rate(info, word)
    cong = CONG_RE.search(info)
    out["cong_alg"] = cong.group(1) if cong else None
    pid = PID.search(info)
    out["pid"] = _int(pid.group("v")) if pid else None
    return out


def _socket_row(head: str, info_lines: list[str]) -> dict[str, Any] | None:
    m = SOCKET.search(head)
    if m is None or (m.group("netid") or "") not in TCP_NETIDS:
        return None
    local, peer = m.group("local"), m.group("peer")
    row: dict[str, Any] = {
        "state": m.group("state") or None,
        "local_addr": host(local), "local_port": port(local),
        "peer_addr": host(peer), "peer_port": port(peer),
        "recv_q": _int(m.group("recv_q")), "send_q": _int(m.group("send_q")),
    }
    row.update(fields(" " + m.group("rest") + " " + " ".join(info_lines) + " "))
    return row


def parse_output(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """tcp_samples columns of one ``ss`` output's TCP sockets, and its unrecognised lines."""
    text = text.replace("**", "").replace("\r", "")
    sockets: list[tuple[str, list[str]]] = []
    unrecognised: list[str] = []
    for line in text.split("\n"):
        if all(c in SPACES for c in line):
            continue
        if line[0] in "\t\n\f\r ":  # an info line (even an indented header) of the socket above
            if sockets:
                sockets[-1][1].append(line.strip(SPACES))
        elif HEADER.search(line):
            continue
        elif SOCKET.search(line):
            sockets.append((line, []))
        else:
            unrecognised.append(line)
    rows = [_socket_row(head, info) for head, info in sockets]
    return [r for r in rows if r is not None], unrecognised


__all__ = ["parse_output", "fields", "host", "port"]
