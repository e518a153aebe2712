"""Threads settled by a hardware swap or a bad GPU (real incidents batch 224), pinned as read. Right: RETURNN's four
processes' healthy progress prints (``mem_usage:cuda:0`` .. ``cuda:3``) on the node whose GPU 03:00.0 the thread
finds gone (``Unable to determine the device handle for GPU0000:03:00.0: Unknown Error``, rwth-i6/returnn#1486), a
rerun whose step 178 is printed by three of the four devices before a cut ``Unhandled exception``
(rwth-i6/returnn#1484) and four local ranks' start-up lines of a run the author calls 'likely a hardware issue'
(rwth-i6/returnn#1520) name no one, as pasted and laid out on one node of four: a device index in a progress print
is no rank, a missing progress print is the script's own order, and the thread's bad GPU is known by PCI address
only. The same nvidia-smi answer pasted after the progress names no one either (a host's tool, no process). The
contrast: the same progress followed by one rank's own ProcessGroupNCCL watchdog ``CUDA error: unspecified launch
failure`` (FastVideo-1008's shape) names that rank, cuda-error. No rule changed for the batch (measure only). Pasted
logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)

CN234_STEPS = corpus_lines("returnn-1486-")
CN251_STEP178 = corpus_lines("returnn-1484-")
CN229_STARTUP = corpus_lines("returnn-1520-")
#: the thread's host answer for the bad card, pasted under the progress (no process, no rank)
NVSMI_GONE = [
    *CN234_STEPS,
    "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error",
]
#: the contrast: the failing GPU's own process says so, in PyTorch's rank-tagged watchdog wording
RANK1_WATCHDOG = [
    *CN234_STEPS,
    "[rank1]:[E102 17:40:12.241131296 ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group"
    " watchdog thread terminated with exception: CUDA error: unspecified launch failure",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # right as collected (controls)
    "cn234-healthy-progress-as-pasted": (CN234_STEPS, None, None, None, None),
    "cn234-healthy-progress-layout-4": (CN234_STEPS, 4, 4, None, None),
    "cn251-step178-three-devices-as-pasted": (CN251_STEP178, None, None, None, None),
    "cn251-step178-three-devices-layout-4": (CN251_STEP178, 4, 4, None, None),
    "cn229-startup-as-pasted": (CN229_STARTUP, None, None, None, None),
    "cn229-startup-layout-4": (CN229_STARTUP, 4, 4, None, None),
    # the thread's nvidia-smi answer under the progress: a PCI address, no process
    "cn234-nvidia-smi-unknown-error-layout-4": (NVSMI_GONE, 4, 4, None, None),
    # the contrast: the bad GPU's own rank reports its CUDA error
    "cn234-rank1-watchdog-launch-failure-layout-4": (
        RANK1_WATCHDOG,
        4,
        4,
        1,
        "cuda-error",
    ),
}
BATCHED = Batched("b224", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hardware_swap_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
