"""``ss -tin`` output of training pods: NCCL socket flows between pod IPs and the TCPStore.

NCCL opens several parallel sockets per peer pair (NCCL_NSOCKS_PERTHREAD x NTHREADS) on
ephemeral ports; pods talk to their ring neighbours. Every rank also holds a TCPStore
connection to MASTER_PORT on the master pod. Fields follow iproute2 ``tcp_stats_print``:
optional ones (bytes_retrans, retrans, lost, notsent) are printed only when non-zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HEADER = "State      Recv-Q Send-Q     Local Address:Port       Peer Address:Port Process"


@dataclass
class Flow:
    """One TCP connection as seen from ``owner`` (a pod index)."""

    owner: int
    local_ip: str
    local_port: int
    peer_ip: str
    peer_port: int
    store: bool  # TCPStore (rendezvous) rather than a NCCL data socket


def _bw(bps: float) -> str:
    """iproute2 sprint_bw: one decimal and a K/M/G prefix."""
    if bps > 1e9:
        return f"{bps / 1e9:.1f}Gbps"
    if bps > 1e6:
        return f"{bps / 1e6:.1f}Mbps"
    if bps > 1e3:
        return f"{bps / 1e3:.1f}Kbps"
    return f"{bps:g}bps"


class SsModel:
    """Flows of every training pod and their cumulative counters."""

    def __init__(self, pods: list[tuple[str, int]], master_port: int, rng, nrng: np.random.Generator, nsocks: int):
        """``pods`` = (pod IP, ranks in the pod) in node-rank order."""
        self.flows: list[Flow] = []
        self.nrng = nrng
        n = len(pods)
        ports = lambda: rng.randrange(32768, 60999)  # noqa: E731 - ephemeral port
        peers: set[tuple[int, int]] = set()
        if n > 1:
            for i in range(n):
                j = (i + 1) % n
                if i != j:
                    peers.add((i, j))
        for i, j in sorted(peers):
            listen = ports()
            for _ in range(nsocks):
                src = ports()
                self.flows.append(Flow(i, pods[i][0], src, pods[j][0], listen, False))
                self.flows.append(Flow(j, pods[j][0], listen, pods[i][0], src, False))
        master_ip = pods[0][0]
        for i, (ip, ranks) in enumerate(pods):
            for _ in range(ranks):
                src = ports()
                self.flows.append(Flow(i, ip, src, master_ip, master_port, True))
                self.flows.append(Flow(0, master_ip, master_port, ip, src, True))
        f = len(self.flows)
        self.sent = nrng.uniform(1e8, 5e9, f).round()
        self.recv = nrng.uniform(1e8, 5e9, f).round()
        self.retrans_total = np.zeros(f, dtype=np.int64)
        self.base_rtt = nrng.uniform(0.04, 0.25, f)
        self.minrtt = self.base_rtt * nrng.uniform(0.3, 0.6, f)
        self.idle_ms = np.zeros(f)
        self.is_store = np.array([fl.store for fl in self.flows])
        self.by_owner: dict[int, list[int]] = {}
        for k, fl in enumerate(self.flows):
            self.by_owner.setdefault(fl.owner, []).append(k)

    def advance(self, dt_s: float, active: np.ndarray, bad: dict[str, float]) -> np.ndarray:
        """Step counters by ``dt_s``; ``active[pod]`` = training traffic; ``bad[ip]`` = RTT factor. Returns rtt."""
        r = self.nrng
        f = len(self.flows)
        owner_active = np.array([active[fl.owner] for fl in self.flows]) if f else np.zeros(0, bool)
        factor = np.ones(f)
        if bad:
            for k, fl in enumerate(self.flows):
                factor[k] = max(bad.get(fl.local_ip, 1.0), bad.get(fl.peer_ip, 1.0))
        degraded = factor > 1.0
        rate = np.where(self.is_store, 2e3, 1.2e9 / np.maximum(1.0, factor ** 0.5))
        moving = owner_active & (r.random(f) < 0.98)
        self.sent += np.where(moving, (rate * dt_s / 8 * r.uniform(0.8, 1.2, f)).round(), 0)
        self.recv += np.where(moving, (rate * dt_s / 8 * r.uniform(0.8, 1.2, f)).round(), 0)
        self.retrans_total += np.where(degraded & moving, r.integers(5, 60, f), np.where(r.random(f) < 0.002, 1, 0))
        self.idle_ms = np.where(moving, r.uniform(0, 8, f), self.idle_ms + dt_s * 1000)
        rtt = self.base_rtt * factor * r.uniform(0.8, 1.25, f)
        self.minrtt = np.minimum(self.minrtt, rtt)
        return rtt

    def render(self, owner: int, rtt: np.ndarray) -> str:
        """The ``ss -tin`` text of pod ``owner``."""
        lines = [HEADER]
        mss = 8948
        idx = self.by_owner.get(owner, [])
        if not idx:
            return HEADER + "\n"
        sent_l = self.sent[idx].astype(np.int64).tolist()
        recv_l = self.recv[idx].astype(np.int64).tolist()
        rtt_l = rtt[idx].tolist()
        retr_l = self.retrans_total[idx].tolist()
        idle_l = self.idle_ms[idx].astype(np.int64).tolist()
        min_l = self.minrtt[idx].tolist()
        for k, sent, recv, rt, retr, idle, mn in zip(idx, sent_l, recv_l, rtt_l, retr_l, idle_l, min_l):
            fl = self.flows[k]
            sendq = int(rt * 40000) if retr and not fl.store else 0
            lines.append(f"ESTAB      0      {sendq:<10} {fl.local_ip}:{fl.local_port:<10} {fl.peer_ip}:{fl.peer_port}")
            rate = mss * 8 * 64 / (rt / 1000)
            retrans = f" bytes_retrans:{retr * mss}" if retr else ""
            segs_out, segs_in = sent // mss, recv // mss
            tail = f" retrans:0/{retr} lost:{min(retr, 3)}" if retr else ""
            notsent = f" notsent:{sendq // 2}" if sendq else ""
            lines.append(
                f"\t cubic wscale:7,7 rto:{200 + int(rt) + 1} rtt:{rt:.3g}/{rt / 3:.3g} ato:40 mss:{mss} pmtu:9001 rcvmss:{mss} "
                f"advmss:{mss} cwnd:{10 if fl.store else 64 + k % 40} bytes_sent:{sent}{retrans} bytes_acked:{max(1, sent - sendq)} "
                f"bytes_received:{recv} segs_out:{segs_out + 3} segs_in:{segs_in + 2} data_segs_out:{segs_out} data_segs_in:{segs_in} "
                f"send {_bw(rate)} lastsnd:{idle} lastrcv:{idle} lastack:{idle} pacing_rate {_bw(2 * rate)} "
                f"delivery_rate {_bw(min(1e10, rate * 0.75))} delivered:{segs_out} busy:{sent // 1250000}ms{tail} "
                f"rcv_rtt:{rt * 1.1:.3g} rcv_space:65483 rcv_ssthresh:3145728{notsent} minrtt:{mn:.3g} snd_wnd:3145728"
            )
        return "\n".join(lines) + "\n"
