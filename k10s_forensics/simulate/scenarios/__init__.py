"""Scenario registry: name -> function(sim) that plans the job, GPU activity, logs and truth.

To add a scenario: write ``def my_scenario(sim) -> None`` in a module here, register it in
``SCENARIOS`` and in ``constants.SCENARIOS`` (a test fails when the two differ).
"""

from __future__ import annotations

from collections.abc import Callable

from k10s_forensics.simulate.scenarios.hang_dumps import hang_flight_recorder, hang_ras_dead
from k10s_forensics.simulate.scenarios.crashes import nccl_hang, oom_crashloop, xid_79
from k10s_forensics.simulate.scenarios.node_loss import node_lost
from k10s_forensics.simulate.scenarios.disruption import pod_disrupted
from k10s_forensics.simulate.scenarios.rank_failures import rank_cuda_error, rank_exception, rank_host_oom, rank_segfault
from k10s_forensics.simulate.scenarios.hangs import collective_mismatch, nccl_desync_report, nccl_size_mismatch, nccl_stall_all
from k10s_forensics.simulate.scenarios.scheduling import idle_gpus, pending_capacity, pending_quota, pending_taint
from k10s_forensics.simulate.scenarios.startup import STARTUP_SCENARIOS
from k10s_forensics.simulate.scenarios.stragglers import healthy, straggler_compute, straggler_input, straggler_network

SCENARIOS: dict[str, Callable] = {
    "healthy": healthy,
    "straggler-compute": straggler_compute,
    "straggler-input": straggler_input,
    "straggler-network": straggler_network,
    "oom-crashloop": oom_crashloop,
    "nccl-hang": nccl_hang,
    "idle-gpus": idle_gpus,
    "pending-taint": pending_taint,
    "pending-capacity": pending_capacity,
    "pending-quota": pending_quota,
    "xid-79": xid_79,
    "node-lost": node_lost,
    "pod-disrupted": pod_disrupted,
    "rank-host-oom": rank_host_oom,
    "rank-segfault": rank_segfault,
    "rank-exception": rank_exception,
    "rank-cuda-error": rank_cuda_error,
    "nccl-size-mismatch": nccl_size_mismatch,
    "nccl-desync-report": nccl_desync_report,
    "collective-mismatch": collective_mismatch,
    "nccl-stall-all": nccl_stall_all,
    "hang-flight-recorder": hang_flight_recorder,
    "hang-ras-dead": hang_ras_dead,
    **STARTUP_SCENARIOS,
}
