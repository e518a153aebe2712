"""One GPU's or one node's hardware faults (Xid, ECC, NVLink, IB), 2024-2026 (real incidents batch 401), pinned as read.
Three incidents collected blind (only three usable threads in ~60 searches: the theme's settled threads are mined
already), one culprit and two controls. Two were read right as collected: ranks 5-7's interleaved Gloo start-up lines
and one worker's FlashInfer banner (``Number of GPUs: 8``) of a DeepSeek-R1 engine on one 8x B200 node that hangs after
NCCL initialisation (vllm-project/vllm#40604: fixed by rebooting the node, 'the NVLink status was incorrect') find
nothing, as pasted or as 8 processes; three untagged ``[TRT-LLM] [I] NVLinkOneSided not available: Invalid Argument``
lines and the NVSHMEM heap's ``mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed`` (NVIDIA/TensorRT-LLM#17060: a
healthy NVL72 node, an NVML link-probe bug every rank hits) find nothing either. The third is NOT_YET (batch 401): the
node's kernel log alone, five ``NVRM: Xid (PCI:0000:9a:00): 13, Graphics SM Cga Exception ... CTA Not Present`` / ESR
lines (sgl-project/sglang#34260: the author's table maps crash 1 to ``TP4 | 4 | 0000:9a:00``, one TP rank faulting and
seven blocking; the card not defective, a Kimi-K3 kernel bug) is a gpu-health warning ``xid-13`` of no rank: the paste
carries no PCI-to-rank map. Scored 2/3 both ways as collected (1abd06b1). Contrasts: the hang with rank 3's own
``uncorrectable NVLink error`` names rank 3 (cuda-error), the same line untagged no one; the Xid lines with TP4's
scheduler exception (SGLang's ``TP4`` tag) or a ``[rank4]:`` ``unspecified launch failure`` name rank 4, the Xid lines
on two PCI addresses no one; the TensorRT-LLM lines with rank 2's illegal memory access name rank 2, every line
tagged ``[rank2]:`` still no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 21, 0, tzinfo=dt.timezone.utc)

NODE_HANG = corpus_lines("vllm-40604-")
XID13 = corpus_lines("sglang-34260-")
NVL72_PROBE = corpus_lines("TensorRT-LLM-17060-")

#: the hang with rank 3's own NVLink error line after the start-up lines
NODE_HANG_RANK3_NVLINK = NODE_HANG + [
    "[rank3]: RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution"
]
#: the same NVLink error untagged (the console of every worker)
NODE_HANG_UNTAGGED_NVLINK = NODE_HANG + [
    "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution"
]
#: the Xid lines with the faulting rank's SGLang scheduler exception (the thread's symptom: TP4 raises)
XID13_TP4_SCHEDULER = XID13 + [
    "[2026-08-10 17:51:25 TP4] Scheduler hit an exception: Traceback (most recent call last):",
    "torch.AcceleratorError: CUDA error: unspecified launch failure",
]
#: the Xid lines with a torch-tagged copy of rank 4's CUDA error
XID13_RANK4_TAGGED = XID13 + ["[rank4]: torch.AcceleratorError: CUDA error: unspecified launch failure"]
#: the same Xid lines on two PCI addresses (the thread's second crash hit 0000:bc:00)
XID13_TWO_GPUS = XID13 + [line.replace("9a:00", "bc:00") for line in XID13]
#: the probe lines with rank 2's own illegal memory access after them
NVL72_PROBE_RANK2_IMA = NVL72_PROBE + [
    "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered"
]
#: every probe line tagged by rank 2 (one rank's console, no error of its own)
NVL72_PROBE_RANK2_TAGGED = ["[rank2]: " + line for line in NVL72_PROBE]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "node-hang-as-pasted": (NODE_HANG, None, None, None, None),
    "node-hang-eight-processes": (NODE_HANG, 8, 8, None, None),
    "nvl72-probe-as-pasted": (NVL72_PROBE, None, None, None, None),
    "nvl72-probe-four-processes": (NVL72_PROBE, 4, 4, None, None),
    # NOT_YET as collected (the truth is TP4): a rankless gpu-health warning, pinned as read
    "xid13-as-pasted-names-none": (XID13, None, None, None, None),
    "xid13-eight-ranks-names-none": (XID13, 8, 8, None, None),
    # variants that must not name anyone
    "node-hang-untagged-nvlink-names-none": (NODE_HANG_UNTAGGED_NVLINK, 8, 8, None, None),
    "xid13-two-gpus-names-none": (XID13_TWO_GPUS, 8, 8, None, None),
    "nvl72-probe-rank2-tagged-names-none": (NVL72_PROBE_RANK2_TAGGED, 4, 4, None, None),
    # contrasts that must name a rank
    "node-hang-rank3-nvlink-names-rank3": (NODE_HANG_RANK3_NVLINK, 8, 8, 3, "cuda-error"),
    "xid13-tp4-scheduler-names-rank4": (XID13_TP4_SCHEDULER, 8, 8, 4, "cuda-error"),
    "xid13-rank4-tagged-names-rank4": (XID13_RANK4_TAGGED, 8, 8, 4, "cuda-error"),
    "nvl72-probe-rank2-ima-names-rank2": (NVL72_PROBE_RANK2_IMA, 4, 4, 2, "cuda-error"),
}
BATCHED = Batched("b401", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hardware_fault_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_node_hang_after_nccl_init_finds_nothing(tmp_path):
    """vllm#40604 as collected: interleaved Gloo start-up lines and a FlashInfer banner hold no error; the hang is the
    node's NVLink state (fixed by a reboot), no rank's."""
    assert _gist(NODE_HANG, tmp_path / "a", None, None) == []
    assert _gist(NODE_HANG, tmp_path / "b", 8, 8) == []


def test_lone_xid13_kernel_log_is_a_rankless_gpu_health_warning(tmp_path):
    """sglang#34260, NOT_YET as collected: the Xid 13 lines name a PCI address only, so k10s reports the GPU's Xid at
    warning with no rank; the truth (TP4) sits in the author's table, not the paste."""
    assert _gist(XID13, tmp_path / "a", None, None) == [("gpu-health", "warning", "xid-13", [])]
    assert _gist(XID13, tmp_path / "b", 8, 8) == [("gpu-health", "warning", "xid-13", [])]


def test_xid13_beside_tp4_scheduler_exception_names_rank4(tmp_path):
    """With the faulting rank's own SGLang line the CUDA error names TP4 (medium) and the Xid stays a rankless
    gpu-health warning beside it."""
    assert _gist(XID13_TP4_SCHEDULER, tmp_path, 8, 8) == [
        ("rank-failure", "warning", "cuda-error", [4]),
        ("gpu-health", "warning", "xid-13", []),
    ]


def test_healthy_nvl72_probe_failure_finds_nothing(tmp_path):
    """TensorRT-LLM#17060 as collected: 'not available: Invalid Argument' info lines and NVSHMEM's cuMemMap failure
    carry no rank and no CUDA error wording k10s reads: nothing."""
    assert _gist(NVL72_PROBE, tmp_path / "a", None, None) == []
    assert _gist(NVL72_PROBE, tmp_path / "b", 4, 4) == []
