"""Distributed runs that quantize, prune or compress models (real incidents batch 165): the readings.
The miss: axolotl FSDP1 with torchao's 8-bit AdamW (axolotl-ai-cloud/axolotl#2773, from #2744) fails the final
checkpoint's optimizer-state gather with ``[rank5]: NotImplementedError: OptimState8bit dispatch: attempting to run
unimplemented operator/function: func=<OpOverload(op='aten.new_zeros', ...)>`` and only rank 5's traceback is in the
paste. A tensor subclass's dispatch with no implementation of an aten op (torchao's wording, float8_experimental's
``attempting to run aten.X, this is not supported``, DTensor's ``Operator aten.X does not have a sharding strategy
registered``) is the installed library's coverage of the op, the same on every rank running the step: common mode, no
rank named (docs/rules.md, "Session 34: batch 165"). Contrasts that still name the lone rank: another
NotImplementedError (its own path), and the dispatch refusal where a peer saw the rank's connection close (the peer
got past the call). The batch's held controls: every rank on one device (``Duplicate GPU detected``), a lone
``[rank0]:`` traceback start after calibration progress bars, a lone ``aborted on rank 5`` BROADCAST timeout, a lone
NeMo-Run ``[default1]:[rank1]:`` ncclUniqueId timeout. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
SP = "/home/arli/miniconda3/envs/axolotl/lib/python3.11/site-packages"
TORCHAO = (
    "OptimState8bit dispatch: attempting to run unimplemented operator/function: func=<OpOverload(op="
    "'aten.new_zeros', overload='default')>, types=(<class 'torchao.optim.subclass_8bit.OptimState8bit'>,), "
    "arg_types=(<class 'torchao.optim.subclass_8bit.OptimState8bit'>, <class 'list'>), "
    "kwarg_types={'pin_memory': <class 'bool'>}"
)


def _gather(tag: str, error: str, wrap: bool = False) -> list[str]:
    """axolotl-2773's shape: one rank's traceback through FSDP's optimizer-state gather into a subclass's dispatch."""
    lines = [
        f'{tag}  File "{SP}/torch/distributed/fsdp/_optim_utils.py", line 243, in _communicate_optim_state',
        f"{tag}    tensor_buffer = value.new_zeros(*buffer_size)",
        f"{tag}                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'{tag}  File "{SP}/torchao/utils.py", line 444, in _dispatch__torch_dispatch__',
        f"{tag}    raise NotImplementedError(",
    ]
    if wrap:  # the stored paste's own wrap inside the class name
        cut = error.index("torchao.optim")
        return lines + [
            f"{tag}NotImplementedError: {error[: cut + 5]}",
            error[cut + 5 :],
        ]
    return lines + [f"{tag}NotImplementedError: {error}"]


FLOAT8 = "attempting to run aten.mm.default, this is not supported"
DTENSOR = "Operator aten.amax.default does not have a sharding strategy registered."
#: session 60: the meta-tensor wording is a setup refusal (ZeRO-3's loading, Qwen-VL-Series-Finetune#7: a control), a
#: lone copy of which is a suspect only (lone-paste-setup-refusal); the contrast keeps another NotImplementedError
META_TENSOR = "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to()"
OWN = "Function MyScatterBackward returned an invalid gradient at index 1 - this path is not implemented"
PEER = (
    "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
    "[10.0.0.2]:41617"
)
AWQ = [
    "(1/49): Calibrating: 100%|██████████| 1024/1024 [00:00<00:00, 1461.24it/s]",
    "Smoothing: 0it [00:00, ?it/s]",
    "(2/49): Calibrating:   8%|▉         | 85/1024 [00:25<04:39,  3.36it/s]",
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/home/u/quant/awq.py", line 67, in <module>',
    "[rank0]:     oneshot(",
]
DUP = [
    "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
    "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
    "[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "[rank1]: Last error:",
    "[rank1]: Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
    "[rank2]: Traceback (most recent call last):",
    '[rank2]:   File "/data/u/quant/main.py", line 79, in main',
    "[rank2]:     model = wrap_the_model_with_ddp(model)",
]
ABORTED = [
    "RuntimeError: NCCL communicator was aborted on rank 5. Original reason for failure was: [Rank 5] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=1434735, OpType=BROADCAST, Timeout(ms)=1800000) ran "
    "for 1805433 milliseconds before timing out."
]
NCCLID = [
    "B-nemo-ft3/0 [default1]:[rank1]:     work = group.broadcast([tensor], opts)",
    "B-nemo-ft3/0 [default1]:[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and "
    "retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout "
    "after 600000ms, keys: /default_pg/0//cuda//0",
    "B-nemo-ft3/0 [default1]:[rank1]: Exception raised from doWait at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/"
    "TCPStore.cpp:578 (most recent call first):",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    "torchao-rank5": (_gather("[rank5]: ", TORCHAO), None, None, None),
    "torchao-rank5-wrapped": (
        _gather("[rank5]: ", TORCHAO, wrap=True),
        None,
        None,
        None,
    ),
    "torchao-rank3-of-8": (_gather("[rank3]: ", TORCHAO), 8, 8, None),
    "torchao-default3-agent-prefix": (
        _gather("[default3]:[rank3]: ", TORCHAO),
        4,
        8,
        None,
    ),
    "torchao-affine-quantized": (
        _gather(
            "[rank2]: ",
            TORCHAO.replace(
                "OptimState8bit dispatch", "AffineQuantizedTensor dispatch"
            ),
        ),
        None,
        None,
        None,
    ),
    "float8-experimental": (_gather("[rank6]: ", FLOAT8), 8, 8, None),
    "dtensor-sharding-strategy": (_gather("[rank1]: ", DTENSOR), None, None, None),
    # contrasts: another NotImplementedError is the rank's own path ...
    "own-notimplemented": (_gather("[rank5]: ", OWN), None, None, 5),
    # ... but not the meta-tensor refusal (this contrast until session 60): a lone setup refusal, a suspect only
    "meta-tensor-suspect-only": (_gather("[rank5]: ", META_TENSOR), None, None, None),
    # ... and so is the refusal where a peer saw the rank's connection close (the peer got past the call)
    "torchao-peer-saw-close": (_gather("[rank1]: ", TORCHAO) + [PEER], None, 2, 1),
    # the batch's held controls
    "awq-lone-rank0-start": (AWQ, None, 2, None),
    "duplicate-gpu-ranks": (DUP, 4, 4, None),
    "aborted-on-rank5": (ABORTED, None, None, None),
    "nemo-run-ncclid-from-0": (NCCLID, 2, 2, None),
}
BATCHED = Batched("b165", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_quant_compression_readings(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
