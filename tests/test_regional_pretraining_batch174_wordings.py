"""Regional and national LLM pre-training on shared clusters (real incidents batch 174): their wordings, pinned as read.
A lone rank's ProcessGroupNCCL watchdog terminating with its own CUDA error after a normal Megatron iteration line
(NVIDIA-NeMo/Megatron-Bridge#836: global rank 29, rank 1 of its TENSOR_MODEL_PARALLEL_GROUP, ``unspecified launch
failure`` in PyTorch 2.8's ``[PG ID 5 PG GUID 83(...) Rank 1]`` wording; PyTorch 2.2's ``[Rank 29] NCCL watchdog
thread terminated`` wording; an illegal memory access) names rank 29, cuda-error. Held controls: six MI250X GCDs'
``Memory access fault by GPU node-N ... Reason: Unknown.`` among ``GPU core dump failed`` on LUMI
(EleutherAI/gpt-neox#1310; the HSA agent id is no host or rank), srun-tagged ranks 2 and 15 interleaving Megatron's
``AssertionError: num_layers should be divisible by pipeline_model_parallel_size`` (NVIDIA-BioNeMo/bionemo-recipes#784),
the head of rank 0's ``deepspeed.initialize`` broadcast traceback cut before its ``ncclRemoteError``
(AMDResearch/hpcfund#58) and two processes' interleaved ``UnpicklingError`` on the dataset index cache
(alibaba/Pai-Megatron-Patch#226) name no one. No rule changed for the batch (all five met as collected). Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 7, 0, tzinfo=dt.timezone.utc)
LIB = "/usr/local/lib/python3.12/dist-packages"
ITERATION = (
    " [2025-10-02 12:20:48] iteration       48/      50 | consumed samples:         3072 | elapsed time per iteration "
    "(ms): 7138.7 | learning rate: 7.200000E-06 | global batch size:    64 | lm loss: 8.317189E-02 | loss scale: 1.0 | "
    "grad norm: 1.721 | number of skipped iterations:   0 | number of nan iterations:   0 |"
)
CUDA_TAIL = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
    "incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "",
    "Exception raised from c10_cuda_check_implementation at /opt/pytorch/pytorch/c10/cuda/CUDAException.cpp:43 (most "
    "recent call first):",
    "frame #0: c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, "
    f"std::allocator<char> >) + 0x88 (0x7ffff4279568 in {LIB}/torch/lib/libc10.so)",
]


def _watchdog(error: str, new: bool = True) -> list[str]:
    """Megatron-Bridge-836's shape: rank 29's own CUDA error in its watchdog, PyTorch 2.8 or 2.2 wording."""
    if new:
        head = (
            "[rank29]:[E1002 12:20:55.123831168 ProcessGroupNCCL.cpp:1923] [PG ID 5 PG GUID "
            "83(TENSOR_MODEL_PARALLEL_GROUP) Rank 1] Process group watchdog thread terminated with exception: "
        )
    else:
        head = "[rank29]:[E ProcessGroupNCCL.cpp:1182] [Rank 29] NCCL watchdog thread terminated with exception: "
    return [head + f"CUDA error: {error}"] + CUDA_TAIL


FAULTS = [
    ("9", "0x7d5f990", "0x14a1cfe01000"),
    ("6", "0x7d5b060", "0x14c2c7e01000"),
    ("11", "0x810fd10", "0x152be7e01000"),
    ("8", "0x7d5c290", "0x15098be01000"),
    ("4", "0x7d581a0", "0x153d9fe01000"),
    ("7", "0x7d5c100", "0x153e07e01000"),
]


def _faults(dumps: bool, tasks: bool = False) -> list[str]:
    """gpt-neox-1310's shape: six GCDs' memory access faults, with or without the core-dump lines or srun tags."""
    out = []
    for i, (agent, handle, addr) in enumerate(FAULTS):
        line = f"Memory access fault by GPU node-{agent} (Agent handle: {handle}) on address {addr}. Reason: Unknown."
        if tasks:
            line = f"{int(agent) - 4}: {line}"
        if dumps and i % 2 == 0:
            out.append("GPU core dump failed")
        out.append(line)
    return out


TB = f"{LIB}/megatron/core/transformer/transformer_block.py"


def _pp_assert(rank: int, tag: bool) -> list[str]:
    """bionemo-recipes-784's shape: one rank's tail of the num_layers/pipeline-size assertion."""
    p = (f"{rank:2d}: " if tag else "") + f"[rank{rank}]:"
    return [
        f'{p}   File "{TB}", line 201, in _get_block_submodules',
        f"{p}     num_layers = get_num_layers_to_build(config)",
        f"{p}                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'{p}   File "{TB}", line 110, in get_num_layers_to_build',
        f"{p}     num_layers % config.pipeline_model_parallel_size == 0",
        f"{p} AssertionError: num_layers should be divisible by pipeline_model_parallel_size",
    ]


def _lightning(rank: int, tag: bool) -> list[str]:
    p = (f"{rank:2d}: " if tag else "") + f"[rank{rank}]:"
    return [
        f'{p}   File "{LIB}/lightning/pytorch/trainer/call.py", line 46, in _call_and_handle_interrupt',
        f"{p}     return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)",
    ]


def _interleaved(tag: bool) -> list[str]:
    """As pasted: rank 2's traceback around rank 15's assertion."""
    return _lightning(2, tag) + _pp_assert(15, tag) + _lightning(2, tag)


ENV = "/work1/mzhang/ag82/hoa/amdenv313/lib/python3.13/site-packages/deepspeed"
DS_HEAD = [
    "[rank0]:     model_engine, ds_optimizer, _, ds_scheduler = deepspeed.initialize(",
    "[rank0]:                                                   ~~~~~~~~~~~~~~~~~~~~^",
    "[rank0]:         model=model,",
    "[rank0]:         ^^^^^^^^^^^^",
    "[rank0]:     ...<3 lines>...",
    "[rank0]:         config=ds_config",
    "[rank0]:         ^^^^^^^^^^^^^^^^",
    "[rank0]:     )",
    "[rank0]:     ^",
    f'[rank0]:   File "{ENV}/__init__.py", line 193, in initialize',
    "[rank0]:     engine = DeepSpeedEngine(args=args,",
    "[rank0]:                              model=model,",
    "[rank0]:     ...<8 lines>...",
    "[rank0]:                              mesh_device=mesh_device,",
    "[rank0]:                              config_class=config_class)",
    f'[rank0]:   File "{ENV}/runtime/engine.py", line 278, in __init__',
    "[rank0]:     self._configure_distributed_model(model)",
    "[rank0]:     ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~^^^^^^^",
]
REMOTE = [
    "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, "
    "remote process exited or there was a network error, NCCL version 2.22.3",
    "[rank0]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
]
CACHE = "/dataset/llama3//train_t1/index-cache/ebe6e4d84ac77bd30d78014fac52a4bd_shuffle_idx.npy"
UNPICKLE = [
    "raise pickle.UnpicklingError(raise pickle.UnpicklingError(",
    f"_pickle_pickle..UnpicklingErrorUnpicklingError: : Failed to interpret file '{CACHE}' as a pickleFailed to "
    f"interpret file '{CACHE}' as a pickle",
]
UNPICKLE_APART = [
    "    raise pickle.UnpicklingError(",
    f"_pickle.UnpicklingError: Failed to interpret file '{CACHE}' as a pickle",
] * 2

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # Megatron-Bridge-836's shape: the lone rank's own CUDA error in its watchdog
    "rank29-launch-failure-as-pasted": (
        [ITERATION] + _watchdog("unspecified launch failure"),
        None,
        None,
        29,
        "cuda-error",
    ),
    "rank29-launch-failure-layout": (
        [ITERATION] + _watchdog("unspecified launch failure"),
        8,
        32,
        29,
        "cuda-error",
    ),
    "rank29-launch-failure-no-iteration": (
        _watchdog("unspecified launch failure"),
        None,
        None,
        29,
        "cuda-error",
    ),
    "rank29-launch-failure-pt22": (
        [ITERATION] + _watchdog("unspecified launch failure", new=False),
        None,
        None,
        29,
        "cuda-error",
    ),
    "rank29-illegal-memory-access": (
        [ITERATION] + _watchdog("an illegal memory access was encountered"),
        8,
        32,
        29,
        "cuda-error",
    ),
    # held controls: every GCD's memory fault alike
    "six-gcd-faults-as-pasted": (_faults(True), None, None, None, None),
    "six-gcd-faults-layout": (_faults(True), 8, 8, None, None),
    "six-gcd-faults-no-dumps": (_faults(False), None, None, None, None),
    "six-gcd-faults-srun-tasks": (_faults(True, tasks=True), 8, 8, None, None),
    # held controls: the pipeline-size assertion every rank hits, as interleaved and both ranks through
    "pp-assert-interleaved-srun": (_interleaved(True), None, None, None, None),
    "pp-assert-interleaved-untagged": (_interleaved(False), None, None, None, None),
    "pp-assert-interleaved-layout": (_interleaved(True), 8, 16, None, None),
    "pp-assert-two-ranks-complete": (
        _pp_assert(2, True) + _pp_assert(15, True),
        8,
        16,
        None,
        None,
    ),
    # held controls: rank 0's broadcast traceback, cut or with its remote error
    "rank0-ds-init-head": (DS_HEAD, None, None, None, None),
    "rank0-ds-init-head-layout": (DS_HEAD, 8, 32, None, None),
    "rank0-ds-init-remote-error": (DS_HEAD + REMOTE, 8, 32, None, None),
    # held controls: the shared index cache's unpickling error, interleaved or apart
    "index-cache-interleaved": (UNPICKLE, None, None, None, None),
    "index-cache-apart": (UNPICKLE_APART, None, None, None, None),
}
BATCHED = Batched("b174", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_regional_pretraining_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
