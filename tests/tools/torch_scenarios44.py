"""The forty-fourth set of recorded runs (held out when recorded, the truths written before any recording): the
collectives users call beyond DDP's gradients (tests/tools/t44_worker.py: a config broadcast from rank 0, metrics
gathered to rank 0, a ring exchange of boundary tensors, seeds scattered from rank 0, a sharded DCP checkpoint, rank 0's
evaluation before a barrier), under plain ``torchrun`` (c10d rendezvous on 127.0.0.1, 2 agents x 2 processes, gloo
timeouts of 3 s), with torchrun's output options varied. Culprits: rank 0's unpicklable config, rank 2's unpicklable
metrics, rank 1 sending its boundary to the wrong peer (rank 2's receive never completes: rank 1 is the cause), rank
0's short scatter list, rank 3's checkpoint write failing (DCP's ``CheckpointException`` names it), rank 0 evaluating
past the others' barrier timeout (the others wait for it: ``never-joined``, as a rank late to a collective). Controls:
every rank resuming from a checkpoint folder that does not exist (only DCP's coordinator reads the metadata, so its
report names rank 0 alone: a path every rank was given), a clean run. ``victims``: the ranks that fail or wait because
of the culprit.
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t44_worker.py")
LAUNCHERS = ("t44run",)


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        return {**S(name, launcher="t44run", env=env, nproc=2, **kw), "victims": victims, "limit_s": 120}

    return [
        # rank 0's broadcast config holds a lambda: pickling fails on rank 0 (the only one that pickles); --redirects 3 with
        # --log-dir: the console holds the agents' lines and their failure tables only
        T("t44-trun-2x2-bcast-unpicklable-rank0-redirects", _others(0), fault="bcast-unpicklable", rank=0,
          cause="python-exception", opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # rank 2's gathered metrics hold a generator: `TypeError: cannot pickle 'generator' object`; only local rank 0 of
        # each node shown on the console (rank 2 is node 1's local rank 0)
        T("t44-trun-2x2-gather-unpicklable-rank2-filter0", _others(2), fault="gather-unpicklable", rank=2,
          cause="python-exception", opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # rank 1 sends its boundary to rank 3 instead of rank 2: rank 2 times out receiving from rank 1
        T("t44-trun-2x2-send-wrong-peer-rank1", _others(1), fault="send-wrong-peer", rank=1, cause="collective-mismatch"),
        # rank 0 scatters three seeds to four ranks: the scatter fails on rank 0; --tee 3
        T("t44-trun-2x2-scatter-short-rank0-tee", _others(0), fault="scatter-short", rank=0, cause="python-exception",
          opts=["--tee", "3"]),
        # rank 3's checkpoint file name is a directory: its write fails, every rank's DCP save raises naming rank 3
        T("t44-trun-2x2-dcp-save-blocked-rank3", _others(3), fault="dcp-save-blocked", rank=3, cause="python-exception"),
        # rank 0 evaluates 6 s while ranks 1-3 wait 3 s in the barrier after it
        T("t44-trun-2x2-eval-slow-rank0", _others(0), fault="eval-slow", rank=0, cause="never-joined"),
        # controls: no rank may be named
        # every rank resumes from a checkpoint folder that does not exist (DCP's coordinator, rank 0, reads its metadata)
        T("t44-trun-2x2-dcp-load-missing-every-rank", [], fault="dcp-load-missing", rank=-1, culprits=[]),
        T("t44-trun-2x2-clean", [], culprits=[], opts=["--tee", "3"]),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t44_worker.py."""
    return t41.plain_torchrun(sc, opts, port, WORKER)


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "train.py" if part == WORKER else part
