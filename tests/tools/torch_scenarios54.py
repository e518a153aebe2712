"""The fifty-fourth set of recorded runs (held out when recorded, the truths written before any recording): red herrings
beside the real fault (tests/tools/t54_worker.py: one DDP program on gloo on CPU, 2 agents x 2 or 3 processes, under plain
``torchrun``, c10d rendezvous on 127.0.0.1, gloo timeouts of 3 s; torchrun's output options varied: none, ``--tee 3``,
``--redirects 3 --log-dir``, ``--tee 3 --local-ranks-filter 0/1``). Real logs are noisy: a rank prints a handled
traceback or an ERROR-looking line that ends nothing while another rank, often a quiet one, is the real culprit. The
herrings (at step 2, training goes on after each): ``value``/``key``: the rank's eval batch raises ``ValueError`` /
``KeyError``, the script catches it and logs it with its traceback (``logging.exception("eval batch failed,
skipping")``); ``retry``: ``ERROR ... read of shard ... failed: [Errno 5] Input/output error, retrying (1/3)``, then
``ok on attempt 2``; ``warn``: the same deprecation ``FutureWarning`` on every rank; ``probe``: rank 0's own health
probe raises a ``torch.distributed.DistBackendError`` worded as gloo words its errors (``Read error ...: Connection reset
by peer``), caught and logged with its traceback (``health probe failed (1/3), continuing``); ``error-line``: one
``ERROR ... failed to write metrics ...: metrics dropped`` line. The real faults (at step 4): ``sigkill``: the rank
SIGKILLs itself (no word; the OOM killer's shape); ``exit1``: ``os._exit(1)``, no word; ``raise``: an uncaught
``RuntimeError``; ``segfault``: a NULL dereference (SIGSEGV); ``hang``: the rank sleeps in its own compute far past
the gloo timeout (only its peers' timeouts print); ``config``: every rank's config check raises the same ``ValueError``
alike (common-mode).

Culprits: the rank with the real fault: rank 3 SIGKILLed beside rank 1's handled ``ValueError`` (``host-oom-kill``);
rank 2's ``os._exit(1)`` beside rank 1's handled ``KeyError`` (``exit-1``); 2 x 3, rank 4's ``RuntimeError`` beside
rank 1's handled ``ValueError`` (``python-exception``); rank 2's segfault beside rank 0's ``ERROR ... retrying (1/3)``
(``segfault``); rank 3's ``RuntimeError`` beside every rank's ``FutureWarning`` (``python-exception``); rank 2 hung in
its own compute beside rank 0's caught ``DistBackendError`` text (``never-joined``: the earlier sets' word for a silent,
lagging rank); 2 x 3, rank 5 SIGKILLed beside rank 0's handled ``ValueError`` (``host-oom-kill``); rank 1's
``os._exit(1)`` beside rank 3's handled ``KeyError`` (``exit-1``). The others wait in DDP's all-reduce of step 4 and time
out (3 s) or lose their peer; they are the victims (the herring's rank among them: it is a victim, never the culprit).
Controls (no rank may be named): rank 2's handled traceback and the job completes; every rank's handled traceback alike
and the job completes (2 x 3); rank 1's handled traceback, then every rank's same config ``ValueError`` at step 4
(common-mode); rank 3's lone ERROR-level metrics line and the job completes. ``victims``: the ranks that fail or wait
because of the culprit.
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t54_worker.py")
LAUNCHERS = ("t54run",)


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], culprits: list[int], fault: str, bad: int, herring: str, herring_rank: int,
          cause: str | None = None, nproc: int = 2, **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_HERRING": herring, "K10S_HERRING_RANK": str(herring_rank)}
        sc = S(name, launcher="t54run", fault=fault, rank=bad, culprits=list(culprits), cause=cause if culprits else None,
               env=env, nproc=nproc, step=4, steps=8, **kw)
        return {**sc, "victims": victims, "limit_s": 120}

    tee = ["--tee", "3"]
    return [
        # rank 1 logs a caught ValueError with its traceback at step 2 and goes on; rank 3 SIGKILLs itself at step 4 (no
        # word); ranks 0, 1, 2 time out or lose their peer; --tee 3
        T("t54-trun-2x2-handled-value-rank1-sigkill-rank3-tee", [0, 1, 2], [3], "sigkill", 3, "value", 1,
          "host-oom-kill", opts=tee),
        # rank 1's caught KeyError traceback at step 2; rank 2 leaves with os._exit(1) at step 4, no word; torchrun's
        # defaults (untagged)
        T("t54-trun-2x2-handled-key-rank1-exit1-rank2", [0, 1, 3], [2], "exit1", 2, "key", 1, "exit-1"),
        # 2 x 3: rank 1's caught ValueError traceback; rank 4 raises RuntimeError at step 4; --redirects 3 --log-dir
        # (the consoles: the agents' tables)
        T("t54-trun-2x3-handled-value-rank1-raise-rank4-redirects", [0, 1, 2, 3, 5], [4], "raise", 4, "value", 1,
          "python-exception", nproc=3, opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # rank 0: `ERROR ... read of shard ... failed ... retrying (1/3)`, then ok; rank 2 segfaults at step 4; --tee 3
        # --local-ranks-filter 0 (ranks 0 and 2 shown)
        T("t54-trun-2x2-retry-rank0-segfault-rank2-filter0", [0, 1, 3], [2], "segfault", 2, "retry", 0, "segfault",
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # every rank prints the same FutureWarning at step 2; rank 3 raises RuntimeError at step 4; --tee 3
        T("t54-trun-2x2-warn-every-rank-raise-rank3-tee", [0, 1, 2], [3], "raise", 3, "warn", -1, "python-exception",
          opts=tee),
        # rank 0's own health probe: a caught DistBackendError (gloo-worded `Connection reset by peer`) logged with its
        # traceback at step 2; rank 2 hangs in its own compute at step 4 (sleep): only ranks 0, 1, 3's timeouts print;
        # --tee 3
        T("t54-trun-2x2-probe-rank0-hang-rank2-tee", [0, 1, 3], [2], "hang", 2, "probe", 0, "never-joined", opts=tee),
        # 2 x 3: rank 0's caught ValueError traceback; rank 5 SIGKILLed at step 4; --tee 3 --log-dir
        T("t54-trun-2x3-handled-value-rank0-sigkill-rank5-logdir", [0, 1, 2, 3, 4], [5], "sigkill", 5, "value", 0,
          "host-oom-kill", nproc=3, opts=["--tee", "3", "--log-dir", "{logdir}"]),
        # rank 3's caught KeyError traceback; rank 1's os._exit(1) at step 4; --tee 3 --local-ranks-filter 1 (ranks 1 and
        # 3 shown)
        T("t54-trun-2x2-handled-key-rank3-exit1-rank1-filter1", [0, 2, 3], [1], "exit1", 1, "key", 3, "exit-1",
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # controls: no rank may be named
        # rank 2's caught ValueError traceback at step 2; the job completes; --tee 3
        T("t54-trun-2x2-handled-value-rank2-completes-tee", [], [], "none", -1, "value", 2, opts=tee),
        # 2 x 3: every rank's caught KeyError traceback alike at step 2; the job completes; torchrun's defaults
        T("t54-trun-2x3-handled-key-every-rank-completes", [], [], "none", -1, "key", -1, nproc=3),
        # rank 1's caught ValueError traceback at step 2, then every rank's same config ValueError at step 4
        # (common-mode); --tee 3
        T("t54-trun-2x2-handled-value-rank1-config-every-rank-tee", [], [], "config", -1, "value", 1, opts=tee),
        # rank 3's lone `ERROR ... failed to write metrics ...: metrics dropped` line; the job completes; --tee 3
        # --local-ranks-filter 1 (ranks 1 and 3 shown)
        T("t54-trun-2x2-error-line-rank3-completes-filter1", [], [], "none", -1, "error-line", 3,
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t54_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def cleanup() -> None:
    """Nothing left behind (no holders, no folders)."""


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
