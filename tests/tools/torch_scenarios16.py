"""The sixteenth set of recorded runs (held out when recorded): faults and launcher situations the first fifteen
lack. A leftover ``input()`` prompt reading a pod's empty stdin (``EOFError``); a metrics push to a service that is
down (``urllib``'s ``URLError`` over ``ConnectionRefusedError``: a user's network error, not gloo's); a user
``TimeoutError`` from ``concurrent.futures``; a profiler's ``ITIMER_PROF`` left armed (SIGPROF's default action);
``argparse`` refusing one rank's override at start-up (usage, an error line, exit status 2, no traceback); a gradient
hook raising inside ``backward()``; a data-prep child process that segfaults under ``subprocess.run(check=True)``
(the rank's ``CalledProcessError`` says ``died with <Signals.SIGSEGV: 11>``); and controls (every rank's prompt alike,
a clean run whose handled network error and timeout print tracebacks among ``TORCH_CPP_LOG_LEVEL=INFO`` chatter, the
whole job force-deleted (every node SIGKILLed at once), two static agents given the same ``--node-rank``). Imported
by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t16_worker.py. Launch styles: ``t16run``
(the ``torchrun`` script, c10d rendezvous: torch_scenarios11's command with this set's program), ``t16static``
(torch_scenarios12's ``--rdzv-backend static`` command, each node's ``--node-rank`` from ``node_ranks``).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11
import torch_scenarios12 as t12
import torch_scenarios15 as t15

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t16_worker.py")
LAUNCHERS = ("t16run", "t16static")


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t16run"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    chatter = {**short, "TORCH_CPP_LOG_LEVEL": "INFO", "TORCH_DISTRIBUTED_DEBUG": "INFO"}
    return [
        S("t16-trun-eof-input-prompt-rank2", fault="eof-input", rank=2, cause="python-exception", env=short, **tr),
        S("t16-trun-metrics-conn-refused-rank1", fault="conn-refused", rank=1, cause="python-exception", env=short, opts=tee, **tr),
        S("t16-trun-user-timeout-error-rank3", fault="user-timeout", rank=3, cause="python-exception", env=short, **tr),
        S("t16-trun-sigprof-itimer-rank2", fault="sigprof", rank=2, cause="sigprof", env=short, opts=tee, **tr),
        S("t16-trun-argparse-exit2-rank1", fault="argparse", rank=1, cause="exit-2", env=short, **tr),
        S("t16-trun-grad-hook-raise-rank0", fault="grad-hook", rank=0, cause="python-exception", env=short, opts=tee, **tr),
        S("t16-trun-child-segfault-rank3", fault="child-segv", rank=3, cause="python-exception", env=short, **tr),
        # controls: no rank may be named
        S("t16-trun-common-mode-eof-input", fault="eof-input", rank=-1, culprits=[], env=short, **tr),
        S("t16-trun-clean-handled-network-chatter-rank1", fault="net-handled", rank=1, culprits=[], env=chatter, opts=tee, **tr),
        {**S("t16-trun-job-force-deleted", culprits=[], steps=60, preempt_s=1.5, env=short, **tr),
         "preempt_sig": "SIGKILL", "preempt_group": True},
        # node 1 started twice (a StatefulSet's ordinal read wrong): nodes 0, 1, 1 of --nnodes 2
        {**S("t16-static-duplicate-node-rank", culprits=[], agents=3, env=short, opts=["--rdzv-conf", "timeout=10"],
             launcher="t16static"), "node_ranks": ["0", "1", "1"], "layout_nodes": 2},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: torch_scenarios11's ``torchrun`` or torch_scenarios12's static one, this set's program."""
    if sc["launcher"] == "t16run":
        cmds = t11.commands(sc, opts, port)
    else:
        ranks = sc["node_ranks"]
        cmds = t12.commands({**sc, "launcher": "t12static", "nnodes_per_node": [str(len(set(ranks)))] * len(ranks)}, opts, port)
        for cmd, rank in zip(cmds, ranks):
            cmd[cmd.index("--node-rank") + 1] = rank
    return [[WORKER if p in (t11.WORKER, t12.WORKER) else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t16_worker.py" if part == WORKER else t15.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
