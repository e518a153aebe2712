"""Multi-GPU training of models that lean on custom CUDA/Triton kernels (real incidents batch 183): the readings.
The misses: a compiled extension that does not match the torch it is loaded into, and a library call that the
installed version of the library no longer takes, were read as the failing rank's own exception. axolotl's
accelerate run (axolotl-ai-cloud/axolotl#1157) pastes two workers' ``flash_attn_2_cuda…so: undefined symbol``
ImportErrors glued into each other, then the agent's ``failed (exitcode: 1) local_rank: 0``; OpenDiT under torchrun
(NUS-HPC-AI-Lab/VideoSys#113) shows apex's ``fused_layer_norm_cuda`` raising ``memory format option is only supported
by strided tensors`` before the agent's ``local_rank: 0`` exit; thunder's FP8 run on 2 x 8 GPUs
(Lightning-AI/lightning-thunder#1149) quotes only rank 8's ``TypeError: …get_fp8_workspace() got an unexpected keyword
argument 'with_transpose'``. Every process imports the same wheel from the same environment and calls the same
library: common mode, no rank named (docs/rules.md, "Session 35: batch 183"; rank 0's too since session 56, a
signature mismatch being every rank's). Contrasts that still name the rank: another TypeError, the extension's CUDA error (the printing GPU's own), and the import refusal where a peer saw the rank's
connection close (the peer got past it). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
SP = "/home/phoenix/anaconda3/envs/axo/lib/python3.11/site-packages"
SO = f"{SP}/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so"
AGENT_OLD = (
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {r} (pid: 1274) of "
    "binary: /home/phoenix/anaconda3/envs/axo/bin/python"
)
AGENT_GLOG = (
    "E0120 10:11:12.345000 1201 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
    "(exitcode: 1) local_rank: {r} (pid: 1274) of binary: /usr/bin/python"
)
AGENT_BRACKET = (
    "[2024-03-20 15:13:58,980] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
    "local_rank: {r} (pid: 155022) of binary: /home/u/anaconda3/envs/opendit/bin/python"
)
GLUED = [  # axolotl-1157's paste: two workers' copies glued, the message wrapped after `undefined `
    "    import flash_attn_2_cuda as flash_attn_cuda",
    "import flash_attn_2_cuda as flash_attn_cuda",
    f"ImportError: ImportError{SO}: undefined ",
    "symbol: _ZN3c104cuda9SetDeviceEi:",
    f"{SO}: undefined symbol: _ZN3c104cuda9SetDeviceEi",
]


def _import(
    tag: str, error: str = "ImportError", symbol: str = "_ZN3c104cuda9SetDeviceEi"
) -> list[str]:
    """One rank's import of the extension failing at the dynamic linker."""
    return [
        f"{tag}Traceback (most recent call last):",
        f'{tag}  File "{SP}/flash_attn/flash_attn_interface.py", line 10, in <module>',
        f"{tag}    import flash_attn_2_cuda as flash_attn_cuda",
        f"{tag}{error}: {SO}: undefined symbol: {symbol}",
    ]


def _layernorm(
    tag: str, message: str = "memory format option is only supported by strided tensors"
) -> list[str]:
    """VideoSys-113's shape: apex's fused layer norm op raising in the first forward."""
    ln = "/home/u/anaconda3/envs/opendit/lib/python3.10/site-packages/apex/normalization/fused_layer_norm.py"
    return [
        f'{tag}  File "{ln}", line 149, in forward',
        f"{tag}    output, mean, invvar = fused_layer_norm_cuda.forward(input_, ctx.normalized_shape, ctx.eps)",
        f"{tag}RuntimeError: {message}",
    ]


def _scan(tag: str) -> list[str]:
    """VMamba's selective scan extension with the same refusal."""
    return [
        f'{tag}  File "/home/u/VMamba/classification/models/csms6s.py", line 261, in forward',
        f"{tag}    out, x, *rest = selective_scan_cuda_core.fwd(u, delta, A, B, C, D, delta_bias, delta_softplus, 1)",
        f"{tag}RuntimeError: memory format option is only supported by strided tensors",
    ]


TE = "TransformerEngineBaseModule.get_fp8_workspace() got an unexpected keyword argument 'with_transpose'"


def _typeerror(tag: str, message: str = TE, quote: str = "") -> list[str]:
    """thunder-1149's shape: the executor's call into Transformer Engine."""
    return [
        f'{quote}File "/opt/pytorch/lightning-thunder/thunder/executors/transformer_engineex.py", line 292, in '
        "get_fp8_weight_version_compat",
        f"{quote}{tag}    weight_fp8 = self.get_fp8_workspace(",
        f"{quote}{tag}TypeError: {message}",
    ]


PEER = "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:41617"
IMA = [
    f'[rank3]:   File "{SP}/flash_attn/flash_attn_interface.py", line 96, in _flash_attn_forward',
    "[rank3]:     out, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd(",
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    "glued-importerror-agent-local-rank0": (
        GLUED + [AGENT_OLD.format(r=0)],
        None,
        None,
        None,
    ),
    "glued-importerror-glog-agent-local-rank2": (
        GLUED + [AGENT_GLOG.format(r=2)],
        4,
        4,
        None,
    ),
    "lone-rank3-importerror": (_import("[rank3]: "), 4, 4, None),
    "lone-rank5-oserror-cudnn": (
        [
            "[rank5]: OSError: /usr/local/lib/python3.10/dist-packages/nvidia/cudnn/lib/libcudnn_ops.so.9: undefined "
            "symbol: _ZN5cudnn3ops18scaleTensor_internalEP12cudnnContextPK17cudnnTensorStructPvPKv, version libcudnn_ops.so.9"
        ],
        8,
        8,
        None,
    ),
    "unranked-importerror-agent-old": (
        _import("") + [AGENT_OLD.format(r=1)],
        2,
        2,
        None,
    ),
    "apex-layernorm-agent-bracket-local-rank0": (
        _layernorm("") + [AGENT_BRACKET.format(r=0)],
        None,
        None,
        None,
    ),
    "apex-layernorm-rank1-prefixed": (_layernorm("[rank1]: "), 2, 2, None),
    "selective-scan-rank2": (_scan("[rank2]: "), 4, 4, None),
    "te-typeerror-rank8-quoted": (_typeerror("[rank8]: ", quote="> "), 8, 16, None),
    "te-typeerror-rank8": (_typeerror("[rank8]: "), 8, 16, None),
    "init-typeerror-rank3": (
        _typeerror(
            "[rank3]: ",
            "__init__() got an unexpected keyword argument 'worker_use_ray'",
        ),
        4,
        4,
        None,
    ),
    # rank 0's unexpected keyword too since session 56 (a signature mismatch is every rank's; session 35 had left rank 0
    # out for its saves and evaluations, on no incident: batch 333's AgentCPM-GUI#51 is rank 0's, a control) ...
    "te-typeerror-rank0": (_typeerror("[rank0]: "), 4, 4, None),
    # ... another TypeError is the rank's own ...
    "other-typeerror-rank5": (
        _typeerror(
            "[rank5]: ", "unsupported operand type(s) for +: 'NoneType' and 'int'"
        ),
        8,
        8,
        5,
    ),
    # ... the extension's CUDA error is the printing GPU's own ...
    "flash-attn-illegal-address-rank3": (IMA, 4, 4, 3),
    # ... and so is the import refusal where a peer saw the rank's connection close (the peer got past the import)
    "importerror-peer-saw-close": (_import("[rank1]: ") + [PEER], None, 2, 1),
}
BATCHED = Batched("b183", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_custom_kernel_readings(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
