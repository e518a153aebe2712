"""Shared helpers for the simulator tests: an independent exposition check, ss layout check."""

from __future__ import annotations

import re

PROM_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\} (-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)$')
PROM_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
PROM_HELP = re.compile(r"^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$")
PROM_TYPE = re.compile(r"^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|histogram|summary|untyped)$")
SS_HEADER = "State      Recv-Q Send-Q     Local Address:Port       Peer Address:Port Process"
SS_SOCKET = re.compile(r"^ESTAB +\d+ +\d+ +(\d+\.\d+\.\d+\.\d+):(\d+) +(\d+\.\d+\.\d+\.\d+):(\d+)$")
SS_FIELD = re.compile(r"^(?:[a-z_]+:[^ ]+|cubic|send [0-9.]+[KMG]?bps|pacing_rate [0-9.]+[KMG]?bps|delivery_rate [0-9.]+[KMG]?bps)$")
SS_ORDER = ("rto", "rtt", "ato", "mss", "pmtu", "rcvmss", "advmss", "cwnd", "bytes_sent", "bytes_retrans", "bytes_acked",
            "bytes_received", "segs_out", "segs_in", "data_segs_out", "data_segs_in", "send", "lastsnd", "lastrcv", "lastack",
            "pacing_rate", "delivery_rate", "delivered", "busy", "retrans", "lost", "rcv_rtt", "rcv_space", "rcv_ssthresh",
            "notsent", "minrtt", "snd_wnd")


def parse_exposition(body: str) -> list[tuple[str, dict[str, str], float]]:
    """Parse Prometheus text exposition strictly; raises AssertionError on any bad line."""
    typed: set[str] = set()
    out = []
    assert body.endswith("\n"), "exposition must end with a newline"
    for line in body.splitlines():
        if line.startswith("# HELP"):
            assert PROM_HELP.match(line), line
            continue
        if line.startswith("# TYPE"):
            m = PROM_TYPE.match(line)
            assert m, line
            typed.add(m.group(1))
            continue
        m = PROM_SAMPLE.match(line)
        assert m, f"bad sample line: {line!r}"
        name = m.group(1)
        assert name in typed, f"{name} has samples before its # TYPE line"
        labels = dict(PROM_LABEL.findall(m.group(2)))
        out.append((name, labels, float(m.group(3))))
    return out


def check_ss(text: str) -> int:
    """Check `ss -tin` output layout; returns the number of sockets."""
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == SS_HEADER
    body = lines[1:]
    assert len(body) % 2 == 0
    for sock, info in zip(body[0::2], body[1::2]):
        assert SS_SOCKET.match(sock), sock
        assert info.startswith("\t "), repr(info)
        tokens = info.strip().split(" ")
        fields, i = [], 0
        while i < len(tokens):
            tok = tokens[i]
            if tok in ("send", "pacing_rate", "delivery_rate"):  # space-separated value, as ss prints them
                tok = f"{tok} {tokens[i + 1]}"
                i += 1
            assert SS_FIELD.match(tok), tok
            fields.append(tok.split(":")[0].split(" ")[0])
            i += 1
        known = [f for f in fields if f in SS_ORDER]
        assert known == sorted(known, key=SS_ORDER.index), f"fields out of iproute2 order: {known}"
        for f in fields:
            if f in ("bytes_retrans", "retrans", "lost", "notsent"):
                value = info.split(f + ":")[1].split(" ")[0]
                assert value not in ("0", "0/0"), f"{f} printed while zero"
    return len(body) // 2
