"""Multi-process training of biology, chemistry and materials models (real incidents batch 150): the held readings.
The controls: an OCP (fairchem) model under DDP whose two processes' tracebacks interleave and end in the reducer's
unused-parameter error for a force head every rank leaves unused (facebookresearch/fairchem#396, no rank printed);
DeePMD-kit's PyTorch parallel training dying in the neighbor statistics every rank puts on GPU 0, pasted as the torchrun
agent's ``... child error file (.../attempt_0/4/error.json)`` tail and its own traceback (deepmodeling/deepmd-kit#4594:
the error file's path holds a local rank, not a culprit); MACE on two MIG slices whose device-1 worker sees one GPU
(ACEsuit/mace#1197: ``device=1, num_gpus=1`` is a device ordinal). The NOT_YET culprit's shape is pinned as read: MACE's
patience run (ACEsuit/mace#1348) pastes rank 0's side of torch's collective fingerprint check with the peer's side
cut, and one side names no one (the reporting rank is as often the waiter). Contrast: a fingerprint check with both
sides names the rank it found out of step (deepspeed-7568's reading). No rule changed for the batch. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 2, 30, tzinfo=dt.timezone.utc)
SITE = "/home/ubuntu/Softwares/anaconda3/envs/ocp-models/lib/python3.9/site-packages"
DDP_FORWARD = f'  File "{SITE}/torch/nn/parallel/distributed.py", line 873, in forward'
REBUILD = "    if torch.is_grad_enabled() and self.reducer._rebuild_buckets():"
REDUCER = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that "
    "your module has parameters that were not used in producing loss. You can enable unused parameter detection by "
    "passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by "
)
OCP_WARNINGS = [
    f"2022-09-03 17:30:02 (WARNING): Parameter module.module.{name}.weight has no gradient. Consider removing it from "
    "the model."
    for name in (
        "out_mlp_F.1.dense_mlp.1.linear",
        "out_blocks.5.seq_forces.0.dense_mlp.0.linear",
        "out_forces.linear",
    )
]


def _interleaved(glued: bool) -> list[str]:
    """fairchem-396's shape: two processes' tracebacks interleaved, the reducer's error glued to a source line."""
    lines = [
        DDP_FORWARD,
        "    return forward_call(*input, **kwargs)Traceback (most recent call last):",
        "",
        DDP_FORWARD,
        '  File "/home/ubuntu/ocp/Tianhua/main.py", line 126, in <module>',
        REBUILD,
    ]
    if glued:
        return lines + [
            f"RuntimeError: {REBUILD}{REDUCER}",
            "making sure all `forward` function outputs participate in calculating loss. ",
        ]
    return lines + [
        f"RuntimeError: {REDUCER}",
        f"RuntimeError: {REDUCER}",
        "making sure all `forward` function outputs participate in calculating loss. ",
    ]


DP = "/root/deepmd-kit/lib/python3.12/site-packages/torch/distributed"


def _agent(carets: bool, head: str) -> list[str]:
    """deepmd-kit-4594's shape: the agent's error-file line (its head cut by the paste) and its own traceback."""
    out = [
        f"{head}child error file (/tmp/torchelastic_mkfvemdy/none_9h49vpn4/attempt_0/4/error.json)",
        "Traceback (most recent call last):",
        '  File "/root/deepmd-kit/bin/torchrun", line 10, in <module>',
        "    sys.exit(main())",
        "             ^^^^^^",
        f'  File "{DP}/elastic/multiprocessing/errors/__init__.py", line 348, in wrapper',
        "    return f(*args, **kwargs)",
        "           ^^^^^^^^^^^^^^^^^^",
        f'  File "{DP}/run.py", line 901, in main',
        "    run(args)",
        f'  File "{DP}/launcher/api.py", line 264, in launch_agent',
        "    raise ChildFailedError(",
    ]
    return out if carets else [line for line in out if line.strip("^ ")]


MIG_SPLIT = [
    "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
    'at "../aten/src/ATen/cuda/CUDAContext.cpp":49',
    "device=1, num_gpus=1",
]
MIG_WHOLE = [
    "Traceback (most recent call last):",
    '  File "/opt/conda/lib/python3.10/site-packages/mace/tools/torch_tools.py", line 80, in init_device',
    "    torch.cuda.current_device()",
    'RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "../aten/src/ATen/cuda/CUDAContext.cpp"'
    ":50, please report a bug to PyTorch. device=1, num_gpus=1",
]
FINGERPRINT = (
    "CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[1], TensorDtypes=Long, "
    "TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false "
    "(default), pinned_memory=false (default), memory_format=(nullopt)))"
)
MISMATCH = "[rank{me}]: RuntimeError: Detected mismatch between collectives on ranks. Rank {me} is running collective: "


def _one_sided(rank: int) -> list[str]:
    """mace-1348's shape: the reporting rank's side of the fingerprint check, the peer's side cut by the paste."""
    return [
        '/conda/mace/lib/python3.10/site-packages/torch/distributed/utils.py", line 294, in '
        "_verify_param_shape_across_processes",
        f"[rank{rank}]: return dist._verify_params_across_processes(process_group, tensors, logger)",
        MISMATCH.format(me=rank)
        + "CollectiveFingerPrint(SequenceNumber=633704, OpType=ALLGATHER, TensorShape=[1], "
        "TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default",
    ]


def _two_sided(me: int, other: int) -> list[str]:
    """The check with both sides: ``Rank me is running A, but Rank other is running B`` (deepspeed-7568's reading)."""
    return [
        MISMATCH.format(me=me)
        + FINGERPRINT.format(seq=32, op="ALLREDUCE")
        + f", but Rank {other} is running collective: CollectiveFingerPrint(SequenceNumber=0OpType=GATHER)."
        "Collectives differ in the following aspects: \t Sequence number: 32vs 0  Op type: ALLREDUCEvs GATHER",
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # fairchem-396's shape, as pasted and with the two processes' errors on lines of their own
    "interleaved-reducer-glued": (_interleaved(True), None, None, None),
    "interleaved-reducer-separate": (_interleaved(False), None, None, None),
    "interleaved-reducer-after-ocp-warnings": (
        OCP_WARNINGS + _interleaved(True),
        None,
        None,
        None,
    ),
    # deepmd-kit-4594's shape: Python 3.12 carets and without; the agent line's head cut or whole
    "agent-traceback-error-file-carets": (_agent(True, "py "), None, None, None),
    "agent-traceback-error-file-plain": (_agent(False, "py "), 8, 8, None),
    # mace-1197's shape: the MIG assertion as the author split it, and torch's own one-line wording
    "mig-device1-split": (MIG_SPLIT, 2, 2, None),
    "mig-device1-one-line": (MIG_WHOLE, 2, 2, None),
    # mace-1348's shape (NOT_YET): the reporting rank's side alone names no one, for rank 0 or another
    "one-sided-fingerprint-rank0": (_one_sided(0), None, None, None),
    "one-sided-fingerprint-rank3": (_one_sided(3), 4, 4, None),
    # contrast: both sides of the check name the rank found out of step
    "two-sided-fingerprint-rank3": (_two_sided(2, 3), 4, 4, 3),
}
BATCHED = Batched("b150", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_bio_chem_held_shapes_name_no_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
