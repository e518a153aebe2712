"""The fifteenth set of recorded runs (held out when recorded): faults and launcher situations the first fourteen
lack. An ``ExceptionGroup`` from a rank's ``asyncio.TaskGroup`` shard loads; a bare ``AssertionError`` (no message);
SIGUSR1 to one rank with no handler; SIGPIPE from a metrics pipe into ``head`` (SIGPIPE's default action restored);
a script's own ``sys.excepthook`` that logs one line and no traceback; a ``ValueError`` whose message names other
ranks; ``load_state_dict``'s size mismatch on one rank's resume; a ``torch.distributed.rpc`` worker SIGKILLed inside a
remote call; and controls (every rank's ``ExceptionGroup`` alike, a clean run with a handled ``ExceptionGroup`` and a
handled SIGUSR1, node 0's agent alone SIGTERMed (one pod evicted: the store's host), a node of three lost with
``--max-restarts 1`` (the survivors cannot re-form)). Imported by torch_scenarios.py (its ``S`` builds each one); the
program: tests/tools/t15_worker.py. Launch style: ``t15run`` (the ``torchrun`` script, c10d rendezvous:
torch_scenarios11's command with this set's program).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11
import torch_scenarios14 as t14

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t15_worker.py")
LAUNCHERS = ("t15run",)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t15run"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    return [
        S("t15-trun-exception-group-rank2", fault="task-group", rank=2, cause="python-exception", env=short, **tr),
        S("t15-trun-bare-assert-rank0", fault="bare-assert", rank=0, cause="python-exception", env=short, opts=tee, **tr),
        S("t15-trun-sigusr1-rank3", fault="sigusr1", rank=3, cause="sigusr1", env=short, **tr),
        S("t15-trun-sigpipe-metrics-rank1", fault="sigpipe", rank=1, cause="sigpipe", env=short, **tr),
        S("t15-trun-excepthook-one-line-rank1", fault="hook-logged", rank=1, cause="python-exception", env=short, opts=tee, **tr),
        S("t15-trun-message-names-rank0-rank2", fault="names-ranks", rank=2, cause="python-exception", env=short, **tr),
        S("t15-trun-state-dict-size-rank3", fault="state-dict", rank=3, cause="python-exception", env=short, opts=tee, **tr),
        S("t15-trun-rpc-worker-sigkill-rank2", fault="rpc-sigkill", rank=2, cause="host-oom-kill", env=short, **tr),
        # controls: no rank may be named
        S("t15-trun-common-mode-exception-group", fault="task-group", rank=-1, culprits=[], env=short, **tr),
        S("t15-trun-clean-group-handled-usr1-rank1", fault="group-handled", rank=1, culprits=[], env=short, opts=tee, **tr),
        {**S("t15-trun-node0-evicted-sigterm", culprits=[], steps=60, preempt_s=1.5, env=short, **tr), "preempt_node": 0},
        {**S("t15-trun-3x2-node-lost-restart", culprits=[], kill_node=True, steps=60, agents=3, env=short,
             opts=["--max-restarts", "1"], **tr), "kill_agent": 2},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: torch_scenarios11's ``torchrun``, this set's program."""
    return [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in t11.commands(sc, opts, port)]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t15_worker.py" if part == WORKER else t14.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
