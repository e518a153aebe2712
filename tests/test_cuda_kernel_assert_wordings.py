"""A CUDA kernel's own assertion read as the printing process's device-side assert (real incidents batch 43,
WeatherGenerator-255; parsers/log_patterns_cuda.py ``CUDA_KERNEL_ASSERT``, parsers/log_failures.py ``cuda_error``,
docs/parsers-logs.md).

PyTorch's ``CUDA_KERNEL_ASSERT`` makes the GPU print, from the process whose kernel failed, ``<file>.cu:<line>:
<kernel>: block: [x,y,z], thread: [x,y,z] Assertion `<condition>` failed.`` (once per failing thread), before the sticky
``CUDA error: device-side assert triggered`` the process raises at its next synchronisation. A paste cut before that
exception line (or without it) still says the process hit a device-side assert: the line is that process's
``cuda_error`` (subkind ``device-assert``), with the rank its prefix gives, else none (the rules place an unranked
error on the rank whose failure the pod shows). ``block``/``thread`` are CUDA grid indices, never ranks. A host-side C
``assert`` (glibc's ``prog: file.c:12: main: Assertion `x' failed.``, no grid) and Python's ``AssertionError`` are not
kernel assertions.
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_failures import cuda_error
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

PREFILTER = re.compile(PREFILTER_EVENT)
SCATTER = ('/opt/pytorch/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): block: [7354,0,0], '
           'thread: [64,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && "index out of bounds"` failed.')


@pytest.mark.parametrize("line, condition", [
    (SCATTER, 'idx_dim >= 0 && idx_dim < index_size && "index out of bounds"'),  # the batch 43 line (2.x build path)
    ("/opt/conda/conda-bld/pytorch_1695392035891/work/aten/src/ATen/native/cuda/Loss.cu:94: operator(): block: "
     "[117,0,0], thread: [26,0,0] Assertion `input_val >= zero && input_val <= one` failed.",
     "input_val >= zero && input_val <= one"),  # a conda build's path, the BCE loss kernel
    ("/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
     "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.", "t >= 0 && t < n_classes"),  # a named kernel
    ("C:\\cb\\pytorch_1000000000000\\work\\aten\\src\\ATen\\native\\cuda\\ScatterGatherKernel.cu:145: block: [0,0,0], "
     "thread: [59,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.",
     'idx_dim >= 0 && idx_dim < index_size && "index out of bounds"'),  # a Windows build: no kernel name
    ("/pytorch/aten/src/THC/THCTensorIndex.cu:362: void indexSelectLargeIndex(TensorInfo<T, IndexType>, "
     "TensorInfo<T, IndexType>, TensorInfo<long, IndexType>, int, int, IndexType, IndexType, long) [with T = float, "
     "IndexType = unsigned int, DstDim = 2, SrcDim = 2, IdxDim = -2, IndexIsMajor = true]: block: [23,0,0], "
     "thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.", "srcIndex < srcSelectDimSize"),  # THC, 1.x
    ("/usr/local/include/cub/block/block_load.cuh:12: f(): block: [1, 0, 0], thread: [2, 0, 0] Assertion `ok` failed.",
     "ok"),  # a header kernel, the grid written with spaces
])
def test_a_kernel_assertion_is_a_device_side_assert(line, condition):
    assert PREFILTER.search(line)
    ev = cuda_error(line)
    assert ev is not None and (ev["kind"], ev["subkind"]) == ("cuda_error", "device-assert")
    assert ev["error_message"] == f"device-side assertion `{condition}` failed"


@pytest.mark.parametrize("prefix, rank", [
    ("", None),  # the GPU's printf carries no rank: the rules place it (the batch 43 paste)
    ("[rank104]: ", 104),  # torchrun 2.x's stream prefix
    ("7: ", 7),  # srun --label
    ("2026-05-19T10:01:02.123456Z [rank3]: ", 3),  # behind the API's timestamp
])
def test_the_line_belongs_to_the_process_its_prefix_names(prefix, rank):
    events = [e for e in classify(prefix + SCATTER) if e["kind"] == "cuda_error"]
    assert [(e.get("rank"), e["subkind"]) for e in events] == [(rank, "device-assert")]


@pytest.mark.parametrize("line", [
    "python3: /src/decoder.c:212: decode_frame: Assertion `len > 0' failed.",  # glibc's host assert: no CUDA grid
    "AssertionError: block: [0,0,0] is not a valid index",  # a Python assertion quoting the words
    "block: [3,0,0], thread: [1,0,0] printed by a debug kernel",  # grid indices without an assertion
    "see the README: `Assertion ... failed` lines come from CUDA_KERNEL_ASSERT",  # prose quoting the wording
])
def test_other_assertions_are_no_kernel_assert(line):
    ev = cuda_error(line)
    assert ev is None or ev["subkind"] != "device-assert"


def test_the_grid_indices_name_no_rank():
    events = [e for e in classify(SCATTER) if e["kind"] == "cuda_error"]
    assert events and all(e.get("rank") is None for e in events)  # 7354 and 64 are a block and a thread
