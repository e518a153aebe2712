"""The forty-third set of recorded runs (held out when recorded, the truths written before any recording): the bugs of
users' own DDP training loops (tests/tools/t43_worker.py: per-rank data shards, a two-branch model, a per-rank
checkpoint shard resumed, ``logging`` records tagged ``[RANK N]``), under plain ``torchrun`` (c10d rendezvous on
127.0.0.1, 2 agents x 2 processes, gloo timeouts of 3 s), default options or ``--tee 3``. Culprits: a rank whose shard
is short (it leaves the loop for the final barrier while the others all-reduce: ``never-joined``), autograd's anomaly
mode catching a NaN in one rank's backward, DDP's unused-parameter error on the rank whose batch skipped a branch, one
rank's extra all-reduce of a metric (``collective-mismatch``), one rank's truncated checkpoint shard on resume.
Controls: every rank's scheduler ``KeyError``, ranks 1-3 reading the vocabulary rank 0 has not yet written (a race in
the program, every reader alike), a clean run. ``victims``: the ranks that fail or wait because of the culprit.
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t43_worker.py")
LAUNCHERS = ("t43run",)
TEE = ["--tee", "3"]


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        return {**S(name, launcher="t43run", env=env, nproc=2, **kw), "victims": victims, "limit_s": 120}

    return [
        # rank 3's shard holds 3 batches: it waits in the final barrier while ranks 0-2 all-reduce step 3's gradients
        T("t43-trun-2x2-short-shard-rank3", _others(3), fault="short-shard", rank=3, cause="never-joined"),
        # anomaly mode on rank 1: `Function 'SqrtBackward0' returned nan values in its 0th output`; --tee 3
        T("t43-trun-2x2-anomaly-nan-rank1-tee", _others(1), fault="anomaly-nan", rank=1, cause="python-exception", opts=TEE),
        # the same on rank 0, default options
        T("t43-trun-2x2-anomaly-nan-rank0", _others(0), fault="anomaly-nan", rank=0, cause="python-exception"),
        # rank 2's step-3 batch skips the second branch: DDP's `Expected to have finished reduction in the prior iteration`
        T("t43-trun-2x2-unused-branch-rank2", _others(2), fault="unused-branch", rank=2, cause="python-exception"),
        # rank 2 all-reduces a 3-element metric after step 3 that no other rank reduces; --tee 3
        T("t43-trun-2x2-extra-collective-rank2-tee", _others(2), fault="extra-collective", rank=2,
          cause="collective-mismatch", opts=TEE),
        # rank 1's checkpoint shard is truncated: torch.load fails on resume, the others wait in DDP's first broadcast
        T("t43-trun-2x2-corrupt-resume-rank1", _others(1), fault="corrupt-resume", rank=1, cause="python-exception"),
        # controls: no rank may be named
        # every rank's scheduler config names a key the optimizer lacks (KeyError: 'initial_lr' on ranks 0-3)
        T("t43-trun-2x2-bad-scheduler-every-rank", [], fault="bad-scheduler", rank=-1, culprits=[]),
        # ranks 1-3 read the vocabulary rank 0 writes half a second later (FileNotFoundError on each reader); --tee 3
        T("t43-trun-2x2-load-race-readers", [], fault="load-race", rank=-2, culprits=[], opts=TEE),
        T("t43-trun-2x2-clean", [], culprits=[]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t43_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
