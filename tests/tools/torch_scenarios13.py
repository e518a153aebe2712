"""The thirteenth set of recorded runs (held out when recorded): collective shapes, faults and launcher situations
the first twelve lack. A mixture-of-experts dispatch (``all_to_all_single``) with a rank hung before it, with a rank
whose split sizes are off by one, and with a whole node lost in it; a 2-D ``DeviceMesh`` (``dp`` x ``tp``) whose
rank dies inside its ``tp`` group; gloo given a float64 gradient on one rank; a ``dist.barrier()`` only rank 0 calls;
a metrics group (``dist.new_group``) one rank skips; a fault only on the first attempt of a restarted job that then
finishes; a ``breakpoint()`` left in the code (pdb on a closed stdin: ``BdbQuit``); a ``BrokenPipeError`` from a
metrics sink; an exception amid carriage-return progress bars; and controls (the legacy launcher without
``--use-env`` on a script whose ``argparse`` has no ``--local-rank``, every rank's NaN loss check, a clean run with
progress bars and a skipped NaN batch, both agents sent SIGHUP, the node lost in the MoE dispatch). Imported by
torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t13_worker.py. Launch styles: ``t13run``
(the ``torchrun`` script, c10d rendezvous: torch_scenarios11's command with this set's program), ``t13legacy``
(``python -m torch.distributed.launch`` on two static nodes, no ``--use-env``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch_scenarios11 as t11
import torch_scenarios12 as t12

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t13_worker.py")
LAUNCHERS = ("t13run", "t13legacy")


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t13run"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    moe, mesh, bar = {**short, "K10S_MODE": "moe"}, {**short, "K10S_MODE": "mesh"}, {**short, "K10S_BAR": "1"}
    return [
        S("t13-trun-moe-a2a-hang-rank2", fault="hang", rank=2, cause="never-joined", env=moe, **tr),
        S("t13-trun-moe-a2a-splits-rank1", fault="bad-splits", rank=1, cause="python-exception", env=moe, opts=tee, **tr),
        S("t13-trun-mesh2d-tp-sigkill-rank3", fault="sigkill", rank=3, cause="host-oom-kill", env=mesh, **tr),
        S("t13-trun-dtype-mismatch-rank1", fault="dtype", rank=1, cause="collective-mismatch", env=short, **tr),
        S("t13-trun-rank0-only-barrier", fault="extra-barrier", rank=0, cause="collective-mismatch", env=short, opts=tee, **tr),
        S("t13-trun-skip-new-group-rank1", fault="skip-group", rank=1, cause="never-joined", env=short, **tr),
        # the job finishes on its second attempt: the first attempt's failure is what cost the restart (named, as the truth)
        S("t13-trun-first-attempt-only-rank2", fault="keyerror", rank=2, cause="python-exception",
          env={**short, "K10S_FAULT_ATTEMPTS": "1"}, opts=["--max-restarts", "1"], **tr),
        S("t13-trun-breakpoint-bdbquit-rank1", fault="breakpoint", rank=1, cause="python-exception", env=short, **tr),
        S("t13-trun-broken-pipe-rank3", fault="broken-pipe", rank=3, cause="python-exception", env=short, **tr),
        S("t13-trun-progress-bar-keyerror-rank1", fault="keyerror", rank=1, cause="python-exception", env=bar, opts=tee, **tr),
        # controls: no rank may be named
        S("t13-legacy-no-use-env-argparse", launcher="t13legacy", culprits=[], env={**short, "K10S_ARGPARSE": "1"}),
        S("t13-trun-common-mode-loss-nan", fault="loss-nan", rank=-1, culprits=[], env=short, **tr),
        S("t13-trun-clean-progress-nan-skipped-rank2", fault="nan-skipped", rank=2, culprits=[], env=bar, opts=tee, **tr),
        {**S("t13-trun-agents-sighup", culprits=[], steps=60, preempt_s=1.5, env=short, **tr), "preempt_sig": "SIGHUP"},
        {**S("t13-trun-moe-node1-lost", culprits=[], kill_node=True, steps=60, env=moe, **tr), "kill_agent": 1},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line (``env`` first: the worker's own settings)."""
    if sc["launcher"] == "t13run":
        return [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in t11.commands(sc, opts, port)]
    return [["env", f"PYTHONPATH={HERE}", sys.executable, "-m", "torch.distributed.launch", "--nnodes", "2", "--node-rank", str(i),
             "--nproc-per-node", str(sc["nproc"]), "--master-addr", "127.0.0.1", "--master-port", port, *opts, WORKER,
             "--epochs", "1"] for i in range(2)]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t13_worker.py" if part == WORKER else t12.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
