"""The third set of recorded torchrun runs (held out when recorded): launchers, faults and
output that the first two sets lack. Imported by torch_scenarios.py (its ``S`` builds each one).

New launch styles (``launcher``): ``torchrun-bin`` (the ``torchrun`` script, c10d rendezvous),
``standalone`` (``torchrun --standalone``, one node), ``static`` (``--rdzv-backend static`` with
``--master-addr/--master-port`` and ``--node-rank``), ``elastic`` (``--nnodes 1:2``: the second
agent starts ``gap_s`` later and joins a running job, which restarts its workers). ``preempt_s``:
that many seconds after every node started, SIGTERM to each agent (a pod eviction).
"""

from __future__ import annotations

import sys
from pathlib import Path

TORCHRUN = str(Path(sys.executable).parent / "torchrun")
LAUNCHERS = ("torchrun-bin", "standalone", "static", "elastic")
CHATTY = {"LOGLEVEL": "INFO", "TORCH_CPP_LOG_LEVEL": "INFO", "K10S_LOGGING": "1"}


def scenarios(S) -> list[dict]:
    return [
        S("t3-record-exception", launcher="torchrun-bin", fault="exception", rank=2, cause="python-exception",
          env={"K10S_RECORD": "1"}),
        S("t3-record-valueerror-2x3-tee", launcher="torchrun-bin", fault="valueerror", rank=4, cause="python-exception", nproc=3,
          env={"K10S_RECORD": "1"}, opts=["--tee", "3"]),
        S("t3-standalone-os-exit7", launcher="standalone", fault="os-exit7", rank=1, cause="exit-7", nproc=4, agents=1),
        S("t3-static-sys-exit3", launcher="static", fault="exit3", rank=3, cause="exit-3"),
        S("t3-static-sigill-rank0", launcher="static", fault="sigill", rank=0, cause="sigill", opts=["--tee", "3"]),
        S("t3-sigterm-one-rank", fault="sigterm-outside", rank=1, cause="sigterm"),
        S("t3-faulthandler-segfault", launcher="torchrun-bin", fault="segfault", rank=2, cause="segfault",
          env={"K10S_FAULTHANDLER": "1"}, opts=["--tee", "3"]),
        S("t3-dataloader-worker-killed", fault="dataloader-kill", rank=1, cause="host-oom-kill"),
        S("t3-lagging-rank-barrier", fault="lag", rank=2, cause="never-joined", env={"K10S_COLLECTIVE": "barrier"}),
        S("t3-raise-others-in-barrier-logging", fault="valueerror", rank=1, cause="python-exception",
          env={"K10S_COLLECTIVE": "barrier", **CHATTY}),
        S("t3-memoryerror-rlimit", launcher="torchrun-bin", fault="memoryerror", rank=3, cause="host-oom"),
        S("t3-2x3-sigfpe-node1-last-cppstack", fault="sigfpe", rank=5, cause="sigfpe", nproc=3,
          env={"TORCH_SHOW_CPP_STACKTRACES": "1"}),
        # controls: no rank may be named
        S("t3-elastic-late-join", launcher="elastic", culprits=[], steps=40, gap_s=7.0),  # the workers' restart for the new node
        S("t3-clean-userwarnings-logging", launcher="torchrun-bin", env={"K10S_WARN": "1", **CHATTY}),
        S("t3-common-mode-valueerror", fault="valueerror", rank=-1, culprits=[]),
        S("t3-preempted-sigterm-agents", launcher="torchrun-bin", culprits=[], steps=60, preempt_s=3.0),
    ]


def commands(sc: dict, opts: list[str], port: str, worker: str) -> list[list[str]]:
    """The agents' command lines for the launch styles above."""
    n, py = str(sc["nproc"]), sys.executable
    tail = ["--nproc-per-node", n, "--monitor-interval", "0.5", *opts]
    if "--max-restarts" not in opts:
        tail += ["--max-restarts", "0"]
    if sc["launcher"] == "standalone":
        return [[TORCHRUN, "--standalone", "--nnodes", "1", *tail, worker]]
    if sc["launcher"] == "static":
        return [[TORCHRUN, "--nnodes", str(sc["agents"]), "--node-rank", str(i), "--rdzv-backend", "static",
                 "--master-addr", "127.0.0.1", "--master-port", port, *tail, worker] for i in range(sc["agents"])]
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"]]
    if sc["launcher"] == "elastic":
        return [[py, "-m", "torch.distributed.run", "--nnodes", f"1:{sc['agents']}", *rdzv,
                 "--rdzv-conf", "join_timeout=20,last_call_timeout=1", *tail, worker] for _ in range(sc["agents"])]
    return [[TORCHRUN, "--nnodes", str(sc["agents"]), *rdzv, "--rdzv-conf", "join_timeout=8", *tail, worker]
            for _ in range(sc["agents"])]
