"""An InfiniBand adapter's own fatal device event as NCCL's IB async thread reports it (real incidents batch 145,
NVIDIA/nccl#230: Open MPI ranks 12, 13 and 14, all on one host, log ``NET/IB : Got async event : local catastrophic
error`` within 4 ms). ``local catastrophic error`` is verbs' IBV_EVENT_DEVICE_FATAL: the reporting host's HCA failed,
not a peer or a link, so the ranks on that one host that report it together are the culprits (nccl-error). A port's
event (``port error``: the link, either end), a queue pair's (``local work queue catastrophic error``, ``local access
violation work queue error``) and the device event on several hosts at once name no one (docs/rules.md, "Session 32:
batch 145"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.timezone.utc)
HOST = "container-e275-1553839402050-12124-01-000057"


def _mpirun(
    rank: int,
    host: str,
    pid: int,
    dev: int,
    msg: str,
    ts: str = "2019-06-02T16:13:44.884Z: ",
) -> list[str]:
    tag = f"{ts}[1,{rank}]<stdout>:"
    return [f"{tag}{host}:{pid}:{pid + 50} [{dev}] {msg}", f"{tag}"]


OLD = "transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : {ev}"
NEW = "transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_2:1 Got async event : {ev}"
FATAL = "transport/net_ib.cc:154 NCCL WARN NET/IB : mlx5_0:1 async fatal event: {ev}"
FAILED = "misc/ibvwrap.cu:220 NCCL WARN Call to ibv_get_async_event failed"


def _host_lines(
    ranks: dict[int, str], fmt: str, ev: str, ts: str = "2019-06-02T16:13:44.884Z: "
) -> list[str]:
    out: list[str] = []
    for i, (r, host) in enumerate(ranks.items()):
        out += _mpirun(r, host, 812 + i, 0, fmt.format(ev=ev), ts) + _mpirun(
            r, host, 812 + i, 0, FAILED, ts
        )
    return out


ONE_HOST = {12: HOST, 14: HOST, 13: HOST}
#: key: (the pasted lines, the ranks the warning/critical findings must name together: [] for none)
CASES = {
    # nccl-230's shape: NCCL <= 2.18's wording, three ranks of one host, timestamped mpirun tags
    "old-wording-one-host": (
        _host_lines(ONE_HOST, OLD, "local catastrophic error"),
        [12, 13, 14],
    ),
    # NCCL 2.19+ names the device and port; no timestamps
    "device-port-wording": (
        _host_lines({4: "node7", 5: "node7"}, NEW, "local catastrophic error", ts=""),
        [4, 5],
    ),
    # NCCL 2.2x's fatal-event wording
    "async-fatal-wording": (
        _host_lines(
            {9: "gpu-b", 10: "gpu-b", 11: "gpu-b"},
            FATAL,
            "local catastrophic error",
            ts="",
        ),
        [9, 10, 11],
    ),
    # the paste quoted in a markdown block
    "quoted-paste": (
        ["> " + x for x in _host_lines(ONE_HOST, OLD, "local catastrophic error")],
        [12, 13, 14],
    ),
    # the hosts and pids masked as users mask them: the ranks' one pod stands for their host
    "masked-host": (
        [
            x.replace(HOST, "[REDACTED]")
            for x in _host_lines(ONE_HOST, OLD, "local catastrophic error")
        ],
        [12, 13, 14],
    ),
    # contrasts: a port's event (the link, either end) ...
    "port-error-one-host": (_host_lines(ONE_HOST, OLD, "port error"), []),
    # ... a queue pair's fatal events ...
    "qp-catastrophic-one-host": (
        _host_lines(ONE_HOST, NEW, "local work queue catastrophic error", ts=""),
        [],
    ),
    "qp-access-violation-one-host": (
        _host_lines(ONE_HOST, NEW, "local access violation work queue error", ts=""),
        [],
    ),
    # ... and the device event on two hosts at once: no one host's fault
    "device-fatal-two-hosts": (
        _host_lines({0: "node-a", 8: "node-b"}, OLD, "local catastrophic error"),
        [],
    ),
}
BATCHED = Batched("b145", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hca_fatal_event_names_its_hosts_ranks(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    want = CASES[key][1]
    if not want:
        assert named == [], got
    else:
        assert named and all(f["ranks"] == want for f in named), got
        assert any(f["cause"] == "nccl-error" for f in named), got
