"""The forty-first set of recorded runs (held out when recorded, the truths written before any recording): a training
script as users write it (tests/tools/t41_worker.py: a JSON-lines dataset through a DataLoader with two workers,
DistributedSampler, DDP, AdamW, rank 0's checkpoint then ``dist.barrier()``, ``logging`` records tagged ``[rank N]``, an
``all_gather_object`` of metrics), under plain ``torchrun`` (c10d rendezvous on 127.0.0.1, 2 agents x 2 processes,
gloo timeouts of 3 s). Faults where real jobs fail outside the collectives: a truncated JSON record where one rank's
sampler reads it (that rank's loader worker's ``JSONDecodeError``), DeiT/timm's ``Loss is nan, stopping training`` then ``sys.exit(1)``, rank 0's
checkpoint on a full disk, rank 0 stalled writing its checkpoint while the others wait in the barrier, a lambda in one
rank's gathered metrics. Output options: default, ``--tee 3``, ``--redirects 3 --log-dir``, ``--local-ranks-filter 0``.
Controls: every rank's dataset path missing, rank 0's checkpoint upload failing once with its traceback logged and
retried, a clean run. ``victims``: the ranks that fail or wait because of the culprit (truth.json's ``victim_ranks``).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t41_worker.py")
LAUNCHERS = ("t41run",)
TEE = ["--tee", "3"]


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        return {**S(name, launcher="t41run", env=env, nproc=2, **kw), "victims": victims, "limit_s": 120}

    return [
        # (a) the dataset holds a truncated JSON line where rank 2's step-3 batch reads it: its loader worker's JSONDecodeError,
        # re-raised in rank 2's main process; the others fail in DDP's all-reduce
        T("t41-trun-2x2-bad-record-rank2", _others(2), fault="bad-record", rank=2, cause="python-exception"),
        # (b) rank 1's loss is NaN at step 3: `Loss is nan, stopping training`, sys.exit(1) (no traceback)
        T("t41-trun-2x2-nan-exit-rank1", _others(1), fault="nan-exit", rank=1, cause="exit-1"),
        # (c) rank 0 saves its step-3 checkpoint to a full disk (/dev/full): torch.save raises; --tee 3
        T("t41-trun-2x2-ckpt-enospc-rank0-tee", _others(0), fault="ckpt-enospc", rank=0, cause="python-exception",
          opts=TEE),
        # (d) rank 0 stalls 24 s writing its checkpoint (a hung mount); ranks 1-3 time out in the barrier after it
        T("t41-trun-2x2-ckpt-stall-rank0", _others(0), fault="ckpt-stall", rank=0, cause="never-joined"),
        # (e) rank 3 puts a lambda into its metrics: all_gather_object's pickling raises on rank 3;
        # --redirects 3 --log-dir (the workers' output only in the log files, the agents' tables on the console)
        T("t41-trun-2x2-pickle-gather-rank3-redirects", _others(3), fault="pickle-gather", rank=3,
          cause="python-exception", opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # (f) rank 1 (node 0, local rank 1) hits a truncated record with --local-ranks-filter 0: its traceback is not
        # shown, node 0's failure table names it
        T("t41-trun-2x2-bad-record-rank1-filter0", _others(1), fault="bad-record", rank=1, cause="python-exception",
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # controls: no rank may be named
        # (g) every rank's dataset path is missing (FileNotFoundError on every rank alike)
        T("t41-trun-2x2-missing-data-every-rank", [], fault="missing-data", rank=-1, culprits=[]),
        # (h) rank 0's checkpoint upload fails once (traceback logged at WARNING), is retried and succeeds; clean end
        T("t41-trun-2x2-retried-upload-clean", [], fault="retried-upload", rank=0, culprits=[], opts=TEE),
        # (i) a clean run
        T("t41-trun-2x2-clean", [], culprits=[]),
    ]


def plain_torchrun(sc: dict, opts: list[str], port: str, worker: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running ``worker`` (only the rendezvous and the scenario's own
    options given; the forty-second set's too)."""
    rdzv = ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}", "--rdzv-id", sc["name"]]
    return [["env", f"PYTHONPATH={HERE}", str(t11.BIN / "torchrun"), "--nnodes", str(sc["agents"]), "--nproc-per-node",
             str(sc["nproc"]), *rdzv, *opts, worker] for _ in range(sc["agents"])]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t41_worker.py."""
    return plain_torchrun(sc, opts, port, WORKER)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t41_worker.py" if part == WORKER else part
