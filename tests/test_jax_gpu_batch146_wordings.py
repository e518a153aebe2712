"""Multi-process JAX/XLA on GPU (real incidents batch 146): the numbers XLA's and the coordination service's own
wordings carry that are not culprits. XLA's clique rendezvous names the *waiting* device (`initialize clique for
rank 6`) and its whole clique; a task's own failed `WatchTasksAsync ... for task 3` is that task reporting the
coordinator unreachable; `Execution of replica 3 failed` is the first of several replicas failing NCCL's communicator
set-up alike; NCCL's `[4]` is a device index of one process. None of them names a rank, as collected (batch 146's
three controls) and varied (more waiters, more tasks, other versions' file paths). Contrasts: the coordination
service setting one task to ERROR on a heartbeat timeout, and a barrier listing the tasks that never arrived, still
name that task (real incidents batches 11 and 45). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.timezone.utc)
RDV = (
    "2024-07-29 17:14:59.9201{i:02d}: E external/xla/xla/service/rendezvous.cc:38] This thread has been waiting for "
    "`initialize clique for rank {r}; clique=devices=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]; stream=0; "
    "run_id=724296073` for 10 seconds and may be stuck. Expected 8 threads to join the rendezvous, but not all of "
    "them arrived on time."
)
WATCH = "[rank{r}] WatchTasksAsync failed for task {r}: UNAVAILABLE: failed to connect to all addresses"
REFUSED = [
    "[rank0] :UNAVAILABLE:failed to connect to all addresses; last error: UNKNOWN:",
    "ipv4:10.186.213.145:13305: Failed to connect to remote host: Connection refused",
]
INTERCEPT = [
    "2023-09-01 10:20:11.3433{i:02d}: W external/xla/xla/service/gpu/runtime/support.cc:58] Intercepted XLA "
    "runtime error:",
    "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation ncclCommInitRank(&comm, nranks, "
    "id, rank) failed: unhandled cuda error",
]
REPLICA = (
    "2023-09-01 10:20:11.257981: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2593] Execution of "
    "replica {r} failed: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call "
    "'xla.gpu.all_reduce' failed: external/xla/xla/service/gpu/nccl_utils.cc:275: NCCL operation "
    "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error; current tracing scope: "
    "all-reduce-start.163; current profiling annotation: XlaModule:#hlo_module=pmap_train_step,program_id=1239#."
)
BOOT = [
    "user-G493-ZB1-AAP1-000:275204:2756{t} [{d}] NCCL INFO misc/socket.cc:666 -> 2".format(
        t=50 + d, d=d
    )
    for d in (4, 3)
] + [
    "2024-07-30 01:35:14.107390: W external/xla/xla/service/gpu/runtime/support.cc:58] Intercepted XLA runtime error:",
    "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) "
    "failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be "
    "unrelated) 'socketTryAccept: Accept failed: Bad file descriptor'.",
]
HEARTBEAT = (
    "2022-11-15 16:03:15.140058: E external/org_tensorflow/tensorflow/core/distributed_runtime/coordination/"
    "coordination_service.cc:954] /job:jax_worker/replica:0/task:{r} has been set to ERROR in coordination "
    "service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:{r} heartbeat timeout. This indicates that the "
    "remote task has failed, got preempted, or crashed unexpectedly. "
    "[type.googleapis.com/tensorflow.CoordinationServiceError='']"
)


def _intercepts(n: int) -> list[str]:
    return [line.format(i=i) for i in range(n) for line in INTERCEPT]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # jax-22740: one waiting device of host0, as collected, and all eight of them
    "clique-rendezvous-one-waiter": ([RDV.format(i=89, r=6)], None),
    "clique-rendezvous-eight-waiters": (
        [RDV.format(i=i, r=r) for i, r in enumerate((6, 0, 3, 1, 7, 2, 5, 4))],
        None,
    ),
    # marin-7650: the coordinator refuses every task, as collected and with every task's own watch failing
    "watchtasks-coordinator-refused": (REFUSED + [WATCH.format(r=3)], None),
    "watchtasks-four-tasks": (REFUSED + [WATCH.format(r=r) for r in (3, 1, 2)], None),
    # jax-17399: the first replica reported among several intercepted communicator errors
    "replica3-comm-init": (
        _intercepts(1) + [REPLICA.format(r=3)] + _intercepts(2),
        None,
    ),
    "replica3-comm-init-alone": ([REPLICA.format(r=3)], None),
    # jax-22747: one process's NCCL bootstrap failing for its devices
    "nccl-bootstrap-bad-fd": (BOOT, None),
    # contrast: the coordination service sets one task to ERROR on a heartbeat timeout (architecture-objective-26)
    "heartbeat-task-error": ([HEARTBEAT.format(r=37)], 37),
    # contrast: a coordination-service barrier lists the one task that never arrived (levanter-432's wording)
    "barrier-timed-out-task-names": (
        [
            "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
            "multihost_broadcast_sync0. Timed out task names:",
            "/job:jax_worker/replica:0/task:5",
        ],
        5,
    ),
}
BATCHED = Batched("b146", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_xla_and_coordination_numbers_name_no_one(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
