"""The elastic launcher's own rendezvous failing, with no rank failing, is a finding of no rank (session 58; batch 344's
suggestion: a paste whose only content is that the job never rendezvoused used to read as nothing having failed). torch
elastic's agent raising ``RendezvousTimeoutError`` (the group did not form), ``RendezvousConnectionError`` (its store or
etcd unreachable), ``RendezvousStateError`` / ``RendezvousError`` is a warning naming no rank; ``RendezvousClosedError``
(another node's agent closed it) is info; the store's port in use on its host (c10d's server socket failing to bind,
``EADDRINUSE``, batch 353's suggestion) is a warning naming no rank (parsers/log_rendezvous.py; queries/rank_failure.sql, ``rendezvous``; docs/rules.md,
"Session 58: the launcher's rendezvous"). Contrasts: a rank's own error beside it names that rank and no rendezvous
finding is made; the agent's keep-alive log line naming the error type, a ``raise`` source line, and a graceful exit are
none. Pasted logs through ``k10s import-logs``, batched; torch's own run of a node that never starts (recorded with
PyTorch 2.13.0 and 2.14.1, tests/data/torch-runs) reads the same.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_rendezvous import raised
from torch_runs_kit import import_run, load_runs

NOW = dt.datetime(2026, 12, 6, 2, 0, tzinfo=dt.timezone.utc)
PKG = "torch.distributed.elastic.rendezvous.api."
FRAMES = ["Traceback (most recent call last):",
          '  File "/opt/conda/bin/torchrun", line 8, in <module>',
          "    sys.exit(main())",
          '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 680, in run',
          "    raise RendezvousTimeoutError"]
STORE = f"{PKG}RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details."
ETCD = f"{PKG}RendezvousConnectionError: The connection to etcd has failed. See inner exception for details."
KEEPALIVE = ("[W1206 02:00:01.000000 42 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1336] The node "
             "'host-1_42_0' has failed to send a keep-alive heartbeat to the rendezvous 'job-7' due to an error of type "
             "RendezvousConnectionError.")
BIND_NEW = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
            "port: 33649, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use")
BIND_OLD = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server "
            "socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind "
            "to 0.0.0.0:29500 (errno: 98 - Address already in use).")
BIND_WARNING = ("[W1206 02:00:00.000000000 socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 "
                "- Address already in use).")
#: a client that cannot connect is no bind failure
CONNECT = ("[W1206 02:00:00.000000000 socket.cpp:764] [c10d] The client socket has failed to connect to [localhost]:33649 "
           "(errno: 99 - Cannot assign requested address).")
RAISED = ["[rank1]: Traceback (most recent call last):", '[rank1]:   File "train.py", line 40, in <module>',
          "[rank1]: ValueError: shard 1 is empty"]

#: key: (the pasted lines, the rendezvous cause said (None: none), its severity, the rank a warning/critical finding names)
CASES = {
    "timeout-bare": ([*FRAMES, f"{PKG}RendezvousTimeoutError"], "rendezvous-timeout", "warning", None),
    # the agent's own log line before it (this case was test_rules_rank_failure's silent one before session 58)
    "timeout-after-failed-to-join": (["[E] 2025-02-13 12:07:20,086 torch.distributed.elastic.rendezvous.dynamic_rendezvous: "
                                      "The node 'gpu-1_870_0' has failed to join the rendezvous.", f"{PKG}RendezvousTimeoutError"],
                                     "rendezvous-timeout", "warning", None),
    "store-lost": ([*FRAMES[:3], STORE], "rendezvous-connection", "warning", None),
    "etcd": ([*FRAMES[:3], ETCD], "rendezvous-connection", "warning", None),
    "state": ([*FRAMES[:3], f"{PKG}RendezvousStateError: The rendezvous state is corrupt."], "rendezvous-state", "warning", None),
    "closed-bare": ([*FRAMES[:3], f"{PKG}RendezvousClosedError"], "rendezvous-closed", "info", None),
    # the error handler's record of the agent's exception (kubeflow/trainer#1638's wording)
    "closed-error-file": (['ERROR:torch.distributed.elastic.multiprocessing.errors.error_handler:{', '  "message": {',
                           '    "message": "RendezvousClosedError: ",'], "rendezvous-closed", "info", None),
    # a timeout on one node and a closed rendezvous on another (one log each, pasted together): the timeout is said
    "timeout-and-closed": ([f"{PKG}RendezvousClosedError", *FRAMES, f"{PKG}RendezvousTimeoutError"], "rendezvous-timeout",
                           "warning", None),
    # the store's port in use on its host (torch >= 2.3's wording; 2.0-2.2's, and c10d's warning before it)
    "port-in-use": ([*FRAMES[:3], BIND_NEW], "rendezvous-port-in-use", "warning", None),
    "port-in-use-old": ([BIND_WARNING, *FRAMES[:3], BIND_OLD], "rendezvous-port-in-use", "warning", None),
    # a port in use beside a timeout: the port is the telling one
    "port-in-use-and-timeout": ([BIND_NEW, f"{PKG}RendezvousTimeoutError"], "rendezvous-port-in-use", "warning", None),
    # contrasts: a rank's own failure beside it is the incident
    "rank-raised-then-closed": ([*RAISED, *FRAMES[:3], f"{PKG}RendezvousClosedError"], None, None, 1),
    # the agent's keep-alive line names the type, raises nothing; a source line; a node leaving on purpose
    "keepalive-line": ([KEEPALIVE], None, None, None),
    "raise-source-line": (FRAMES, None, None, None),
    "graceful-exit": ([*FRAMES[:3], f"{PKG}RendezvousGracefulExitError: node host-1 left"], None, None, None),
}
BATCHED = Batched("s58rdzv", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_the_launchers_rendezvous_failing_is_said_naming_no_rank(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    _, cause, severity, rank = CASES[key]
    assert_one_rank(naming_findings(findings), rank)
    said = [f for f in findings if (f["cause"] or "").startswith("rendezvous-")]
    shown = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    if cause is None:
        assert not said, shown
        return
    assert [(f["rule"], f["cause"], f["severity"], f["ranks"]) for f in said] == [("rank-failure", cause, severity, [])], shown
    assert "no rank is named" in said[0]["summary"].lower() and said[0]["recommendation"]


@pytest.mark.parametrize(("line", "want"), [
    (f"{PKG}RendezvousTimeoutError", ("timeout", None)),
    (f"[default0]:{PKG}RendezvousClosedError", ("closed", None)),
    (f"2026-12-06T02:00:00.000000Z {STORE}", ("connection", "The connection to the C10d store has failed. See inner exception for details.")),
    ("RendezvousError: no quorum", ("error", "no quorum")),
    ('    "message": "RendezvousClosedError: ",', ("closed", None)),
    ("    raise RendezvousClosedError", None),
    (KEEPALIVE, None),
    (BIND_NEW, ("port-in-use", "port 33649")),
    (BIND_OLD, ("port-in-use", "port 29500")),
    (BIND_WARNING, ("port-in-use", "port 29500")),
    (CONNECT, None),
    (f"{PKG}RendezvousGracefulExitError", None),
])
def test_the_rendezvous_exception_line(line, want):
    assert raised(line) == want


@pytest.mark.parametrize("version", ["2.13.0", "2.14.1"])
def test_torchs_own_node_that_never_starts(version):
    (run,) = [r for r in load_runs() if r.name == "torchrun-node-never-starts" and r.version == version]
    with tempfile.TemporaryDirectory() as tmp:
        findings = analyze(import_run(run, Path(tmp)))["findings"]
    assert [(f["rule"], f["cause"], f["severity"], f["ranks"]) for f in findings] == [
        ("rank-failure", "rendezvous-timeout", "warning", [])]
    assert "join_timeout" in findings[0]["recommendation"]
