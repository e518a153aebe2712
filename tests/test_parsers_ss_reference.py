"""The vectorised ss parser against the per-line reference (parsers/ss_reference.py): the same
rows and the same unrecognised lines on every real ss sample, on iproute2's output variants,
and on fuzzed and mutated text, several outputs per batch (row bounds must hold)."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from fuzz_kit import FUZZ_SETTINGS
from k10s_forensics.parsers import ss, ss_reference
from test_parsers_ss import VARIANTS

TS = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
COLUMNS = ["state", "local_addr", "local_port", "peer_addr", "peer_port", "recv_q", "send_q", "rtt_ms", "rttvar_ms",
           "minrtt_ms", "cwnd", "retrans_total", "retrans_current", "bytes_sent", "bytes_retrans", "bytes_acked",
           "bytes_received", "segs_out", "lost", "notsent_bytes", "busy_ms", "rwnd_limited_ms", "send_rate_bps",
           "delivery_rate_bps", "cong_alg", "pid"]


def fast(outputs: list[str]) -> tuple[list[tuple], list[tuple]]:
    """(raw row, socket columns...) per socket and (raw row, smallest unrecognised line, count)."""
    n = len(outputs)
    batch = pa.table({
        "stdout": pa.array(outputs, pa.string()), "_row": pa.array(range(n), pa.int64()),
        "captured_at": pa.array([TS] * n, pa.timestamp("us", tz="UTC")),
        "namespace": pa.array(["ns"] * n), "pod": pa.array(["p"] * n), "node": pa.array(["n"] * n),
    })
    table, issues = ss._parse_batch(batch)
    rows = [] if table is None else [(r["raw_row"], *(r[c] for c in COLUMNS)) for r in table.to_pylist()]
    return rows, sorted((raw_row, example, count) for example, raw_row, count in issues)


def reference(outputs: list[str]) -> tuple[list[tuple], list[tuple]]:
    rows, issues = [], []
    for i, text in enumerate(outputs):
        parsed, unrecognised = ss_reference.parse_output(text)
        rows += [(i, *(r[c] for c in COLUMNS)) for r in parsed]
        if unrecognised:
            issues.append((i, min(unrecognised), len(unrecognised)))
    return rows, issues


def same(outputs: list[str]) -> None:
    got, want = fast(outputs), reference(outputs)
    assert got[1] == want[1]
    assert len(got[0]) == len(want[0])
    for g, w in zip(*[got[0], want[0]]):
        assert g == w, [(c, a, b) for c, a, b in zip(["raw_row", *COLUMNS], g, w) if a != b]


def test_every_real_sample_and_the_variants(real_samples):
    texts = [p.read_text() for p in sorted((real_samples / "ss").iterdir()) if p.is_file()]
    assert len(texts) >= 4
    same(texts + [VARIANTS])
    rows, _ = reference(texts)
    assert len(rows) >= 10 and any(r[COLUMNS.index("retrans_total") + 1] for r in rows)  # the samples carry counters
    for text in texts:  # one per batch too
        same([text])


FRAGMENTS = [
    " ", "  ", "\t", "\n", "\n\t", "\n  ", "\r\n", "\f", "**", "\u00a0", "\u3000", "\v", "x",
    "ESTAB 0 0 10.0.0.1:22 10.0.0.2:5000", "LISTEN 0 128 *:29500 *:*", "tcp ESTAB 0 0 [::1]:22 [::ffff:1.2.3.4]:9",
    "udp UNCONN 0 0 0.0.0.0:53 0.0.0.0:*", "0 0 1.1.1.1%eth0:ssh 2.2.2.2:7", "State Recv-Q Send-Q Local Address:Port Peer",
    " Recv-Q Send-Q ", "99999999999999999999", "4294967296", "9223372036854775807", "9223372036854775808", "00000000000000000000001",
    "/", "ms", "m", "busy:5m", "retrans:99999999999999999999/3", "retrans:1/00000000000000000000002", "retrans:4/x", "rtt:", "rtt:1.5/0.2", "rtt:1.2.3/4", "rtt:./.", "minrtt:0.07",
    "cwnd:10", "cwnd:99999999999999999999", "retrans:0/4", "retrans:3/", "bytes_sent:123", "bytes_retrans:5",
    "bytes_acked:7", "bytes_received:8", "segs_out:9", "lost:2", "notsent:11", "busy:12ms", "busy:12",
    "rwnd_limited:96ms(2.4%)", "send", "send:", "send 11.8Mbps", "send:3.2Gbps", "send\t5Mbps", "send\f5Mbps",
    "send  7Kbps", "delivery_rate", "delivery_rate 78104", "delivery_rate:1.2Tbps", "delivery_rate\t9bps", "12Mbps",
    "bps", "1.5.5Gbps", "cubic", "bbr", "bbr2", "bbr3", "bbrx", "reno", "dctcp", "highspeed", "highspeex", "westwood", "lp", "lpx", "nv", "mss:8948", "rto:204", "wscale:7,7",
    'users:(("python",pid=4242,fd=57))', 'users:(("a b",pid=', "pid=77", "skmem:(r0,rb131072)", "é", "日本",
]


def test_every_pair_of_fragments():
    """Each fragment after each other one, glued and spaced, on a socket's info line: the token
    bounds (tabs, form feeds, double spaces, the rate's one space) are where the two could differ."""
    head = "ESTAB 0 0 10.0.0.1:22 10.0.0.2:5000"
    lines = []
    for a in FRAGMENTS:
        for b in FRAGMENTS:
            lines += [head, f"\t {a}{b} {a} {b}", f"{head} {b}{a}"]
    outputs = ["\n".join(lines[i:i + 600]) for i in range(0, len(lines), 600)]
    same(outputs)
    assert sum(len(ss_reference.parse_output(o)[0]) for o in outputs) > 10000


@st.composite
def ss_text(draw) -> str:
    return "".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=40)))


@FUZZ_SETTINGS
@given(st.lists(ss_text(), min_size=1, max_size=6))
def test_fuzzed_outputs(outputs):
    same(outputs)


@FUZZ_SETTINGS
@given(st.data())
def test_mutated_real_samples(real_samples, data):
    texts = [p.read_text() for p in sorted((real_samples / "ss").iterdir()) if p.is_file()]
    outputs = []
    for _ in range(data.draw(st.integers(1, 3))):
        text = data.draw(st.sampled_from(texts))
        for _ in range(data.draw(st.integers(0, 4))):
            at = data.draw(st.integers(0, len(text)))
            cut = data.draw(st.integers(0, 20))
            text = text[:at] + data.draw(st.sampled_from(FRAGMENTS)) + text[at + cut:]
        outputs.append(text)
    same(outputs)
