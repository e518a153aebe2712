"""The newest NCCL and PyTorch diagnostics (issue 18, batch 106): what they say of one rank, and what they do not.

Batch 106 (NCCL RAS crashes hit by an outside ``ncclras`` query, NET/IB ``status=12``/``status=5`` on one host, the
IB transport's ``collective mismatch error`` of a misconfigured job, the c10d heartbeat monitor on every TP rank) was
read right as collected, no rule or parser changed. These pin the shapes and their nearest variants, so a later change
cannot start naming a rank where they name none:

* **One host's IB completion errors name no one**, even where the paste maps the reporting process to its rank (NCCL's
  ``comm … rank 36 nranks 64 … Init COMPLETE``) or the rank's watchdog relays it as ``ncclRemoteError`` with the
  ``Last error:`` line: the NIC saw the peer unreachable; either end, or the switch, may be at fault.
* **The IB transport's collective size mismatch** (``NET/IB : req 0/1 … collective mismatch error, local size … remote
  size …``) with the reporter's rank known is a disagreement between two hosts, not that rank's wrong collective.
* **The c10d heartbeat monitor on every rank** (``Heartbeat monitor timed out!``, ``First PG on this rank that detected
  no heartbeat of its watchdog.``) in one millisecond names no one, whichever rank printed first.
* **An unranked process's fatal signal beside RAS's listening lines** (Open MPI's ``*** Process received signal ***``
  banner, libnccl frames) and **several ranks' TCPStore clients losing the store server** name no one.
* And the diagnostic that does name a rank keeps naming it: the Flight Recorder analyzer's ``missing ranks: {r}``
  (``Not all ranks joining collective``), alone or beside other ranks' heartbeat-monitor timeouts.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.timezone.utc)
HOST = "hostname-test"
IB12 = ("ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 172.36.143.59<44206> with status=12 opcode=129 "
        "len=65536 vendor err 129 (Recv) localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221")
UNWIND = ["NCCL INFO transport/net.cc:1298 -> 6", "NCCL INFO proxy.cc:694 -> 6", "NCCL INFO proxy.cc:874 -> 6 [Progress Thread]"]


def _init(pid: int, dev: int, rank: int, world: int) -> str:
    return (f"{HOST}:{pid}:{pid + 273} [{dev}] NCCL INFO comm 0x557fe785f7a0 rank {rank} nranks {world} cudaDev {dev} "
            f"nvmlDev {dev} busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE")


def _ib_one_host(rank: int, relayed: bool) -> list[str]:
    """Process ``980 + dev`` of rank ``rank`` (device ``rank % 8``) and three siblings; its IB completion error."""
    dev = rank % 8
    pid = 980 + dev
    lines = [_init(980 + d, d, rank - dev + d, 64) for d in range(4)] + [_init(pid, dev, rank, 64)]
    lines += [f"{HOST}:{pid}:1357 [{dev}] {IB12}"] + [f"{HOST}:{pid}:1357 [{dev}] {u}" for u in UNWIND]
    if relayed:
        tag = f"[rank{rank}]:"
        lines += [f"{tag}[E1201 07:00:01.000000000 ProcessGroupNCCL.cpp:2023] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
                  "Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a "
                  "network error, NCCL version 2.27.3",
                  f"{tag} ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                  f"{tag} Last error:", f"{tag} {IB12.split('NCCL WARN ')[1]}"]
    return lines


def _ib_mismatch(rank: int) -> list[str]:
    pre = "10.10.23.10: so-ucloud-10-10-23-10:1307367"
    return [f"{pre}:1307367 [0] NCCL INFO comm 0x55aa rank {rank} nranks 16 cudaDev 0 busId 18000 - Init COMPLETE",
            f"{pre}:1307586 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer 10.10.23.6<58683> collective "
            "mismatch error, local size 496640 remote size 65536"] + [
            f"{pre}:1307586 [0] NCCL INFO {s}" for s in ("include/net.h:32 -> 5", "transport/net.cc:890 -> 5",
                                                        "proxy.cc:520 -> 5", "proxy.cc:684 -> 5 [Proxy Thread]")]


def _heartbeat(rank: int, first: bool) -> list[str]:
    pre = f"[rank{rank}]:[E1201 07:04:03.35{rank}947152 ProcessGroupNCCL.cpp:16{{line}}] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
    out = [pre.format(line=35) + "First PG on this rank that detected no heartbeat of its watchdog."] if first else []
    return out + [pre.format(line=73) + "Heartbeat monitor timed out! Process will be terminated after dumping debug info. "
                  "workMetaList_.size()=37"]


def _heartbeats(ranks: tuple[int, ...], first: tuple[int, ...] = ()) -> list[str]:
    return [line for r in ranks for line in _heartbeat(r, r in first)]


def _ras_signal() -> list[str]:
    out = [f"rtptest162{h}:{p}:{p + 1583} [0] NCCL INFO RAS client listening socket at ::1<28028>" for h, p in ((0, 935572), (1, 405884))]
    sig = "[rtptest1621:405884]"
    return out + [f"{sig} {s}" for s in ("*** Process received signal ***", "Signal: Segmentation fault (11)",
                                          "Signal code: Address not mapped (1)", "Failing at address: 0x48",
                                          "[ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f1c2c842520]",
                                          "[ 1] /usr/lib/x86_64-linux-gnu/libnccl.so.2(+0x120057)[0x7f1bd18c1057]",
                                          "*** End of error message ***")]


def _store_lost(ranks: tuple[int, ...]) -> list[str]:
    return [f"[rank{r}]:[W703 01:01:05.36483{i}151 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on SocketImpl(fd=90, "
            f"addr=[cw-h100-220-0{i}7]:43518, remote=[cw-h100-192-053]:56789): Failed to recv, got 0 bytes. Connection was "
            "likely closed. Did the remote server shutdown or crash?" for i, r in enumerate(ranks)]


def _fr_missing(rank: int, world: int) -> list[str]:
    return ["Not all ranks joining collective: sequence number: 31117", "internal record id: 31116",
            "group info: 0:default_pg", "collective: nccl:all_reduce", f"missing ranks: {{{rank}}}",
            "input sizes: [[1571911]]", "output sizes: [[1571911]]", f"world size: {world}",
            "expected ranks: {" + ", ".join(str(r) for r in range(world)) + "}", "collective state: scheduled"]


BUILD = {
    "ib_one_host": _ib_one_host,
    "ib_mismatch": _ib_mismatch,
    "heartbeats": _heartbeats,
    "ras_signal": _ras_signal,
    "store_lost": _store_lost,
    "fr_missing": _fr_missing,
    "fr_beside_heartbeats": lambda rank, world: _heartbeats(tuple(r for r in range(world) if r != rank)) + _fr_missing(rank, world),
}
CONTROLS = [("ib_one_host", 36, False), ("ib_one_host", 36, True), ("ib_one_host", 3, True), ("ib_mismatch", 8),
            ("heartbeats", (0, 1, 3, 2), (3,)), ("heartbeats", (3, 0), (3,)), ("heartbeats", (6, 7, 0, 1), (6, 7)),
            ("ras_signal",), ("store_lost", (101, 57))]
CULPRITS = {("fr_missing", 3, 8): 3, ("fr_beside_heartbeats", 2, 4): 2}
BATCHED = Batched("newest-diag-batch106", CONTROLS + list(CULPRITS))


def _make(key: tuple, folder: Path) -> object:
    return pasted(BUILD[key[0]](*key[1:]), folder, None, NOW)


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_the_newest_diagnostics_of_a_shared_fault_name_no_one(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), None)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_the_flight_recorders_missing_rank_is_still_named(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), CULPRITS[key], "never-joined")


def test_the_variants_keep_their_shape():
    """The builders change ranks and companions, not the wordings the tests are about."""
    one = "\n".join(_ib_one_host(36, True))
    assert "comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4" in one and one.count("status=12 opcode=129") == 2
    assert "[rank36]: Last error:" in one and "[rank36]: NET/IB : Got completion from peer" in one
    assert "rank 8 nranks 16" in "\n".join(_ib_mismatch(8))
    hb = _heartbeats((3, 0), (3,))
    assert hb[0].endswith("First PG on this rank that detected no heartbeat of its watchdog.") and len(hb) == 3
    assert "[PG ID 0 PG GUID 0(default_pg) Rank 0] Heartbeat monitor timed out!" in hb[2]
    assert len(_store_lost((101, 57))) == 2 and "missing ranks: {2}" in BUILD["fr_beside_heartbeats"](2, 4)
