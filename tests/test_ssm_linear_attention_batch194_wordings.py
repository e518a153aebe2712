"""State-space and linear-attention model training (real incidents batch 194): their wordings, pinned as read.
Held culprit: rank 1's ProcessGroupNCCL watchdog terminating with ``CUDA error: an illegal memory access was
encountered`` after the training log's iteration lines (Dao-AILab/causal-conv1d#67, the forward kernel's out-of-bounds
``seq_idx`` read), as pasted, with a layout of 2 or 8 and in PyTorch 2.x's ``[PG ID 0 PG GUID 0(default_pg) Rank 1]
Process group watchdog`` wording, names rank 1, cuda-error. Held controls: Vision Mamba's two unranked
``causal_conv1d_fwd(): incompatible function arguments`` TypeErrors before a failure table listing ranks 2 and 6
(hustvl/Vim#93; one row left too), an RWKV LoRA run hanging after ``initializing deepspeed distributed: GLOBAL_RANK:
2``/``3`` until the shell's ``auto-logout`` (BlinkDL/RWKV-LM#170) and the middle of rank 0's
``retraining/0 [default0]:[rank0]:`` traceback of a NeMo Mamba float16 run (NVIDIA-NeMo/Speech#11742, only an info
finding) name no one. The two misses as read (NOT_YET in tests/corpus_not_yet_s36.py): an OOM naming only ``GPU 1``
(OpenMOSE/RWKV5-LM-LoRA#2) is oom-cascade naming no rank, and the shell's bare ``Bus error (core dumped)`` after two
processes' alike lines (BlinkDL/RWKV-LM#209) gives no finding. Contrasts: both ranks' watchdog IMA lines name no one;
the OOM under ``[rank1]:`` tags names rank 1, cuda-oom; the agent's ``failed (exitcode: -7) local_rank: 0`` in place of
the shell's line names rank 0, sigbus; rank 1's copy of the NeMo frames beside rank 0's names no one. No rule changed
for the batch (docs/rules.md, "Session 36: batch 194"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


IMA = corpus_lines("causal-conv1d-67-")
OOM = corpus_lines("RWKV5-LM-LoRA-2-")
BUS = corpus_lines("RWKV-LM-209-")
VIM = corpus_lines("Vim-93-")
HANG = corpus_lines("RWKV-LM-170-")
NEMO = corpus_lines("Speech-11742-")
IMA_2X = (
    "[rank1]:[E1104 09:12:41.093188419 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group "
    "watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered"
)
AGENT = "torch/distributed/elastic/multiprocessing/api.py"
AGENT_SIGBUS = [
    f"W1213 10:01:02.123000 140 {AGENT}:897] Sending process 2222 closing signal SIGTERM",
    f"E1213 10:01:03.456000 140 {AGENT}:869] failed (exitcode: -7) local_rank: 0 (pid: 2221) of binary: /opt/conda/bin/python",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # causal-conv1d-67's shape: rank 1's watchdog finds its CUDA context dead
    "ima-rank1-watchdog-as-pasted": (IMA, None, None, 1, "cuda-error"),
    "ima-rank1-watchdog-layout-2": (IMA, 2, 2, 1, "cuda-error"),
    "ima-rank1-watchdog-layout-8": (IMA, 8, 8, 1, "cuda-error"),
    "ima-rank1-watchdog-2x-wording": (
        IMA[:3] + [IMA_2X] + IMA[4:],
        None,
        None,
        1,
        "cuda-error",
    ),
    # Vim-93's shape: the same TypeError on every rank, the failure table's rows alike
    "vim-signature-table-as-pasted": (VIM, None, None, None, None),
    "vim-signature-table-layout-8": (VIM, 8, 8, None, None),
    "vim-signature-table-one-row": (VIM[:-6], 8, 8, None, None),
    # RWKV-LM-170's shape: ranks 2 and 3 initialise, then nothing until the shell logs out
    "deepspeed-init-hang-as-pasted": (HANG, None, None, None, None),
    "deepspeed-init-hang-layout-4": (HANG, 4, 4, None, None),
    # Speech-11742's shape: rank 0's traceback frames alone, no exception line
    "nemo-lone-rank0-frames-as-pasted": (NEMO, None, None, None, None),
    "nemo-lone-rank0-frames-layout-8": (NEMO, 8, 8, None, None),
    # the misses as read (NOT_YET): a device index is no rank; a shell's bare report names no process
    "oom-gpu1-untagged-as-pasted": (OOM, None, None, None, None),
    "oom-gpu1-untagged-layout-2": (OOM, 2, 2, None, None),
    "shell-bus-error-as-pasted": (BUS, None, None, None, None),
    "shell-bus-error-layout-2": (BUS, 2, 2, None, None),
    # contrasts: two ranks' IMA alike; the rank said by a tag or by the agent; two ranks' NeMo frames alike
    "ima-both-ranks-watchdog": (
        IMA + [IMA[3].replace("rank1", "rank0").replace("Rank 1", "Rank 0")],
        2,
        2,
        None,
        None,
    ),
    "oom-gpu1-rank1-tagged": ([f"[rank1]: {x}" for x in OOM], 2, 2, 1, "cuda-oom"),
    "bus-error-agent-local-rank0": (BUS[:-1] + AGENT_SIGBUS, 2, 2, 0, "sigbus"),
    "nemo-rank0-and-rank1-frames": (
        NEMO + [x.replace("default0]:[rank0", "default1]:[rank1") for x in NEMO],
        8,
        8,
        None,
        None,
    ),
}
BATCHED = Batched("b194", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ssm_linear_attention_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
