"""The thirty-sixth set of recorded runs (held out when recorded): confounders, where the culprit is not the first or
the loudest error in the log, on CPU with gloo. Each node is ``torchrun`` (torch_scenarios11's command: c10d
rendezvous, 2 agents x 2 processes, ``K10S_GLOO_TIMEOUT_S=3``) running tests/tools/t36_worker.py as real training
scripts behave: the culprit's handler writing an emergency checkpoint (SIGTERM deferred) before it re-raises, so its
peers' gloo timeouts print first; a healthy rank's library error chatter (an ``ERROR`` record, a retried HTTP push, a
``UserWarning``, a traceback printed by a retry loop that recovers) before another rank fails for real; ``raise ... from
e`` beside the victims' ``During handling of the above exception``; a NaN loss the script raises on; a SIGKILL while
another rank prints a recovered traceback. Controls: every rank logging the same ERROR line and ending well, every rank
raising the same exception a few seconds apart. There is no thirty-fifth set. Imported by torch_scenarios.py (its ``S``
builds each one); ``victims`` the ranks that fail or wait because of the culprit (kept in truth.json as
``victim_ranks``); ``noisy`` the rank that prints the library chatter (K10S_T36_NOISY).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t36_worker.py")
LAUNCHERS = ("t36run",)


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], noisy: int | None = None, **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **({"K10S_T36_NOISY": str(noisy)} if noisy is not None else {}),
               **kw.pop("env", {})}
        return {**S(name, launcher="t36run", env=env, **kw), "victims": victims, "limit_s": 120}

    return [
        # (a) rank 2's batch lookup raises KeyError; its handler writes an emergency checkpoint for 6 s (SIGTERM
        # deferred) before re-raising: ranks 0, 1, 3 time out in the step's all-reduce first, node 1's agent reports
        # rank 3 (the first to exit there) and SIGTERMs rank 2, whose traceback comes last
        T("t36-trun-2x2-emergency-ckpt-keyerror-rank2", [0, 1, 3], fault="ckpt-keyerror", rank=2,
          cause="python-exception"),
        # (b) healthy rank 1 logs a library's errors at steps 1-3 (urllib3's retry WARNING, an ERROR record, a
        # UserWarning, a ConnectionRefusedError traceback its retry loop recovers from); rank 3 then raises IndexError
        T("t36-trun-2x2-library-errors-rank1-indexerror-rank3", [0, 1, 2], noisy=1, fault="indexerror", rank=3,
          cause="python-exception"),
        # (c) rank 0 cannot open its data shard: RuntimeError raised from the FileNotFoundError ("The above exception
        # was the direct cause"); the others' all-reduce handlers log an ERROR and call dist.barrier(), which fails too
        # ("During handling of the above exception, another exception occurred")
        T("t36-trun-2x2-chained-cause-rank0", [1, 2, 3], fault="chained", rank=0, cause="python-exception"),
        # (d) rank 1's batch holds a NaN: its loss is NaN and the script raises ValueError ("Loss is NaN") while the
        # others wait in the gradient all-reduce
        T("t36-trun-2x2-loss-nan-rank1", [0, 2, 3], fault="loss-nan", rank=1, cause="python-exception"),
        # (e) rank 3 SIGKILLed (the kernel's OOM killer) 0.2 s after its node peer rank 2 printed a recovered
        # ConnectionRefusedError traceback from its metrics retry loop (--tee 3: every line tagged with its local rank)
        T("t36-trun-2x2-sigkill-beside-recovered-traceback-rank3", [0, 1, 2], noisy=2, fault="sigkill", rank=3,
          cause="host-oom-kill", opts=["--tee", "3"]),
        # controls: no rank may be named
        # (f) every rank logs the same ERROR line (no evaluation set: evaluation skipped) and the run ends well
        T("t36-trun-2x2-clean-same-error-line-every-rank", [], fault="same-error", rank=-1, culprits=[]),
        # (g) every rank raises the same ValueError (an empty dataset's sampler), node 1's ranks 3 s after node 0's
        T("t36-trun-2x2-same-exception-every-rank-staggered", [], fault="same-raise", rank=-1, culprits=[]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order: torch_scenarios11's ``torchrun`` with this set's program."""
    cmds = t11.commands({**sc, "launcher": "t11run"}, opts, port)
    return [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t36_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
