"""The fifty-fifth set of recorded runs (held out when recorded, the truths written before any recording): the fault deep
in a long, noisy log (tests/tools/t55_worker.py: one fast DDP loop on gloo on CPU, 420 steps, 2 agents x 2 or 3
processes, under plain ``torchrun``, c10d rendezvous on 127.0.0.1, gloo timeouts of 3 s; torchrun's output options
varied: none, ``--tee 3``, ``--redirects 3 --log-dir``, ``--tee 3 --local-ranks-filter 0/1``). Real pod logs are long
and chatty; here every rank prints a progress line every 2 steps (hundreds per rank), redraws a tqdm-like bar on stderr
every 5 steps (``\\r``, ANSI colour, one long line per 128-step epoch, so whatever the rank writes to stderr next is glued
after a bar fragment), an eval line every 50 steps (rank 0 a checkpoint line every 100), the same ``UserWarning``
every 20 steps; rank 0 a health line every 0.2 s from a thread; in one control every rank an ERROR-level ``metrics:
failed to push ...: Connection refused; will retry`` line every 25 steps. The faults come late (step 150-380):
``sigkill``: the rank SIGKILLs itself (no word; the OOM killer's shape); ``exit1``: ``os._exit(1)``, no word;
``raise``: an uncaught ``RuntimeError`` (its traceback glued after the rank's last bar fragment); ``segfault``: a NULL
dereference (SIGSEGV); ``abort``: ``os.abort()`` (SIGABRT, no word); ``hang``: the rank sleeps in its own compute far
past the gloo timeout (only its peers' timeouts print); ``config``: every rank's batch shape check raises the same
``ValueError`` alike (common-mode).

Culprits: rank 3's ``RuntimeError`` at step 300 amid every rank's bars (``python-exception``); rank 1 SIGKILLed at step
200 between the periodic eval lines, torchrun's defaults (``host-oom-kill``); rank 2's ``os._exit(1)`` at step 250 while
rank 0's health line ticks every 0.2 s (``exit-1``); rank 0's ``os.abort()`` at step 300 after every rank's warning
repeated every 20 steps (``abort``); rank 2 stalled in its own compute at step 150 amid bars (``never-joined``: the
earlier sets' word for a silent, lagging rank); 2 x 3, rank 4's ``RuntimeError`` at step 350 (``python-exception``);
2 x 3, rank 5 SIGKILLed at step 380 (``host-oom-kill``); rank 1's segfault at step 250 (``segfault``). The others wait
in DDP's all-reduce of that step and time out (3 s) or lose their peer; they are the victims. Controls (no rank may be
named): every noise, the job completes (2 x 2 ``--tee 3``; 2 x 3 torchrun's defaults); every rank's same batch-shape
``ValueError`` at step 300 amid bars (common-mode); every rank's ERROR-level metrics line every 25 steps and the job
completes. ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t55_worker.py")
LAUNCHERS = ("t55run",)
ALL = "bars,steps,eval,warn,health"


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], culprits: list[int], fault: str, bad: int, step: int, cause: str | None = None,
          nproc: int = 2, noise: str = ALL, **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_NOISE": noise}
        sc = S(name, launcher="t55run", fault=fault, rank=bad, culprits=list(culprits), cause=cause if culprits else None,
               env=env, nproc=nproc, step=step, steps=420, **kw)
        return {**sc, "victims": victims, "limit_s": 120}

    tee = ["--tee", "3"]
    return [
        # rank 3 raises RuntimeError at step 300 while every rank redraws its bar (the traceback glued after rank 3's
        # last bar fragment); ranks 0, 1, 2 time out or lose their peer; --tee 3
        T("t55-trun-2x2-bars-raise-rank3-step300-tee", [0, 1, 2], [3], "raise", 3, 300, "python-exception", opts=tee),
        # rank 1 SIGKILLs itself at step 200 (no word) between the eval lines of steps 150 and 250; torchrun's defaults
        # (untagged)
        T("t55-trun-2x2-eval-sigkill-rank1-step200", [0, 2, 3], [1], "sigkill", 1, 200, "host-oom-kill"),
        # rank 2 leaves with os._exit(1) at step 250, no word, while rank 0's health line ticks every 0.2 s;
        # --redirects 3 --log-dir (the consoles: the agents' tables)
        T("t55-trun-2x2-health-exit1-rank2-step250-redirects", [0, 1, 3], [2], "exit1", 2, 250, "exit-1",
          opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # rank 0 aborts (SIGABRT, no word) at step 300, every rank's UserWarning repeated every 20 steps before it;
        # --tee 3
        T("t55-trun-2x2-warn-abort-rank0-step300-tee", [1, 2, 3], [0], "abort", 0, 300, "abort", opts=tee),
        # rank 2 stalls in its own compute at step 150 (sleep): only ranks 0, 1, 3's timeouts print, amid bars; --tee 3
        T("t55-trun-2x2-bars-hang-rank2-step150-tee", [0, 1, 3], [2], "hang", 2, 150, "never-joined", opts=tee),
        # 2 x 3: rank 4 raises RuntimeError at step 350; --tee 3 --local-ranks-filter 1 (ranks 1 and 4 shown)
        T("t55-trun-2x3-bars-raise-rank4-step350-filter1", [0, 1, 2, 3, 5], [4], "raise", 4, 350, "python-exception",
          nproc=3, opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # 2 x 3: rank 5 SIGKILLed at step 380 (no word), after three epochs of bars and eval lines; --tee 3 --log-dir
        T("t55-trun-2x3-eval-sigkill-rank5-step380-logdir", [0, 1, 2, 3, 4], [5], "sigkill", 5, 380, "host-oom-kill",
          nproc=3, opts=["--tee", "3", "--log-dir", "{logdir}"]),
        # rank 1 segfaults at step 250; --tee 3 --local-ranks-filter 1 (ranks 1 and 3 shown)
        T("t55-trun-2x2-bars-segfault-rank1-step250-filter1", [0, 2, 3], [1], "segfault", 1, 250, "segfault",
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # controls: no rank may be named
        # every noise (bars, steps, eval, warnings, rank 0's health line); the job completes; --tee 3
        T("t55-trun-2x2-noise-completes-tee", [], [], "none", -1, 300, opts=tee),
        # 2 x 3: every noise; the job completes; torchrun's defaults
        T("t55-trun-2x3-noise-completes", [], [], "none", -1, 300, nproc=3),
        # every rank's same batch-shape ValueError at step 300 amid bars (common-mode); --tee 3
        T("t55-trun-2x2-bars-config-every-rank-step300-tee", [], [], "config", -1, 300, opts=tee),
        # every rank's ERROR-level metrics line every 25 steps (no traceback, ends nothing); the job completes; --tee 3
        # --local-ranks-filter 0 (ranks 0 and 2 shown)
        T("t55-trun-2x2-errline-every-rank-completes-filter0", [], [], "none", -1, 300, noise=ALL + ",errline",
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t55_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def cleanup() -> None:
    """Nothing left behind (no holders, no folders)."""


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
