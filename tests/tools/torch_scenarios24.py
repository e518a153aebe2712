"""The twenty-fourth set of recorded runs (held out when recorded): the rendezvous store host's agent SIGKILLed alone (its
workers left running, orphaned), a segfault under a ``bash -c`` wrapper (``torchrun --no-python bash -c 'python …; exit
$?'``: bash reports the signal and exits 139), two ranks of a ``--standalone`` 1 x 8 job failing 50 ms apart by two
different exceptions, a DCP load whose one rank's shard file was cut short, a rank whose ``torch.compile`` backend fails
(``BackendCompilerFailed``), a rank SIGTERMed from outside whose handler (installed on every rank, as training scripts
do) exits 143 while its agent survives; controls: the store host's agent SIGKILLed, every rank's shard cut short,
every rank's DDP model leaving a parameter unused (no ``find_unused_parameters``) alike. Imported by torch_scenarios.py (its ``S`` builds each one); the program:
tests/tools/t24_worker.py. Launch styles: ``t24run`` (torch_scenarios17's ``torchrun``, this set's program; ``args``:
its arguments), ``t24bash`` (the same ``torchrun`` with ``--no-python bash -c`` around the program), ``t24standalone``
(torch_scenarios3's ``torchrun --standalone``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch_scenarios3 as t3
import torch_scenarios17 as t17

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t24_worker.py")
LAUNCHERS = ("t24run", "t24bash", "t24standalone")


def scenarios(S) -> list[dict]:
    tr, bash, alone = {"launcher": "t24run"}, {"launcher": "t24bash"}, {"launcher": "t24standalone"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    return [
        # rank 2's segfault under bash -c: bash prints the signal ("Segmentation fault") and exits 128 + 11; torchrun
        # reports exit code 139, no signal
        S("t24-bash-2x2-segfault-rank2-exit139", fault="segfault", rank=2, cause="segfault", env=short, **bash),
        # rank 6 raises ZeroDivisionError at step 3, rank 3 a KeyError 50 ms later: two ranks' own faults at nearly
        # the same time (the seventeenth set's convention for simultaneous faults: both are culprits)
        S("t24-standalone-1x8-zerodiv-rank6-keyerror-rank3", fault="zerodiv", rank=-2, culprits=[3, 6],
          cause="python-exception", nproc=8, agents=1,
          env={**short, "K10S_FAULT_BY_RANK": "6:zerodiv,3:keyerror", "K10S_FAULT_LAG": "3:0.05"}, **alone),
        # every rank saves a DCP checkpoint, rank 2 cuts its own shard file to half, every rank loads: rank 2's read fails
        # (DCP gathers it: CheckpointException on every rank naming rank 2)
        S("t24-trun-2x2-dcp-load-corrupt-shard-rank2", fault="dcp-corrupt", rank=2, cause="python-exception", env=short, **tr),
        # every rank compiles its metric with a custom backend that caches the graph; rank 1's cache path is not a folder:
        # torch._dynamo's BackendCompilerFailed on rank 1 (a long group timeout: compiling takes seconds on a loaded CPU)
        S("t24-trun-2x2-compile-backend-fails-rank1", fault="compile-backend", rank=1, cause="python-exception",
          env={"K10S_GLOO_TIMEOUT_S": "20"}, opts=["--tee", "3"], **tr),
        # rank 3 SIGTERMed by another process (not its agent); every rank's handler prints and exits 143; the agent
        # then SIGTERMs rank 2, whose handler exits 143 too
        S("t24-trun-2x2-sigterm-handler-exit143-rank3", fault="sigterm-143", rank=3, cause="sigterm", env=short, **tr),
        # controls: no rank may be named
        # node 0's agent (the first started: it hosts the c10d rendezvous store) SIGKILLed alone 1.5 s into training;
        # its workers are left running (orphaned) until their peers go
        {**S("t24-trun-2x2-store-host-agent-sigkill", culprits=[], steps=40, preempt_s=1.5, env=short, **tr),
         "preempt_agent": 0, "preempt_sig": "SIGKILL"},
        # every rank's shard cut short (a copy from a node that stopped half way): every rank's read fails alike
        S("t24-trun-2x2-dcp-load-corrupt-every-rank", fault="dcp-corrupt", rank=-1, culprits=[], env=short, **tr),
        # every rank's DDP model skips its second layer at step 3 (no find_unused_parameters): every rank raises alike
        {**S("t24-trun-2x2-common-mode-ddp-unused", fault="ddp-unused", rank=-1, culprits=[], env=short, **tr),
         "args": ["ddp"]},
    ]


def _bash_c(cmd: list[str]) -> list[str]:
    """``--no-python bash -c`` around the program, as an image's entry command runs it (bash forks: not its last command)."""
    return [*cmd[:-1], "--no-python", "bash", "-c", f"{sys.executable} {WORKER}; exit $?"]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: the seventeenth set's ``torchrun`` (or the third's ``--standalone``) with this set's
    program, or the same ``torchrun`` with a ``bash -c`` wrapper."""
    if sc["launcher"] == "t24standalone":
        return t3.commands({**sc, "launcher": "standalone"}, opts, port, WORKER)
    cmds = [[p for part in cmd for p in ([WORKER, *sc.get("args", [])] if part == t17.WORKER else [part])]
            for cmd in t17.commands({**sc, "launcher": "t17run"}, opts, port)]
    return [_bash_c(cmd) for cmd in cmds] if sc["launcher"] == "t24bash" else cmds


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t24_worker.py" if part == WORKER else part.replace(f"{sys.executable} {WORKER}", "python t24_worker.py")


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
