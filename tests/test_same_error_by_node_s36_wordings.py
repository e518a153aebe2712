"""Every rank raising one same exception, one node's ranks seconds before the other's, names no one (the thirty-sixth
launcher set's staggered control: an empty dataset's ``ValueError: num_samples should be a positive integer value, but
got num_samples=0`` on node 0's two ranks, then on node 1's 3 s later). Two readings made it name ranks: the first
second's ranks are every rank of one pod (``node_alike``: one node's fault) and named with the rest, though every rank of
the job failed alike (``all_raised``); and, imported without timestamps, node 1's c10 warning printed under rank 2's
exception line (``[W1202 12:13:50.664465599 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed …``) was glued to it as
a terminal's wrapped tail, turning rank 2's own exception into a store teardown. A line opening with its own glog/c10
clock is a record of its own, never a wrapped tail; a reading of one node's or some ranks' failure does not apply where
every rank failed alike (docs/rules.md, "Session 36: thirty-sixth launcher set"). Contrasts: node 0's ranks alone
raising while node 1's are torn down still name node 0's ranks; one rank's exception above a c10 warning stays its own.
Each case is two pods' logs (``node0.log``, ``node1.log``) through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 13, 0, tzinfo=dt.timezone.utc)
T0 = dt.datetime(2026, 12, 2, 12, 13, 43, 82571, tzinfo=dt.timezone.utc)
SAMPLER = "ValueError: num_samples should be a positive integer value, but got num_samples=0"
GLOO = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:5812. This is typically caused by a remote worker crashing. Check the logs of the remote worker.")
C10 = ("[W1202 12:13:50.664465599 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on SocketImpl(fd=3, "
       "addr=[::ffff:127.0.0.1]:40294, remote=[::ffff:127.0.0.1]:60179): Failed to recv, got 0 bytes. Connection was "
       "likely closed. Did the remote server shutdown or crash?")


def _at(s: float) -> str:
    return (T0 + dt.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")


def _raise(r: int, s: float, error: str = SAMPLER) -> list[tuple[float, str]]:
    return [(s, f"[rank{r}]: Traceback (most recent call last):"),
            (s, f'[rank{r}]:   File "/workspace/train.py", line 131, in main'),
            (s, f"[rank{r}]:     loader = DataLoader(dataset, batch_size=4, shuffle=True)"),
            (s, f'[rank{r}]:   File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/sampler.py", line 149, in __init__'),
            (s, f"[rank{r}]:     raise ValueError("), (s, f"[rank{r}]: {error}")]


def _start(ranks: list[int]) -> list[tuple[float, str]]:
    return [(-20.0, f"rank {r}/4 starting") for r in ranks] + [(-10.0 + i, f"rank {r} step {i} loss 0.0570")
                                                                for i in range(3) for r in ranks]


def _agent(s: float, local: int, pid: int) -> list[tuple[float, str]]:
    return [(s, "W1202 12:13:48.697000 21350 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process "
                f"{pid + 2} closing signal SIGTERM"),
            (s + 0.2, f"E1202 12:13:48.865000 21350 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
                      f"local_rank: {local} (pid: {pid}) of binary: /opt/venv/bin/python3")]


def _teardown(r: int, s: float) -> list[tuple[float, str]]:
    return [(s, f"[rank{r}]: Traceback (most recent call last):"),
            (s, f'[rank{r}]:   File "/workspace/train.py", line 136, in main'), (s, f"[rank{r}]:     dist.all_reduce(t)"),
            (s, f"[rank{r}]: {GLOO}")]


#: key: ([node 0's (seconds, line)s, node 1's], stamped, the ranks warning/critical findings name ([]: none))
CASES = {
    # the run: node 0's two ranks raise it, node 1's two 3 s later; node 1's agent then loses the store (c10's warning)
    "node0-then-node1-same-error-stamped": ([_start([0, 1]) + _raise(1, 0) + _raise(0, 0) + _agent(5.6, 0, 21390),
                                             _start([2, 3]) + _raise(3, 3) + _raise(2, 3) + [(7.5, C10)]], True, []),
    # the same imported without timestamps: the c10 warning under rank 2's exception line is no wrapped tail of it
    "node0-then-node1-same-error-plain": ([_start([0, 1]) + _raise(1, 0) + _raise(0, 0) + _agent(5.6, 0, 21390),
                                           _start([2, 3]) + _raise(3, 3) + _raise(2, 3) + [(7.5, C10)]], False, []),
    # contrast: node 0's two ranks raise it, node 1's ranks are torn down in their all-reduce: node 0's ranks named
    "node0-alike-node1-torn-down": ([_start([0, 1]) + _raise(1, 0) + _raise(0, 0) + _agent(5.6, 0, 21390),
                                     _start([2, 3]) + _teardown(3, 0.5) + _teardown(2, 0.6)], True, [0, 1]),
    # contrast: rank 2 alone raises, c10's store warning under its exception line, unstamped: rank 2 named
    "one-rank-error-above-c10-warning-plain": ([_start([0, 1]) + _teardown(0, 0.5) + _teardown(1, 0.6),
                                                _start([2, 3]) + _raise(2, 0, "KeyError: 'labels'") + [(0.1, C10)]
                                                + _teardown(3, 0.5)], False, [2]),
}
BATCHED = Batched("s36node", list(CASES))


def _make(key: str, folder: Path):
    from k10s_forensics.logimport import LogSource, import_logs

    nodes, stamped, _ = CASES[key]
    texts = ["".join((f"{_at(s)} {line}" if stamped else line) + "\n" for s, line in node) for node in nodes]
    sources = [LogSource(f"node{i}.log", t) for i, t in enumerate(texts)]
    return import_logs(sources, folder / "b", nproc_per_node=2, world_size=4, job="train", namespace="team-a", now=NOW,
                       derive=False)[0]


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_same_error_node_by_node_names_no_one(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert sorted({r for f in named for r in f["ranks"]}) == CASES[key][2], got
