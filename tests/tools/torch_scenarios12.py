"""The twelfth set of recorded runs (held out when recorded): faults and launcher situations the first eleven lack.
An object collective whose unpickling fails on one rank (``broadcast_object_list``, a class the rank's older build
lacks), a failure whose node-mate ignores SIGTERM (the agent escalates to SIGKILL after ``--shutdown-timeout``),
a segfault after ``destroy_process_group`` of a finished run, a user ``TCPStore`` key wait timing out on one rank,
``TORCH_CPP_LOG_LEVEL=INFO`` / ``TORCH_DISTRIBUTED_DEBUG=INFO`` and ``LOGLEVEL=DEBUG`` chatter around real faults,
``os._exit(1)`` with no word, a rank whose data runs out a step before its peers', ``dist.gather`` misused on a
non-destination rank, a node whose image lacks a module, ``--rdzv-backend static`` with a node given the wrong
``--nnodes``, the master port already taken on the store host, and controls (every rank alike, a clean run with
printed handled tracebacks, the store host's agent SIGTERMed, a node lost under ``--max-restarts``). Imported by
torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t12_worker.py. Launch styles: ``t12run``
(the ``torchrun`` script, c10d rendezvous: torch_scenarios11's command with this set's program), ``t12static``
(``--rdzv-backend static`` with ``--node-rank``; ``nnodes_per_node`` may give a node another ``--nnodes``,
``port_taken`` makes another listener hold the master port first).
"""

from __future__ import annotations

import socket
from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t12_worker.py")
LAUNCHERS = ("t12run", "t12static")
_HELD: list[socket.socket] = []  # listeners holding a master port for the rest of the recording


def scenarios(S) -> list[dict]:
    tr, st = {"launcher": "t12run"}, {"launcher": "t12static"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    chatter = {**short, "TORCH_CPP_LOG_LEVEL": "INFO", "TORCH_DISTRIBUTED_DEBUG": "INFO"}
    return [
        S("t12-trun-bcast-unpickle-rank2", fault="bcast-unpickle", rank=2, cause="python-exception", env=short, **tr),
        S("t12-trun-keyerror-mate-ignores-sigterm-rank1", fault="ignore-term", rank=1, cause="python-exception",
          env={**short, "K10S_STUBBORN_RANK": "0"}, **tr),
        S("t12-trun-teardown-segfault-rank1", fault="teardown-segv", rank=1, cause="segfault", env=short, opts=tee, **tr),
        S("t12-trun-store-key-timeout-rank3", fault="key-timeout", rank=3, cause="python-exception", env=short, **tr),
        S("t12-trun-c10d-info-sigkill-rank3", fault="sigkill", rank=3, cause="host-oom-kill", env=chatter, **tr),
        S("t12-trun-loglevel-debug-segfault-rank2", fault="segfault", rank=2, cause="segfault", env={**short, "LOGLEVEL": "DEBUG"}, **tr),
        S("t12-trun-os-exit1-rank1", fault="os-exit1", rank=1, cause="exit-1", env=short, opts=tee, **tr),
        S("t12-trun-exit0-late-rank3", fault="exit0-late", rank=3, cause="never-joined", step=4, env=short, **tr),
        S("t12-trun-gather-not-dst-rank2", fault="gather-dst", rank=2, cause="python-exception", env=short, opts=tee, **tr),
        S("t12-trun-node1-import-error", fault="import-error", rank=-2, culprits=[2, 3], cause="python-exception",
          env={**short, "K10S_FAULT_RANKS": "2,3"}, **tr),
        # controls: no rank may be named
        # node 1's agent told ``--nnodes 3``: every rank trains and finishes (torch gives the ranks out by the agents that
        # came), then both agents wait in the exit barrier until the pods are deleted (the recorder's limit): no rank's fault
        {**S("t12-static-nnodes-mismatch-node1", culprits=[], env=short, opts=["--rdzv-conf", "timeout=10"], **st),
         "nnodes_per_node": ["2", "3"]},
        {**S("t12-static-port-taken-store-host", culprits=[], env=short, opts=["--rdzv-conf", "timeout=10"], **st), "port_taken": True},
        S("t12-trun-common-mode-import-error", fault="import-error", rank=-1, culprits=[], env=short, **tr),
        S("t12-trun-common-mode-os-exit1", fault="os-exit1", rank=-1, culprits=[], env=short, **tr),
        S("t12-trun-clean-printed-traceback-chatter", fault="printed-tb", rank=2, culprits=[], env=chatter, opts=tee, **tr),
        {**S("t12-trun-store-host-agent-sigterm", culprits=[], steps=60, preempt_s=1.5, env=short, **tr), "preempt_node": 0},
        {**S("t12-trun-node1-lost-restarts", culprits=[], kill_node=True, steps=60, env=short, opts=["--max-restarts", "1"], **tr),
         "kill_agent": 1},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line (``env`` first: the worker's own settings)."""
    if sc["launcher"] == "t12run":
        return [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in t11.commands(sc, opts, port)]
    if sc.get("port_taken"):  # another program listens on the master port before the job starts
        held = socket.socket()
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("127.0.0.1", int(port)))
        held.listen(8)
        _HELD.append(held)
    nnodes = sc.get("nnodes_per_node") or [str(sc["agents"])] * sc["agents"]
    return [["env", f"PYTHONPATH={HERE}", str(t11.BIN / "torchrun"), "--nnodes", nodes, "--node-rank", str(i), "--nproc-per-node",
             str(sc["nproc"]), "--rdzv-backend", "static", "--master-addr", "127.0.0.1", "--master-port", port, "--monitor-interval",
             "0.5", *opts, "--max-restarts", "0", WORKER] for i, nodes in enumerate(nnodes)]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t12_worker.py" if part == WORKER else t11.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
