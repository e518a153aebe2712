"""Which process a CUDA OOM belongs to when the line carries no rank (real incidents batch 20).

PyTorch's allocator message names the device of the failed allocation (`(GPU 7; ...)`, `GPU 7 has a
total capacity of ...`), not the process: a process that spreads its model over several GPUs
(`device_map="auto"` under torchrun) names any of them, so the ordinal alone names no rank. NCCL's own
line prefix (`host:pid:tid [3] ... NCCL WARN Cuda failure 'out of memory'`) is the device of the
printing process's communicator: in a pod whose processes see all its GPUs it is the local rank.
"""

from __future__ import annotations

import pytest

from incident_kit import Case, incident_bundle
from k10s_forensics.analyze.runner import analyze

LEGACY = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.42 GiB (GPU 7; 79.21 GiB total capacity; "
          "57.13 GiB already allocated; 576.56 MiB free; 61.86 GiB reserved in total by PyTorch)")
NEW = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity of 79.15 GiB "
       "of which 1.10 GiB is free. Of the allocated memory 70.00 GiB is allocated by PyTorch.")
NCCL = ("gpu-node-0:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
        "gpu-node-0:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes")


def oom_findings(tmp_path, lines: list[str]) -> list[dict]:
    bundle = incident_bundle(tmp_path / "b", Case("synthetic", "", [], [], 8, 8), "\n".join(lines))
    return [f for f in analyze(bundle)["findings"] if f["rule"] == "oom-cascade"]


@pytest.mark.parametrize("line", [LEGACY, NEW], ids=["legacy-wording", "2.x-wording"])
def test_allocator_ordinal_alone_names_no_rank(tmp_path, line):
    found = oom_findings(tmp_path, [line])
    assert found and found[0]["cause"] == "cuda-oom"
    assert not found[0]["ranks"], found  # a real OOM, but not pinned on local rank 7 / 5


@pytest.mark.parametrize("masked", [False, True], ids=["as-logged", "host-and-pid-redacted"])
def test_nccl_prefix_device_is_the_local_rank(tmp_path, masked):
    lines = [ln.replace("gpu-node-0:3063028:3066152", "xxxxxxxx:xxxxxxx:xxxxxxx") if masked else ln for ln in NCCL]
    found = oom_findings(tmp_path, lines)
    assert [f["ranks"] for f in found] == [[3]]



#: NCCL's allocation failure in two processes of one node (devices 0 and 7), neither sized (NVIDIA/Megatron-LM#1509)
NCCL_PAIR = ("node-a:47604:53083 [0] include/alloc.h:103 NCCL WARN Cuda failure 2 'out of memory'",
             "node-a:47611:53081 [7] include/alloc.h:103 NCCL WARN Cuda failure 2 'out of memory'")


@pytest.mark.parametrize("stamped", [False, True], ids=["no-clock", "same-second"])
def test_two_processes_unsized_nccl_oom_at_once_name_no_rank(tmp_path, stamped):
    """Two processes' NCCL OOMs at once, neither giving a size, ran out together: neither is the culprit (the first
    printed was named before: an unsized pair never compared equal)."""
    stamp = ("2026-01-01T00:00:00.100Z ", "2026-01-01T00:00:00.400Z ") if stamped else ("", "")
    found = oom_findings(tmp_path, [s + line for s, line in zip(stamp, NCCL_PAIR, strict=True)])
    assert [f["ranks"] for f in found] == [[]], found
    assert found[0]["cause"] == "cuda-oom"


def test_unsized_nccl_oom_a_minute_apart_names_the_first(tmp_path):
    """The same pair a minute apart: device 0's ran out first and is named (the contrast)."""
    lines = ["2026-01-01T00:00:00.100Z " + NCCL_PAIR[0], "2026-01-01T00:01:00.100Z " + NCCL_PAIR[1]]
    assert [f["ranks"] for f in oom_findings(tmp_path, lines)] == [[0]]
