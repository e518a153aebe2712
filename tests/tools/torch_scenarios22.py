"""The twenty-second set of recorded runs (held out when recorded): a rank's child killed as the OOM killer kills it
(the rank's ``CalledProcessError``, not the rank's own death), a rank resuming from a truncated checkpoint
(``PytorchStreamReader failed reading zip archive``), a rank leaving with exit status 0 mid-epoch under
``--max-restarts 1``, a segfault and a SIGKILL under ``TORCH_GLOO_LAZY_INIT=1`` (gloo connects pairs on first use);
controls: every rank's tokenizer missing on a shared path under ``--max-restarts 1`` at 3 x 2, every rank's child killed
alike, the three agents of 3 x 2 SIGTERMed mid-run by a scheduler's preemption. Imported by torch_scenarios.py (its ``S``
builds each one); the program: tests/tools/t22_worker.py. Launch style: ``t22run`` (torch_scenarios17's ``torchrun``,
this set's program).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t22_worker.py")
LAUNCHERS = ("t22run",)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t22run"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    restart = {"K10S_GLOO_TIMEOUT_S": "10"}  # a new attempt's ranks re-form the group on a loaded machine
    lazy = {**short, "TORCH_GLOO_LAZY_INIT": "1"}
    return [
        S("t22-trun-2x2-child-oom-killed-rank1", fault="child-kill", rank=1, cause="python-exception", env=short, **tr),
        S("t22-trun-2x2-ckpt-truncated-rank3", fault="ckpt-truncated", rank=3, cause="python-exception", env=short,
          opts=["--tee", "3"], **tr),
        S("t22-trun-2x2-restarts1-exit0-rank2", fault="exit0", rank=2, cause="never-joined", env=restart,
          opts=["--max-restarts", "1"], **tr),
        S("t22-trun-2x2-gloo-lazy-segfault-rank1", fault="segfault", rank=1, cause="segfault", env=lazy, **tr),
        S("t22-trun-3x2-gloo-lazy-sigkill-rank5", fault="sigkill", rank=5, cause="host-oom-kill", agents=3, env=lazy, **tr),
        # controls: no rank may be named
        S("t22-trun-3x2-restarts1-shared-missing-every-rank", fault="shared-missing", rank=-1, culprits=[], agents=3,
          env=restart, opts=["--max-restarts", "1"], **tr),
        S("t22-trun-2x2-child-oom-killed-every-rank", fault="child-kill", rank=-1, culprits=[], env=short, **tr),
        S("t22-trun-3x2-restarts1-preempted-sigterm", culprits=[], agents=3, steps=60, preempt_s=2.0, env=short,
          opts=["--max-restarts", "1"], **tr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: the seventeenth set's ``torchrun``, this set's program."""
    cmds = t17.commands({**sc, "launcher": "t17run"}, opts, port)
    return [[WORKER if p == t17.WORKER else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t22_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
