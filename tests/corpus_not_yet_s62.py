"""The corpus' expectations k10s does not meet yet from session 62's blind batches (388-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 62's batches that we do not meet, with why.
NOT_YET_S62: dict[str, str] = {
    # batch 390 (gpu-hardware-xid-ecc-fallen-off-bus-one-node-2023-2026): 3 of 3 read right both ways as collected
    # (57f7fa68), no NOT_YET, all three controls (NVSwitch Fabric Manager state, NVLS `Cuda failure 1 'invalid
    # argument'`): nccl-1488 (node23 device 2), nccl-1338 (devices 5, 1, 3, 0 of one process) and nccl-976 (prefix-less
    # call stack) a cuda-error warning of no rank: see
    # tests/test_gpu_hardware_xid_ecc_fallen_off_bus_one_node_2023_2026_batch390_wordings.py
    # session 62 leftovers
}
