"""The twenty-first set of recorded runs (held out when recorded): the story the tool exists for, restarts where the same
rank fails on every attempt (``--max-restarts 2`` and ``3``; a ``MemoryError`` at 2 x 2, a segfault at 2 x 3, the
culprit on node 1) and a restart where another rank fails on the second attempt (two incidents; the truth is the last
attempt's culprit, as in the tenth set); a ``torch.distributed.checkpoint`` save that one rank cannot write (DCP's
``CheckpointException`` on every rank); a rank hung in its own compute (a sleep on the middle rank of 1 x 5, a busy
loop on node 1 of 3 x 2: only the victims print). Controls: every rank's DCP save failing alike, a restart whose every
attempt fails alike on every rank, a clean 2 x 3 run warning on every rank. Imported by torch_scenarios.py (its ``S``
builds each one); the program: tests/tools/t21_worker.py. Launch style: ``t21run`` (torch_scenarios17's ``torchrun``,
this set's program).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t21_worker.py")
LAUNCHERS = ("t21run",)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t21run"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    restart = {"K10S_GLOO_TIMEOUT_S": "10"}  # a new attempt's ranks re-form the group on a loaded machine
    return [
        S("t21-trun-2x2-restarts2-memoryerror-rank2", fault="memoryerror", rank=2, cause="host-oom", env=restart,
          opts=["--max-restarts", "2"], **tr),
        S("t21-trun-2x3-restarts3-segfault-rank4", fault="segfault", rank=4, cause="segfault", nproc=3, env=restart,
          opts=["--max-restarts", "3"], **tr),
        # attempt 0: rank 1's KeyError, attempt 1: rank 3's (two incidents; the truth, as the tenth set's moving restart:
        # the last attempt's culprit, whose failure ended the job; a 30 s group timeout: a first take at 10 s never
        # re-formed the second attempt, its workers' gloo connectFullMesh timing out as the agents restarted seconds apart)
        S("t21-trun-2x2-restart-keyerror-rank1-then-rank3", fault="keyerror", rank=3, culprits=[3], cause="python-exception",
          env={"K10S_GLOO_TIMEOUT_S": "30", "K10S_FAULT_RANK_BY_ATTEMPT": "1,3"}, opts=["--max-restarts", "1"], **tr),
        S("t21-trun-2x2-dcp-save-efbig-rank2", fault="dcp-efbig", rank=2, cause="python-exception", env=short, **tr),
        S("t21-trun-1x5-hang-rank2", fault="hang", rank=2, cause="never-joined", nproc=5, agents=1, env=short, **tr),
        S("t21-trun-3x2-spin-rank3", fault="spin", rank=3, cause="never-joined", agents=3, env=short, **tr),
        # controls: no rank may be named
        S("t21-trun-2x2-dcp-save-efbig-every-rank", fault="dcp-efbig", rank=-1, culprits=[], env=short, **tr),
        S("t21-trun-2x2-restarts1-keyerror-every-rank", fault="keyerror", rank=-1, culprits=[], env=restart,
          opts=["--max-restarts", "1"], **tr),
        S("t21-trun-2x3-clean-warnings", fault="warn", rank=-1, culprits=[], nproc=3, env=short, opts=["--tee", "3"], **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: the seventeenth set's ``torchrun``, this set's program."""
    cmds = t17.commands({**sc, "launcher": "t17run"}, opts, port)
    return [[WORKER if p == t17.WORKER else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t21_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
