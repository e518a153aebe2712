"""ss parser: every real sample hand-checked, plus the output variants of iproute2 and bad input."""

from __future__ import annotations

import pytest

from log_helpers import CAPTURED, derive, issue_counts, ss_row
from k10s_forensics.parsers import ss


def sockets(tmp_path, *stdouts: str, **kw) -> tuple[list[dict], dict]:
    rows = [ss_row(text, pod=f"p{i}", **kw) for i, text in enumerate(stdouts)]
    ctx, issues = derive(tmp_path, ss, exec=rows)
    return ctx.table("tcp_samples").to_pylist(), issue_counts(issues)


def test_syn_sent_table_without_tcp_info(tmp_path, real_samples):
    rows, issues = sockets(tmp_path, (real_samples / "ss/ss-ant_syn-sent_netdata-issue2169.txt").read_text())
    assert [(r["state"], r["local_addr"], r["local_port"], r["peer_addr"], r["peer_port"], r["send_q"]) for r in rows] == [
        ("SYN-SENT", "172.27.233.198", port, "10.1.1.1", 8080, 1) for port in (46460, 46462, 46464, 46466)
    ]
    # no tcp_info printed (ss -ant): counters are unknown, not zero
    assert all(r["retrans_total"] is None and r["rtt_ms"] is None and r["bytes_sent"] is None for r in rows)
    assert all(r["ts"] == CAPTURED and r["namespace"] == "team-a" and r["pod"] == "p0" and r["raw_row"] == 0 for r in rows)
    assert not issues


def test_bbr_cubic_lab_with_netid_process_and_markdown(tmp_path, real_samples):
    rows, issues = sockets(tmp_path, (real_samples / "ss/ss-ein_bbr-cubic-iperf3_retrans-lost-sacked-unacked_cubic-bbr-lab.txt").read_text())
    assert not issues
    by_port = {r["local_port"]: r for r in rows}
    assert sorted(by_port) == [58020, 58022, 58036, 58044]
    first = by_port[58022]  # the author wrapped "cwnd:200 ssthresh:88" and bbr:(...) in ** markers
    assert (first["peer_addr"], first["peer_port"], first["state"], first["send_q"]) == ("X.Y.Z.V", 5201, "ESTAB", 2082224)
    assert (first["rtt_ms"], first["rttvar_ms"], first["minrtt_ms"], first["cwnd"], first["cong_alg"]) == (234.813, 3.371, 145.2, 200, "bbr")
    assert (first["retrans_current"], first["retrans_total"], first["lost"]) == (56, 771, 56)
    assert (first["bytes_sent"], first["bytes_retrans"], first["bytes_acked"], first["segs_out"]) == (3162469, 1116408, 1516094, 2187)
    assert (first["send_rate_bps"], first["delivery_rate_bps"], first["busy_ms"], first["rwnd_limited_ms"], first["notsent_bytes"]) == (9866575.0, 4123200.0, 4040, 96, 1552256)
    cubic = by_port[58020]
    assert (cubic["cong_alg"], cubic["retrans_total"], cubic["bytes_retrans"], cubic["bytes_received"], cubic["minrtt_ms"]) == ("cubic", 0, 0, 4, 148.314)
    assert (by_port[58036]["retrans_total"], by_port[58044]["retrans_total"], by_port[58044]["rwnd_limited_ms"]) == (386, 368, 200)


def test_ipv4_mapped_ipv6_mysql(tmp_path, real_samples):
    rows, _ = sockets(tmp_path, (real_samples / "ss/ss-itn_ipv4-mapped-ipv6_mysql_retrans_plantegg.txt").read_text())
    assert [(r["local_addr"], r["local_port"], r["peer_addr"], r["peer_port"]) for r in rows] == [
        ("192.168.0.174", 48074, "192.168.0.173", 3306), ("192.168.0.174", 48082, "192.168.0.173", 3306)
    ]
    a, b = rows
    assert (a["rtt_ms"], a["minrtt_ms"], a["retrans_current"], a["retrans_total"], a["send_q"]) == (0.24, 0.135, 0, 183, 165)
    assert (a["send_rate_bps"], a["delivery_rate_bps"], a["busy_ms"], a["bytes_received"]) == (pytest.approx(482.7e6), pytest.approx(163.2e6), 2676463, 8847784416)
    assert (b["rtt_ms"], b["retrans_total"], b["bytes_acked"], b["cong_alg"]) == (0.262, 260, 1852907381, "cubic")


def test_mptcp_bbr2_skmem(tmp_path, real_samples):
    (row,), issues = sockets(tmp_path, (real_samples / "ss/ss-neimMt_mptcp-bbr2-skmem_mptcp-issue427_excerpt.txt").read_text())
    assert (row["local_addr"], row["local_port"], row["peer_addr"], row["peer_port"]) == ("10.29.22.251", 44495, "10.21.22.251", 873)
    assert (row["cong_alg"], row["rtt_ms"], row["rttvar_ms"], row["cwnd"], row["send_rate_bps"]) == ("bbr2", 75.953, 37.976, 2048, 298977315.0)
    assert (row["bytes_acked"], row["bytes_received"], row["retrans_total"], row["delivery_rate_bps"]) == (1, 6039931593, 0, None)
    assert not issues


VARIANTS = """State  Recv-Q Send-Q   Local Address:Port     Peer Address:Port Process
ESTAB  0      305756   192.168.3.12:37178     192.168.5.15:43603 users:(("python",pid=4242,fd=57))
\t cubic wscale:7,7 rto:204 rtt:0.078/0.02 mss:8948 cwnd:10 bytes_sent:1000 bytes_acked:1000 send 9.2Gbps delivery_rate 1.2Gbps minrtt:0.05
ESTAB  0      0        [::1]:22               [::1]:51234
     cubic rtt:0.5/0.25 send 4123200 delivery_rate 78104
LISTEN 0      128      *:29500                *:*
ESTAB  0      0        10.0.0.5%eth0:ssh      10.0.0.9:50022 cubic rtt:1.5/0.7 retrans:0/4 send 11.8Mbps
garbage line that is not ss
"""


def test_output_variants(tmp_path):
    rows, issues = sockets(tmp_path, VARIANTS)
    assert [(r["local_addr"], r["local_port"], r["peer_addr"], r["peer_port"], r["state"]) for r in rows] == [
        ("192.168.3.12", 37178, "192.168.5.15", 43603, "ESTAB"),
        ("::1", 22, "::1", 51234, "ESTAB"),
        ("*", 29500, "*", None, "LISTEN"),
        ("10.0.0.5", None, "10.0.0.9", 50022, "ESTAB"),  # service-name port (no -n): unknown port
    ]
    nccl, v6, listen, same_line = rows
    assert (nccl["pid"], nccl["send_q"], nccl["rtt_ms"], nccl["send_rate_bps"], nccl["delivery_rate_bps"]) == (4242, 305756, 0.078, pytest.approx(9.2e9), pytest.approx(1.2e9))
    assert (nccl["retrans_total"], nccl["bytes_retrans"], nccl["minrtt_ms"]) == (0, 0, 0.05)
    assert (v6["send_rate_bps"], v6["delivery_rate_bps"], v6["rtt_ms"]) == (4123200.0, 78104.0, 0.5)
    assert listen["rtt_ms"] is None and listen["retrans_total"] is None
    assert (same_line["rtt_ms"], same_line["retrans_total"], same_line["send_rate_bps"]) == (1.5, 4, pytest.approx(11.8e6))
    assert issues == {("exec:ss", "unrecognised ss line"): 1}


def test_state_filtered_output_without_state_column(tmp_path):
    text = "Recv-Q Send-Q Local Address:Port Peer Address:Port\n0      0      10.1.0.4:41000     10.1.0.7:29500\n\t cubic rtt:2/1 retrans:1/9\n"
    (row,), issues = sockets(tmp_path, text)
    assert (row["state"], row["local_addr"], row["peer_port"], row["retrans_current"], row["retrans_total"]) == (None, "10.1.0.4", 29500, 1, 9)
    assert not issues


def test_bad_ss_rows(tmp_path):
    rows = [
        ss_row(None, pod="gone", error="pod gone"),
        ss_row("", pod="nobinary", exit_code=127, stderr="sh: ss: not found"),
        ss_row("\x00\ufffd\ufffd binary junk \x7f\n" * 50, pod="junk"),
        ss_row("ESTAB 0 0 10.0.0.1:1", pod="truncated"),
    ]
    ctx, issues = derive(tmp_path, ss, exec=rows)
    assert ctx.table("tcp_samples").num_rows == 0
    counts = issue_counts(issues)
    assert counts == {
        ("exec:ss", "ss failed: pod gone"): 1,
        ("exec:ss", "ss exited with code 127"): 1,
        ("exec:ss", "unrecognised ss line"): 51,
    }
