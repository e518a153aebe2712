"""The twenty-seventh set of recorded runs (held out when recorded): launchers users write around torch's own
(``elastic_launch(LaunchConfig(…), sys.executable)("-u", script)`` called from a user's script: a SCRIPT entrypoint, the
eleventh set's had a function; ``torch.distributed.run.main([…])`` from a wrapper that catches ``ChildFailedError`` and
logs it), an elastic ``--nnodes 1:2`` job that loses its second node, re-forms at one node and then fails on a rank of
its own, a rank that logs its exception with ``logging.exception`` to stdout and exits 1 (no traceback on stderr), a rank
that hangs at interpreter exit (a non-daemon thread, no ``destroy_process_group``) while its peers end well (the job's
deadline SIGTERMs both agents), ``torch.distributed.breakpoint()`` left in (rank 0 in pdb on a closed stdin, its peers in
its barrier), two agents of different torch versions in one job (2.13.0 beside 2.14.1) with a ``KeyError`` on the other
version's node; a control: every rank's ``IndexError`` on the same global batch (a token id past the vocabulary).
Imported by torch_scenarios.py (its ``S`` builds each one); the programs: tests/tools/t27_worker.py, t27_launch.py.
Launch styles: ``t27run`` (torch_scenarios11's ``torchrun``, this set's program; ``mixed``: node 1's torchrun from the
venv in ``K10S_MIXED_BIN``, the other torch version), ``t27api`` (``python t27_launch.py api …``), ``t27main``
(``python t27_launch.py run-main <torchrun's arguments>``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t27_worker.py")
LAUNCH = str(HERE / "t27_launch.py")
LAUNCHERS = ("t27run", "t27api", "t27main")


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t27run"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    return [
        # elastic_launch from the user's script, a script entrypoint: rank 2 (node 1, local 0) raises KeyError
        S("t27-api-2x2-script-keyerror-rank2", fault="keyerror", rank=2, cause="python-exception", env=short,
          launcher="t27api"),
        # a wrapper calling torch.distributed.run.main, catching ChildFailedError and logging it: rank 1 segfaults
        S("t27-runmain-2x2-segfault-rank1", fault="segfault", rank=1, cause="segfault", env=short, launcher="t27main"),
        # --nnodes 1:2 --max-restarts 1: node 1 (agent and workers) killed 1.5 s in; node 0 re-forms alone (world 2) and
        # its rank 1 raises KeyError in that attempt: the job's failure is rank 1's (the lost node is an outside kill)
        {**S("t27-trun-elastic-1to2-scale-down-keyerror-rank1", fault="late-keyerror", rank=1, cause="python-exception",
             kill_node=True, steps=60, env=short, opts=["--max-restarts", "1"], **tr),
         "nnodes": "1:2", "rdzv_conf": "join_timeout=15,last_call_timeout=2", "layout_nodes": 1},
        # rank 3 logs its FileNotFoundError with logging.exception to stdout, then sys.exit(1)
        S("t27-trun-2x2-logging-exception-stdout-rank3", fault="log-exit", rank=3, cause="python-exception", env=short, **tr),
        # rank 2 hangs at interpreter exit (a non-daemon thread, no destroy_process_group); its peers end with status 0;
        # the job's deadline SIGTERMs both agents 15 s after the start: rank 2 is the one process still running
        S("t27-trun-2x2-exit-hang-nondaemon-rank2", fault="exit-hang", rank=2, cause="never-joined", env=short,
          preempt_s=15, **tr),
        # torch.distributed.breakpoint(rank=0) left in at step 3: rank 0's pdb reads a closed stdin (BdbQuit)
        S("t27-trun-2x2-dist-breakpoint-rank0", fault="dist-breakpoint", rank=0, cause="python-exception", env=short, **tr),
        # node 1's agent and workers from the other torch version (K10S_MIXED_BIN): rank 3 raises KeyError
        {**S("t27-mixed-2x2-versions-keyerror-rank3", fault="keyerror", rank=3, cause="python-exception", env=short, **tr),
         "mixed": True},
        # control: every rank's batch holds the same out-of-vocabulary id at step 3 (IndexError alike)
        S("t27-trun-2x2-common-mode-index-error", fault="index-error", rank=-1, culprits=[], env=short, **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: torch_scenarios11's ``torchrun`` with this set's program, or this set's own launchers."""
    env = ["env", f"PYTHONPATH={HERE}"]
    if sc["launcher"] == "t27api":
        return [[*env, sys.executable, LAUNCH, "api", str(sc["agents"]), str(sc["nproc"]), f"127.0.0.1:{port}", sc["name"],
                 WORKER] for _ in range(sc["agents"])]
    cmds = [[WORKER if p == t11.WORKER else p for p in cmd]
            for cmd in t11.commands({**sc, "launcher": "t11run"}, opts, port)]
    if sc["launcher"] == "t27main":
        return [[*env, sys.executable, LAUNCH, "run-main", *cmd[3:]] for cmd in cmds]
    if sc.get("mixed"):  # node 1 (the second started) runs the other torch version's torchrun
        cmds[1][2] = str(Path(os.environ["K10S_MIXED_BIN"]) / "torchrun")
    return cmds


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part == WORKER:
        return "t27_worker.py"
    return "t27_launch.py" if part == LAUNCH else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
