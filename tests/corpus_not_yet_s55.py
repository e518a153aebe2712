"""The corpus' expectations k10s does not meet yet from session 55's blind batches (320-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 55's batches that we do not meet, with why.
NOT_YET_S55: dict[str, str] = {
    # batch 321 (newest-threads-2026-oct-dec): none; all three read right both ways as collected (830846c5)
    # batch 323 (hardware-xid-ecc-nvlink-fabric): none; all five read right both ways as collected (8f3b61a5)
    # batch 322
    "verl-2950-dapo-ray-memory-monitor-kills-workerdict-3":
        "Ray's memory-monitor notice (`Task was killed due to the node running low on memory.`) is read as a host-oom-kill "
        "(warning) of no rank: the task it names, `name=8szhVkWorkerDict_0:3:WorkerDict.__init__`, carries verl's worker "
        "rank 3 in the same `WorkerDict_0:N` actor name the corpus reads in Ray's `ActorDiedError` (`name: ...WorkerDict_0:3` "
        "names rank 3), but not inside the kill notice's `name=<actor>:<Class>.<method>`; that the worker Ray killed is rank "
        "3 of four is Ray's own line, not yet a rank k10s reads",
    # session 55 leftovers
}
