"""The forty-seventh set of recorded runs (held out when recorded, the truths written before any recording): the hang and
crash diagnostics users add to their scripts, and faults off the main thread (tests/tools/t47_worker.py: a DDP loop on
gloo on CPU fed by a DataLoader of two workers, with ``faulthandler.enable()``, ``faulthandler.register(SIGUSR1)``, a
per-step ``faulthandler.dump_traceback_later`` watchdog, a background metrics thread, an asynchronous checkpoint writer
thread, ``sys.excepthook`` and ``atexit`` handlers printing on every rank, a ``monitored_barrier(wait_all_ranks=True)``
each step), under plain ``torchrun`` (c10d rendezvous on 127.0.0.1, 2 agents x 2 processes, gloo timeouts of 3 s),
torchrun's output options varied. Culprits: rank 1 hung in its data step, caught by its 2 s watchdog's dump of every
thread (the peers' watchdogs dump theirs in the all-reduce), rank 2's segfault with faulthandler's dump, rank 3's metrics
thread's ``ConnectionRefusedError`` whose ``threading.excepthook`` calls ``os._exit(1)``, rank 2's checkpoint writer
thread on a full disk (its ``OSError`` printed by threading, then the main thread's ``RuntimeError``), a DataLoader worker
of rank 1 SIGKILLed (the loader's ``is killed by signal: Killed.``), rank 2 missing from ``monitored_barrier`` under
``TORCH_CPP_LOG_LEVEL=INFO``, rank 3's ``os.abort()`` after a C++ assertion line under ``TORCH_DISTRIBUTED_DEBUG=DETAIL``
(there the gradients averaged by hand: DDP's construction segfaults every rank under DETAIL in 2.13.0).
Controls: both agents SIGTERMed mid-run (a clean outside stop) with every rank's SIGTERM handler logging and exiting 0,
every rank's config error through the script's ``sys.excepthook``, a clean run whose faulthandler SIGUSR1 dump, dead
metrics thread and atexit lines name no one. ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t47_worker.py")
LAUNCHERS = ("t47run",)


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        return {**S(name, launcher="t47run", env=env, nproc=2, **kw), "victims": victims, "limit_s": 120}

    tee = ["--tee", "3"]
    return [
        # rank 1 sleeps 12 s in its data step; every rank's 2 s step watchdog (dump_traceback_later) prints its threads'
        # stacks (rank 1's in its sleep, the peers' in DDP's all-reduce), the peers time out in gloo; --tee 3
        T("t47-trun-2x2-watchdog-dump-hang-rank1-tee", _others(1), fault="hang", rank=1, cause="never-joined",
          env={"K10S_WATCHDOG_S": "2"}, opts=tee),
        # rank 2 reads address 0 in its forward: faulthandler's `Fatal Python error: Segmentation fault` and every
        # thread's stack (the metrics thread's, the loader's); torchrun's defaults
        T("t47-trun-2x2-faulthandler-segfault-rank2", _others(2), fault="segfault", rank=2, cause="segfault"),
        # rank 3's metrics thread raises ConnectionRefusedError: `Exception in thread Thread-1 (_push_metrics):`, then
        # the script's threading.excepthook calls os._exit(1); --redirects 3 --log-dir (the consoles: the agents' tables)
        T("t47-trun-2x2-metrics-thread-exit-rank3-redirects", _others(3), fault="thread-exit", rank=3,
          cause="python-exception", opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # rank 2's checkpoint writer thread writes to a full disk: its OSError [Errno 28] printed by threading's hook,
        # then the main thread's RuntimeError at the next step; --tee 3 --local-ranks-filter 0 (ranks 0 and 2 shown)
        T("t47-trun-2x2-ckpt-writer-thread-enospc-rank2-filter0", _others(2), fault="writer-enospc", rank=2,
          cause="python-exception", opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # one of rank 1's DataLoader workers SIGKILLed (the kernel's OOM killer): `DataLoader worker (pid N) is killed
        # by signal: Killed.` in rank 1; --tee 3
        T("t47-trun-2x2-loader-worker-sigkill-rank1-tee", _others(1), fault="loader-kill", rank=1, cause="host-oom-kill",
          opts=tee),
        # rank 2 sleeps 12 s before the step's monitored_barrier(wait_all_ranks=True): rank 0's `Ranks 2 failed to pass
        # monitoredBarrier`; TORCH_CPP_LOG_LEVEL=INFO (c10d's own INFO lines); torchrun's defaults
        T("t47-trun-2x2-monitored-barrier-cpp-info-rank2", _others(2), fault="barrier-stall", rank=2, cause="never-joined",
          env={"TORCH_CPP_LOG_LEVEL": "INFO"}),
        # rank 3's fused op fails its C++ assertion and os.abort()s (faulthandler's `Fatal Python error: Aborted`);
        # TORCH_DISTRIBUTED_DEBUG=DETAIL; --tee 3
        T("t47-trun-2x2-abort-detail-rank3-tee", _others(3), fault="abort", rank=3, cause="abort",
          env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, opts=tee),
        # controls: no rank may be named
        # both agents SIGTERMed 4 s into training (a clean outside stop): each forwards SIGTERM, every rank's handler
        # logs `caught SIGTERM at step N` and exits 0; --tee 3
        T("t47-trun-2x2-sigterm-handler-stop-every-rank-tee", [], culprits=[], steps=40, preempt_s=4.0,
          env={"K10S_SIGTERM_LOG": "1"}, opts=tee),
        # every rank's config: a global batch size of 18 on 4 ranks: ValueError through the script's sys.excepthook
        # (`[rank N] FATAL ValueError: ...` and the traceback) and atexit's line, on every rank alike; torchrun's defaults
        T("t47-trun-2x2-excepthook-config-every-rank", [], fault="excepthook-cfg", rank=-1, culprits=[]),
        # a clean run: rank 1 SIGUSR1s itself (faulthandler's dump of every thread), rank 2's metrics thread dies once
        # (`Exception in thread Thread-1 (_push_metrics):`, training goes on), every rank's atexit line; --tee 3
        T("t47-trun-2x2-clean-faulthandler-thread-noise-tee", [], fault="noisy", rank=-1, culprits=[], opts=tee),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t47_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
