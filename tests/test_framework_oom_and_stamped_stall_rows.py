"""Session 51's readings from blind batch 284: TensorFlow's and XLA's own GPU out-of-memory wordings are a CUDA OOM
of the process that printed them (a CPU device's or a host allocator's is not, nor the BFC allocator's warning that
says it is no failure), and Horovod's stall list is read under ``kubectl logs --timestamps``' stamps as it is bare.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 12, 0, tzinfo=dt.timezone.utc)
TF_OOM = (
    "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[2,1023,50257] "
    "and type float on /job:localhost/replica:0/task:0/device:GPU:{dev} by allocator GPU_{dev}_bfc"
)
TF_WARN = (
    "2019-06-17 17:13:42.247944: W tensorflow/core/framework/op_kernel.cc:1273] OP_REQUIRES failed at strided_slice_op.cc:139 : "
    "Resource exhausted: OOM when allocating tensor with shape[2,1023,50257] and type float on "
    "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
)
XLA_OOM = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes."
STALL_WARNING = (
    "[2022-07-20 04:51:42.894382: W horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be "
    "reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds."
)
STALL_ROW = "{rank}: [global_tensor_horovod_sum_have_data/HorovodAllreduce_globals_horovod_have_more_data_placeholder_0]"


def _named(tmp_path, text: str, **layout):
    bundle, _ = import_logs(
        [LogSource("paste.txt", text)],
        tmp_path / "b",
        job="train",
        namespace="team-a",
        now=NOW,
        **layout,
    )
    return [
        (f["rule"], f["cause"], f["ranks"])
        for f in naming_findings(analyze(bundle)["findings"])
    ]


def _kinds(line: str) -> list[tuple[str, str | None]]:
    return [(e["kind"], e.get("subkind")) for e in classify(line)]


@pytest.mark.parametrize(
    "line",
    [
        TF_OOM.format(dev=0),
        TF_OOM.format(dev=3),
        TF_WARN,
        XLA_OOM,
        "[1,1]<stderr>:" + TF_OOM.format(dev=0),
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Resource exhausted: Out of memory "
        "while trying to allocate 4294967296 bytes. [Op:__inference_train_step_2121]",
    ],
)
def test_tensorflow_s_and_xla_s_gpu_oom_is_a_cuda_oom(line):
    assert ("cuda_oom", "framework") in _kinds(line)


@pytest.mark.parametrize(
    "line",
    [
        # a CPU device's allocation: the host's memory, no GPU's
        "ResourceExhaustedError: OOM when allocating tensor with shape[8192,8192] and type float on "
        "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
        # the BFC allocator says itself that this is no failure
        "W tensorflow/core/common_runtime/bfc_allocator.cc:246] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.26GiB "
        "with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains",
        "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm.",
    ],
)
def test_other_allocators_words_are_no_cuda_oom(line):
    assert not [k for k, _ in _kinds(line) if k == "cuda_oom"]


@pytest.mark.parametrize("rank", [1, 3])
def test_a_tagged_tensorflow_oom_names_its_rank_with_the_cause(tmp_path, rank):
    text = "\n".join(
        [
            f"[1,{rank}]<stderr>:Traceback (most recent call last):",
            f'[1,{rank}]<stderr>:  File "train.py", line 40, in <module>',
            f"[1,{rank}]<stderr>:" + TF_OOM.format(dev=0),
            "",
        ]
    )
    assert _named(tmp_path, text, nproc_per_node=4) == [
        ("oom-cascade", "cuda-oom", [rank])
    ]


def test_a_tagged_exception_of_another_resource_stays_a_python_exception(tmp_path):
    text = "\n".join(
        [
            "[1,1]<stderr>:Traceback (most recent call last):",
            "[1,1]<stderr>:tensorflow.python.framework.errors_impl.ResourceExhaustedError: "
            "Too many open files in the input pipeline",
            "",
        ]
    )
    assert _named(tmp_path, text, nproc_per_node=2) == [
        ("rank-failure", "python-exception", [1])
    ]


def _stamped(lines: list[str], stamp: str = "Z") -> str:
    return (
        "\n".join(
            f"2022-07-20T04:51:42.{i:06d}{stamp} {line}" for i, line in enumerate(lines)
        )
        + "\n"
    )


@pytest.mark.parametrize("stamp", ["Z", "+00:00"])
@pytest.mark.parametrize("header", ["Stalled ranks:", "Missing ranks:"])
@pytest.mark.parametrize("rank", [2, 5])
def test_a_stall_list_under_the_api_server_s_stamps_names_its_rank(
    tmp_path, stamp, header, rank
):
    text = _stamped([STALL_WARNING, header, STALL_ROW.format(rank=rank)], stamp)
    assert _named(tmp_path, text) == [("nccl-hang", "never-joined", [rank])]


def test_a_stamped_stall_list_reads_as_the_bare_one(tmp_path):
    lines = [STALL_WARNING, "Stalled ranks:", STALL_ROW.format(rank=2)]
    (tmp_path / "a").mkdir()
    (tmp_path / "c").mkdir()
    assert (
        _named(tmp_path / "a", _stamped(lines))
        == _named(tmp_path / "c", "\n".join(lines) + "\n")
        != []
    )


def test_a_stamped_number_with_no_stall_header_above_names_no_one(tmp_path):
    text = _stamped(
        [
            STALL_WARNING,
            "epoch 3 done",
            "loss curve follows",
            "waiting",
            STALL_ROW.format(rank=2),
        ]
    )
    assert _named(tmp_path, text) == []
