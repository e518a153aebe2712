"""The corpus' expectations k10s does not meet yet from session 55's blind batches (320-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 55's batches that we do not meet, with why.
NOT_YET_S55: dict[str, str] = {
    # batch 321 (newest-threads-2026-oct-dec): none; all three read right both ways as collected (830846c5)
    # batch 323 (hardware-xid-ecc-nvlink-fabric): none; all five read right both ways as collected (8f3b61a5)
    # batch 322: verl#2950 read right since session 55 (Ray's memory-monitor notice names its WorkerDict_0:N rank)
    # batch 324 (non-torchrun-launchers): 3 of 4 controls read right both ways as collected (15e0b81c)
    # batch 324: huatuogpt-o1-9 read right since session 61 (a lone paste's `RuntimeError: Expected all tensors to be on
    # the same device, but found at least two devices, cuda:0 and cpu!` is a suspect only: low_why
    # lone-paste-program-structure)
    # batch 326 (megatron-nemo-torchtitan-2026): none; all four controls read right both ways as collected (8f645319)
    # batch 320 (spot-preemption-sigterm-node-shutdown): none; all four controls read right both ways as collected (92cae03f)
    # batch 325 (k8s-operator-pod-failures-2025-2026): none; all three read right both ways as collected (46741c1a)
    # session 55 leftovers
}
