"""The twenty-fifth set of recorded runs (held out when recorded): a rank hung before its step's collectives while
every rank dumps its stacks on SIGTERM (``faulthandler.register(SIGTERM, chain=True)``, ``PYTHONFAULTHANDLER=1``), a
rank that reports its error only through the ``TORCHELASTIC_ERROR_FILE`` it writes itself (no traceback printed),
``torchrun --run-path`` (the program run by runpy in spawned worker processes: a function entrypoint) with ``--role
trainer`` and a ``KeyError``, and with a segfault under ``--tee 3``; controls: every rank writing the same error file,
both agents SIGTERMed (a preemption) while every rank dumps its stacks, and a node started with ``--rdzv-backend
static`` beside one started with ``c10d`` on the same endpoint (a misconfiguration: no rank ever runs on node 1).
Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t25_worker.py. Launch styles:
``t25run`` (torch_scenarios17's ``torchrun``, this set's program), ``t25mixed`` (node 0 static, node 1 c10d).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11
import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t25_worker.py")
LAUNCHERS = ("t25run", "t25mixed")


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t25run"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    dumps = {**short, "K10S_DUMP_ON_SIGTERM": "1", "PYTHONFAULTHANDLER": "1"}
    return [
        # rank 2 (node 1's local rank 0) sleeps before its step's collectives; its peers time out in gloo; the agents
        # SIGTERM what is left, and each rank still alive prints its threads' stacks (rank 2's in its sleep)
        S("t25-trun-2x2-faulthandler-hang-rank2", fault="hang", rank=2, cause="never-joined", env=dumps, **tr),
        # rank 3's only report is the error file it wrote (torchrun's failure table: its message as the traceback)
        S("t25-trun-2x2-user-error-file-rank3", fault="error-file", rank=3, cause="python-exception", env=short, **tr),
        # --run-path: the agent spawns each worker as a function (runpy); rank 2 (node 1's local rank 0) raises
        S("t25-trun-2x2-role-run-path-keyerror-rank2", fault="keyerror", rank=2, cause="python-exception", env=short,
          opts=["--role", "trainer", "--run-path"], **tr),
        S("t25-trun-2x2-run-path-segfault-rank1", fault="segfault", rank=1, cause="segfault", env=short,
          opts=["--run-path", "--tee", "3"], **tr),
        # controls: no rank may be named
        S("t25-trun-2x2-common-mode-user-error-file", fault="error-file", rank=-1, culprits=[], env=short, **tr),
        # both agents SIGTERMed 1.5 s into training (a preemption); each forwards SIGTERM, each rank dumps its stacks
        S("t25-trun-2x2-faulthandler-preempted-sigterm", culprits=[], steps=40, preempt_s=1.5, env=dumps, **tr),
        # node 0: --rdzv-backend static (it hosts the store on the master port); node 1: c10d on that endpoint
        S("t25-mixed-static-c10d-rdzv-mismatch", culprits=[], env=short, launcher="t25mixed"),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: the seventeenth set's ``torchrun`` with this set's program, or (``t25mixed``) node 0
    with the static rendezvous and node 1 with c10d on the same address and port."""
    cmds = [[WORKER if p == t17.WORKER else p for p in cmd] for cmd in t17.commands({**sc, "launcher": "t17run"}, opts, port)]
    if sc["launcher"] == "t25mixed":
        head = ["env", f"PYTHONPATH={HERE}", str(t11.BIN / "torchrun"), "--nnodes", "2", "--nproc-per-node", str(sc["nproc"])]
        tail = ["--monitor-interval", "0.5", *opts, "--max-restarts", "0", WORKER]
        static = ["--node-rank", "0", "--rdzv-backend", "static", "--master-addr", "127.0.0.1", "--master-port", port,
                  "--rdzv-conf", "timeout=15"]
        c10d = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"], "--rdzv-conf",
                "join_timeout=15"]
        cmds = [[*head, *static, *tail], [*head, *c10d, *tail]]
    return cmds


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t25_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
