"""The thirty-fourth set of recorded runs (held out when recorded): failures confined to a process group smaller than
the world, on CPU with gloo. Each node is ``torchrun`` (torch_scenarios11's command: c10d rendezvous, 2 agents x 2
processes, ``K10S_GLOO_TIMEOUT_S=3``) running tests/tools/t34_worker.py: ``torch.distributed.pipelining`` schedules other
than the twenty-sixth set's GPipe (``Schedule1F1B``, ``ScheduleInterleaved1F1B`` with two stages per rank), ``dist.new_group``
sub-groups with ``monitored_barrier(group=...)``, and a ring of point-to-point ``batch_isend_irecv``. Imported by
torch_scenarios.py (its ``S`` builds each one); ``plan`` is the program's plan (K10S_T34_PLAN), ``victims`` the ranks that
fail or wait because of the culprit (kept in truth.json as ``victim_ranks``).
"""

from __future__ import annotations

from pathlib import Path

import torch_scenarios11 as t11

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t34_worker.py")
LAUNCHERS = ("t34run",)


def scenarios(S) -> list[dict]:
    def T(name: str, plan: str, victims: list[int], **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", "K10S_T34_PLAN": plan, **kw.pop("env", {})}
        return {**S(name, launcher="t34run", env=env, **kw), "victims": victims, "limit_s": 150}

    detail = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
    return [
        # Schedule1F1B, one stage per rank: the middle stage on rank 2 is stuck in its own forward (a 60 s compute
        # loop); its neighbours 1 (waiting for its gradients) and 3 (for its activations) wait first, rank 0 behind 1
        T("t34-trun-2x2-pipe-1f1b-stage-hang-rank2", "1f1b", [0, 1, 3], fault="stuck", rank=2, cause="never-joined"),
        # ScheduleInterleaved1F1B, stages r and r+4 on rank r: rank 1's stage 1 was built 20 units wide where the
        # pipeline's width is 16; stage 2 (rank 2) is the one that gets its output
        T("t34-trun-2x2-pipe-interleaved-shape-rank1", "interleaved", [0, 2, 3], fault="shape", rank=1,
          cause="collective-mismatch"),
        # ScheduleInterleaved1F1B: rank 2 (stages 2 and 6) SIGKILLed in its forward mid-schedule (the kernel's OOM killer)
        T("t34-trun-2x2-pipe-interleaved-sigkill-rank2", "interleaved", [0, 1, 3], fault="sigkill", rank=2,
          cause="host-oom-kill"),
        # new_group pairs {0, 1}, {2, 3}; every step a monitored_barrier(group=pair): rank 3 is stuck in compute before
        # it, so its pair peer rank 2 (group rank 0) waits in the barrier; ranks 0, 1 in the next all-reduce over all
        T("t34-trun-2x2-subgroup-monitored-barrier-rank3", "groups", [0, 1, 2], fault="stuck-barrier", rank=3,
          cause="never-joined", env={"K10S_T34_MBAR": "1"}),
        # the pairs under TORCH_DISTRIBUTED_DEBUG=DETAIL: rank 2 leaves its pair's all-reduce out at step 3 and goes
        # on to the all-reduce over every rank (its pair peer rank 3 waits for it; ranks 0, 1 wait for rank 3)
        T("t34-trun-2x2-subgroup-skip-detail-rank2", "groups", [0, 1, 3], fault="skip", rank=2, cause="never-joined",
          env=detail),
        # a ring of batch_isend_irecv (send to r+1, receive from r-1): at step 3 rank 1 sends to rank 3 instead of 2
        T("t34-trun-2x2-p2p-wrong-peer-rank1", "ring", [0, 2, 3], fault="wrong-peer", rank=1,
          cause="collective-mismatch"),
        # controls: no rank may be named
        # Schedule1F1B given 2 microbatches for 4 stages: every rank's schedule refuses it (a configuration error)
        T("t34-trun-2x2-pipe-1f1b-microbatches-every-rank", "1f1b", [], culprits=[], env={"K10S_T34_MB": "2"}),
        # a clean run: the interleaved schedule, then the pairs' monitored barrier and the ring (plan ``all``)
        T("t34-trun-2x2-clean-interleaved-groups-ring", "all", [], culprits=[], env={"K10S_T34_MBAR": "1"}),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line, in start order: torch_scenarios11's ``torchrun`` with this set's program."""
    cmds = t11.commands({**sc, "launcher": "t11run"}, opts, port)
    return [[WORKER if p == t11.WORKER else p for p in cmd] for cmd in cmds]


def public(part: str) -> str:
    """A command part as the user would type it."""
    return "t34_worker.py" if part == WORKER else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
