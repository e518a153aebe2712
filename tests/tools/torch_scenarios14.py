"""The fourteenth set of recorded runs (held out when recorded): faults and launcher situations the first thirteen
lack. torchelastic's file-based timer watchdog (``TORCHELASTIC_ENABLE_FILE_TIMER=1``: a rank's ``expires`` scope
runs out, the agent reaps it, then itself); a metrics file written to ``/dev/full`` (``OSError: [Errno 28] No
space left on device``); SIGINT to one rank (``KeyboardInterrupt``); a ``multiprocessing.Pool`` task's exception
(``multiprocessing.pool.RemoteTraceback``); ``clip_grad_norm_(error_if_nonfinite=True)`` on non-finite gradients;
a forgotten ``signal.alarm`` (SIGALRM); a checkpoint loaded with ``map_location='cuda:0'`` on a machine without
CUDA; a ring exchange whose rank sends to itself; ``all_gather_into_tensor`` with a wrongly sized output; and
controls (every rank's DDP given ``device_ids`` for a CPU model, every rank's CUDA checkpoint load, a clean run
with the file timer, INFO chatter and a handled pool traceback, both agents sent SIGQUIT, node 1 frozen by
SIGSTOP with its workers). Imported by torch_scenarios.py (its ``S`` builds each one); the program:
tests/tools/t14_worker.py. Launch style: ``t14run`` (the ``torchrun`` script, c10d rendezvous: torch_scenarios11's
command with this set's program).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11
import torch_scenarios13 as t13

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t14_worker.py")
LAUNCHERS = ("t14run",)


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t14run"}
    tee = ["--tee", "3"]
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    # the watchdog's scope (2 s) must run out before the peers' gloo timeout (10 s here); LOGLEVEL=INFO: the agent's reaping lines
    timer = {"K10S_GLOO_TIMEOUT_S": "10", "TORCHELASTIC_ENABLE_FILE_TIMER": "1", "LOGLEVEL": "INFO"}
    return [
        S("t14-trun-file-timer-reaped-rank2", fault="timer-hang", rank=2, cause="never-joined", env=timer, **tr),
        S("t14-trun-dev-full-metrics-rank3", fault="dev-full", rank=3, cause="python-exception", env=short, opts=tee, **tr),
        S("t14-trun-sigint-rank1", fault="sigint", rank=1, cause="python-exception", env=short, **tr),
        S("t14-trun-pool-remote-traceback-rank2", fault="pool-error", rank=2, cause="python-exception", env=short, **tr),
        S("t14-trun-clip-nonfinite-rank1", fault="clip-nonfinite", rank=1, cause="python-exception", env=short, opts=tee, **tr),
        S("t14-trun-sigalrm-rank3", fault="alarm", rank=3, cause="sigalrm", steps=12, env=short, **tr),
        S("t14-trun-load-cuda-ckpt-rank0", fault="load-cuda", rank=0, cause="python-exception", env=short, **tr),
        S("t14-trun-send-to-self-rank2", fault="send-self", rank=2, cause="python-exception", env={**short, "K10S_RING": "1"}, **tr),
        S("t14-trun-allgather-size-rank0", fault="gather-size", rank=0, cause="python-exception", env=short, opts=tee, **tr),
        # controls: no rank may be named
        S("t14-trun-common-mode-ddp-device-ids", fault="ddp-device-ids", rank=-1, culprits=[], env=short, **tr),
        S("t14-trun-common-mode-load-cuda", fault="load-cuda", rank=-1, culprits=[], env=short, **tr),
        S("t14-trun-clean-file-timer-handled-rank1", fault="pool-handled", rank=1, culprits=[], env=timer, opts=tee, **tr),
        {**S("t14-trun-agents-sigquit", culprits=[], steps=60, preempt_s=1.5, env=short, **tr), "preempt_sig": "SIGQUIT"},
        {**S("t14-trun-node1-frozen-sigstop", culprits=[], steps=60, preempt_s=1.5, env=short, **tr),
         "preempt_node": 1, "preempt_sig": "SIGSTOP", "preempt_group": True},
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: torch_scenarios11's ``torchrun``, this set's program."""
    return [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in t11.commands(sc, opts, port)]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t14_worker.py" if part == WORKER else t13.public(part)


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
