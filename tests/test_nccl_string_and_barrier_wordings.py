"""Two wordings of real incidents batch 24: an NCCL call's failure told in NCCL's own words without its
error name (parsers/log_comm_lines.py: Horovod/TensorFlow's ``ncclCommInitRank failed: unhandled cuda
error``, torch's ``NCCL error in: …, internal error, NCCL version …``), and the ranks gloo's monitored
barrier names in its message, which make the world of a paste that names no rank otherwise
(parsers/log_layout.py). Each variant is a case; what must not match is a case too.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_comm_lines import nccl_other
from k10s_forensics.parsers.log_layout import LogSource, infer_layout


@pytest.mark.parametrize(("line", "name"), [
    ("tensorflow.python.framework.errors_impl.UnknownError: ncclCommInitRank failed: unhandled cuda error", "ncclUnhandledCudaError"),
    ("[1] tensorflow.python.framework.errors_impl.UnknownError: ncclCommInitRank failed: unhandled cuda error", "ncclUnhandledCudaError"),
    ("horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled system error", "ncclSystemError"),
    ("ncclGroupEnd failed: invalid usage", "ncclInvalidUsage"),
    ("ncclCommInitRank failed: invalid argument", "ncclInvalidArgument"),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error, NCCL version 2.14.3",
     "ncclInternalError"),
    ("torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:219, "
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3", "ncclUnhandledCudaError"),
    # the name, where printed, still wins
    ("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1275, internal error, NCCL version 2.14.3 ncclInternalError: Internal check failed.",
     "ncclInternalError"),
    ("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.10.3", "ncclSystemError"),
])
def test_nccl_words_name_the_error(line, name):
    assert nccl_other(line) == {"kind": "nccl_error_other", "subkind": name}


@pytest.mark.parametrize("line", [
    "ValueError: dataloader failed: internal error in worker 3",  # not an NCCL call
    "RuntimeError: CUDA error: invalid argument",
    "Exception: ncclCommInitRank failed: the store timed out",  # not one of NCCL's strings
])
def test_other_failures_are_no_nccl_error(line):
    assert nccl_other(line) is None


def test_torch_nccl_error_without_known_words_keeps_its_generic_kind():
    assert nccl_other("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:825, remote process exited, NCCL version 2.18")["subkind"] == "nccl_error"


@pytest.mark.parametrize(("line", "world"), [
    ("[E ProcessGroupGloo.cpp:137] Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv "
     "from rank 0. Please check rank 0 logs for faulty rank.", 2),  # vosk-tts#18, torch 1.x glog
    ("RuntimeError: Rank 3 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. "
     "Please check rank 0 logs for faulty rank.", 4),
    ("RuntimeError: Rank 0 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 5. "
     "Please check rank 5 logs for faulty rank.", 6),  # the rank waited for is the higher one
    ("RuntimeError: Ranks 1, 5 failed to pass monitoredBarrier in 1800000 ms", 6),
    ("RuntimeError: Rank 7 failed to pass monitoredBarrier in 30000 ms", 8),
])
def test_the_monitored_barrier_names_ranks_of_the_world(line, world):
    layout = infer_layout([LogSource("log.txt", "epoch 35\n" + line + "\nTraceback (most recent call last):")])
    assert (layout.world_size, layout.nproc_per_node, layout.nodes) == (world, world, 1)


@pytest.mark.parametrize("line", [
    "Rank 7 finished epoch 3",  # a rank in words, but no barrier's
    "INFO: waiting at monitoredBarrier (timeout 1800 s)",
])
def test_other_rank_words_leave_the_default_world(line):
    assert infer_layout([LogSource("log.txt", line)]).world_size == 1
