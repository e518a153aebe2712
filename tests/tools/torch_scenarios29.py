"""The twenty-ninth set of recorded runs (held out when recorded): torchrun options and worker-side APIs of today's
releases the first twenty-eight lack. ``--monitor-interval 12`` (the agents see a SIGKILLed rank's death 12 s late, after
its peers' own gloo errors); ``--event-log-handler console`` (the agents print their torchelastic events, the failure's
``raw_error`` inside them); ``--log-line-prefix-template '${hostname}:${rank}: '`` (2.14.1's flag, the example its help
gives; 2.13.0 has no flag, so its runs set ``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``, where ``${hostname}`` is not
substituted); ``--numa-binding node`` on a machine without CUDA (every agent fails starting its workers: a control);
``dist.monitored_barrier(wait_all_ranks=True)`` with two ranks that never arrive; DCP's ``async_save`` whose background
write fails on one rank; ``@record`` on a ``main`` that raises an ``ExceptionGroup`` (``asyncio.TaskGroup``); a clean run
with every agent's events, ``TORCH_CPP_LOG_LEVEL=INFO`` and ranks' alarming warnings (a control).
Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t29_worker.py. Launch style ``t29run``
(torch_scenarios11's ``torchrun``, this set's program; ``monitor`` replaces the monitor interval, ``prefix`` is the
log-line prefix template: the flag where torchrun has it, else the environment; ``ckpt`` gives the ranks a fresh folder).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t29_worker.py")
LAUNCHERS = ("t29run",)
_DIRS: list[str] = []


def scenarios(S) -> list[dict]:
    tr = {"launcher": "t29run"}
    short = {"K10S_GLOO_TIMEOUT_S": "3"}
    tee = ["--tee", "3"]
    return [
        # rank 1 SIGKILLed; the agents poll their workers every 12 s, so its peers' gloo errors come first
        {**S("t29-trun-2x2-monitor12-sigkill-rank1", fault="sigkill", rank=1, cause="host-oom-kill", env=short, **tr),
         "monitor": "12"},
        # rank 3's segfault under the agents' console event log (their events carry the failure's raw_error)
        S("t29-trun-2x2-event-console-segfault-rank3", fault="segfault", rank=3, cause="segfault", env=short,
          opts=["--event-log-handler", "console"], **tr),
        # rank 2's KeyError under the hostname:rank prefix template (2.14.1's flag; 2.13.0's environment variable)
        {**S("t29-trun-2x2-prefix-hostname-keyerror-rank2", fault="keyerror", rank=2, cause="python-exception", env=short,
             opts=tee, **tr), "prefix": "${hostname}:${rank}: "},
        # ranks 1 and 3 never reach monitored_barrier(wait_all_ranks=True): rank 0 reports both
        S("t29-trun-2x2-monitored-barrier-all-ranks13", fault="barrier-stall", rank=1, culprits=[1, 3], cause="never-joined",
          env={**short, "K10S_FAULT_RANKS": "1,3"}, **tr),
        # rank 3's DCP async_save fails in its background thread (its file is a directory); every rank's future raises
        {**S("t29-trun-2x2-async-save-isdir-rank3", fault="async-isdir", rank=3, cause="python-exception", env=short,
             opts=tee, **tr), "ckpt": True},
        # rank 1's @record main raises an ExceptionGroup (an asyncio.TaskGroup's two failed shard fetches)
        S("t29-trun-2x2-record-exceptiongroup-rank1", fault="taskgroup", rank=1, cause="python-exception", env=short, **tr),
        # controls: no rank may be named
        {**S("t29-trun-2x2-common-mode-numa-binding", culprits=[], env=short, opts=["--numa-binding", "node"], **tr)},
        S("t29-trun-2x2-clean-events-cpp-info-noise", fault="noise", rank=-1, culprits=[],
          env={**short, "TORCH_CPP_LOG_LEVEL": "INFO"}, opts=["--event-log-handler", "console", *tee], **tr),
    ]


def _ckpt_dir() -> str:
    path = tempfile.mkdtemp(prefix="k10s-ckpt-")
    _DIRS.append(path)
    return path


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order."""
    import torch

    cmds = t11.commands({**sc, "launcher": "t11run"}, opts, port)
    cmds = [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in cmds]
    ckpt = _ckpt_dir() if sc.get("ckpt") else None
    has_flag = tuple(int(v) for v in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 14)
    for cmd in cmds:
        if sc.get("monitor"):
            cmd[cmd.index("--monitor-interval") + 1] = sc["monitor"]
        if ckpt:
            cmd.insert(1, f"K10S_CKPT_DIR={ckpt}")
        if sc.get("prefix") and has_flag:
            cmd[cmd.index("--nproc-per-node"):cmd.index("--nproc-per-node")] = ["--log-line-prefix-template", sc["prefix"]]
        elif sc.get("prefix"):
            cmd.insert(1, f"TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE={sc['prefix']}")
    return cmds


def cleanup() -> None:
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t29_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "cleanup", "commands", "public", "scenarios"]
