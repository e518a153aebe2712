"""The fifty-third set of recorded runs (held out when recorded, the truths written before any recording): numerical
faults as users meet them, NaN/Inf on one rank against every rank diverging alike (tests/tools/t53_worker.py: one DDP
program on gloo on CPU, 2 agents x 2 or 3 processes, under plain ``torchrun``, c10d rendezvous on 127.0.0.1, gloo
timeouts of 3 s; torchrun's output options varied: none, ``--tee 3``, ``--redirects 3 --log-dir``, ``--tee 3
--local-ranks-filter 0/1``). Each rank reads its own data shard; the fault is in one rank's shard or in what every rank
does alike: ``assert``: the rank's shard holds a NaN sample at step 3 and its own finiteness check before backward
(``assert torch.isfinite(loss), "loss is nan at step 3"``) raises ``AssertionError``; ``fpe``: the same check worded as
Lightning/fairseq word it, ``FloatingPointError: loss is nan at step 3``; ``anomaly``: the same NaN sample under
``torch.autograd.detect_anomaly()`` (every rank's), the rank's backward raising ``RuntimeError: Function
'MseLossBackward0' returned nan values in its 0th output.`` before any all-reduce; ``scaler``: the rank's samples
overflow from step 3 on and its own AMP-GradScaler-style check (before backward) skips the step, halving its loss scale,
and gives up after 3 skipped steps (``RuntimeError: loss scale still overflowing after 3 skipped steps``); ``zerodiv``:
the rank's batch at step 3 is empty and its mean over the batch raises ``ZeroDivisionError: float division by zero``;
``lr-high``: the learning-rate schedule peaks at 1e30 at step 3 on every rank: the weights, the same on every rank after
the all-reduce, overflow and at step 4 every rank's check raises ``FloatingPointError: loss is inf at step 4`` alike;
``spread``: one rank's NaN sample with no check before backward: DDP's all-reduce carries its NaN gradients to every rank
and every rank's ``clip_grad_norm_(..., error_if_nonfinite=True)`` raises alike (``RuntimeError: The total norm of order
2.0 for gradients from `parameters` is non-finite``); ``spread-shown``: the same, each rank printing its loss before
backward, so the bad rank's own ``loss nan`` line precedes every rank's error; ``warn-skip``: every rank's sample at step
3 is NaN, every rank prints ``WARNING: loss is nan, skipping step 3`` and skips it alike; the job completes.

Culprits (each ``python-exception``: the earlier sets' word for a Python error): the rank whose own check fires before
the all-reduce (rank 1's ``AssertionError``; rank 2's and, 2 x 3, rank 4's ``FloatingPointError``; rank 3's and rank 0's
anomaly ``RuntimeError``; rank 1's loss-scaler ``RuntimeError``; rank 5's (2 x 3) ``ZeroDivisionError``): the others
wait in DDP's all-reduce of that step and time out (3 s); they are the victims. ``spread-shown`` (rank 1): every rank
raises the same ``RuntimeError`` alike, but rank 1's own ``rank 1 step 3 loss nan`` line, printed before any rank's
error and the only non-finite loss shown, names where the NaN came from: rank 1 is the culprit and ranks 0, 2 and 3 (their
gradients poisoned by the all-reduce) its victims. Controls (no rank may be named): the learning rate too high (every
rank's ``FloatingPointError`` alike, the same step, after the all-reduce: the shared weights, no rank's data); the NaN
spread by the all-reduce with nothing of the bad rank's own shown (every rank's ``clip_grad_norm_`` error alike, no
loss printed before it: the logs show no single culprit); every rank warning ``loss is nan, skipping step`` and the job
completing. ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t53_worker.py")
LAUNCHERS = ("t53run",)


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], culprits: list[int], fault: str, bad: int = -1, nproc: int = 2,
          **kw) -> dict:
        sc = S(name, launcher="t53run", fault=fault, rank=bad, culprits=list(culprits),
               cause="python-exception" if culprits else None, env={"K10S_GLOO_TIMEOUT_S": "3"}, nproc=nproc,
               steps=8, **kw)
        return {**sc, "victims": victims, "limit_s": 120}

    tee = ["--tee", "3"]
    return [
        # rank 1's shard: a NaN sample at step 3; its `assert torch.isfinite(loss)` raises AssertionError before
        # backward; ranks 0, 2 and 3 time out in DDP's all-reduce (3 s); --tee 3
        T("t53-trun-2x2-nan-assert-rank1-tee", [0, 2, 3], [1], "assert", 1, opts=tee),
        # rank 2's NaN sample: `FloatingPointError: loss is nan at step 3`; torchrun's defaults (untagged)
        T("t53-trun-2x2-nan-fpe-rank2", [0, 1, 3], [2], "fpe", 2),
        # 2 x 3: rank 4's NaN sample, FloatingPointError; --redirects 3 --log-dir (the consoles: the agents' tables)
        T("t53-trun-2x3-nan-fpe-rank4-redirects", [0, 1, 2, 3, 5], [4], "fpe", 4, nproc=3,
          opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # anomaly mode on every rank; rank 3's NaN sample: `RuntimeError: Function 'MseLossBackward0' returned nan
        # values in its 0th output.` in its backward; --tee 3 --local-ranks-filter 0 (ranks 0 and 2 shown: rank 3
        # hidden)
        T("t53-trun-2x2-anomaly-rank3-filter0", [0, 1, 2], [3], "anomaly", 3,
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # anomaly mode; rank 0's NaN sample; --tee 3
        T("t53-trun-2x2-anomaly-rank0-tee", [1, 2, 3], [0], "anomaly", 0, opts=tee),
        # rank 1's samples overflow from step 3: its loss-scaler check skips steps 3, 4, 5 (`gradient overflow ...
        # skipping step`) and gives up (RuntimeError); ranks 0, 2, 3 time out in step 3's all-reduce; --tee 3
        # --local-ranks-filter 1 (ranks 1 and 3 shown)
        T("t53-trun-2x2-scaler-giveup-rank1-filter1", [0, 2, 3], [1], "scaler", 1,
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # 2 x 3: rank 5's batch at step 3 is empty: ZeroDivisionError; ranks 0-4 time out; --tee 3 --log-dir
        T("t53-trun-2x3-zerodiv-rank5-logdir", [0, 1, 2, 3, 4], [5], "zerodiv", 5, nproc=3,
          opts=["--tee", "3", "--log-dir", "{logdir}"]),
        # every rank raises the same RuntimeError (clip_grad_norm_ of the all-reduced NaN gradients), but rank 1's own
        # `loss nan` line, printed before backward, precedes them all: rank 1 named (see the docstring); --tee 3
        T("t53-trun-2x2-nan-spread-shown-rank1-tee", [0, 2, 3], [1], "spread-shown", 1, opts=tee),
        # controls: no rank may be named
        # the lr schedule peaks at 1e30 at step 3 on every rank: at step 4 every rank's `FloatingPointError: loss is inf at step 4` alike; --tee 3
        T("t53-trun-2x2-lr-high-every-rank-tee", [], [], "lr-high", opts=tee),
        # 2 x 3, the same; torchrun's defaults
        T("t53-trun-2x3-lr-high-every-rank", [], [], "lr-high", nproc=3),
        # rank 2's NaN sample, no check before backward: every rank's clip_grad_norm_ raises alike after the all-reduce,
        # nothing of rank 2's own before it (no loss line): no single culprit shown; --tee 3
        T("t53-trun-2x2-nan-spread-every-rank-tee", [], [], "spread", 2, opts=tee),
        # every rank: `WARNING: loss is nan, skipping step 3`; the job completes; --tee 3 --local-ranks-filter 0
        T("t53-trun-2x2-nan-warn-skip-every-rank-filter0", [], [], "warn-skip",
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t53_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def cleanup() -> None:
    """Nothing left behind (no holders, no folders)."""


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
