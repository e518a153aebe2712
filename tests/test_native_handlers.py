"""Native libraries' fault-signal handlers and PyTorch's and XLA's out-of-memory wordings the blind batches of session 56
found unread (parsers/log_native_handlers.py, log_py_exceptions.TORCH_OOM_CLASSES, log_patterns_cuda.OOM_FRAMEWORK,
log_patterns.FAULTHANDLER).

* tvm_ffi's ``!!!!!!! Segfault encountered !!!!!!!`` is its process's segfault (batch 327's Megatron-Bridge#2355, rank 93).
* UCX's ``[host:pid:thread:tid] Caught signal 11 (…)`` is the process's signal as Open MPI's handler's is: evidence,
  counted per process, no rank of its own (NeMo-Aligner#541's UCX crash in its own failed connect is a control); the
  launcher's exit names the rank (batch 328's Megatron-Bridge#3343).
* Ray's dedup note (``Fatal Python error: Aborted [repeated 7x across cluster]``) folds the same line of N more workers into
  one: every worker alike (batch 327's verl#5659); since session 59 the event keeps the line's rank with ``repeated`` = N
  and the incident decision names no one (tests/test_ray_repeated_across_cluster.py).
* ``torch.OutOfMemoryError`` / ``torch.cuda.OutOfMemoryError`` is the accelerator's OOM whatever its line holds (its
  message cut, wrapped onto the next line, reworded): batch 329's suggestion.
* Not XLA's CUDA async allocator's ``cuMemAllocAsync failed to allocate N bytes: … CUDA_ERROR_OUT_OF_MEMORY`` (batch 332's
  suggestion): one process's per-device allocators logging one request (skyrl#624, every device 1.2 TB: a control).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)
UCX_SIGILL = "[pool0-1616:1864777:0:1864777] Caught signal 4 (Illegal instruction: illegal operand)"
TRACE5 = ["[rank5]: Traceback (most recent call last):", '[rank5]:   File "train.py", line 9, in <module>']


def _events(line: str) -> list[tuple]:
    return [(e["kind"], e.get("subkind"), e.get("rank"), e.get("exit_code")) for e in classify(line)]


def _named(lines: list[str], nproc: int | None = None) -> list[tuple]:
    folder = _named.folder / str(len(list(_named.folder.iterdir())))
    folder.mkdir()
    result = analyze(pasted(lines, folder, nproc, NOW))
    return [(f["rule"], f["cause"], f["ranks"]) for f in result["findings"] if f["severity"] in ("critical", "warning") and f["ranks"]]


@pytest.fixture(autouse=True)
def _folder(tmp_path):
    _named.folder = tmp_path


@pytest.mark.parametrize(
    ("line", "want"),
    [(UCX_SIGILL, [("native_signal", "ucx", None, -4)]),
     ("[rank3]:[megatron_cicd:1610 :0:1610] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))",
      [("native_signal", "ucx", None, -11)]),
     ("[node1:123:0:123] Caught signal 15 (Terminated)", []),
     (" 93: !!!!!!! Segfault encountered !!!!!!!", [("process_exit", "tvm_ffi_segfault", 93, -11)]),
     ("[rank3]: Fatal Python error: Aborted [repeated 7x across cluster]", [("process_exit", "faulthandler", 3, -6)]),
     ("[rank3]: Fatal Python error: Aborted", [("process_exit", "faulthandler", 3, -6)]),
     ("[rank5]: torch.OutOfMemoryError: Tried to allocate 12.60 GiB. GPU had 12.44 GiB free of 79.19",
      [("cuda_oom", "pytorch_class", 5, None)]),
     ("[rank5]: torch.cuda.OutOfMemoryError:", [("cuda_oom", "pytorch_class", 5, None)]),
     ("    except torch.cuda.OutOfMemoryError:", []),
     ("[rank2]: E1103 18:23:55.101761 3413773 gpu_cudamallocasync_allocator.cc:361] gpu_async_3 cuMemAllocAsync failed to "
      "allocate 1225195446464 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory", [])],
    ids=["ucx-sigill", "ucx-padded-pid", "ucx-sigterm", "tvm-ffi", "ray-dedup", "faulthandler", "oom-class", "oom-class-bare",
         "oom-class-source-line", "xla-async-unread"],
)
def test_each_wording_is_read(line, want):
    assert _events(line) == want


def test_tvm_ffis_banner_names_the_slurm_task_that_crashed():
    lines = [" 93: !!!!!!! Segfault encountered !!!!!!!",
             ' 93:   File "<unknown>", line 0, in crc32_16bytes(unsigned int, unsigned char const*, unsigned long)']
    assert _named(lines) == [("rank-failure", "segfault", [93])]


def test_ucxs_signal_alone_names_no_one_and_the_launchers_exit_does():
    assert _named([UCX_SIGILL, "==== backtrace (tid:1864777) ===="]) == []
    assert _named([UCX_SIGILL, "srun: error: pool0-1616: task 9: Exited with exit code 132"]) == [("rank-failure", "sigill", [9])]


def test_a_deduplicated_fatal_error_is_every_workers():
    assert _named(["[rank3]: Fatal Python error: Aborted [repeated 7x across cluster]"]) == []


@pytest.mark.parametrize(
    "tail",
    [["[rank5]: torch.OutOfMemoryError: Tried to allocate 12.60 GiB. GPU had 12.44 GiB free of 79.19"],
     ["[rank5]: torch.OutOfMemoryError:", "CUDA out of memory. Tried to allocate 130.00 MiB. GPU 0 has a total capacity of "
      "79.19 GiB of which 20.00 MiB is free."]],
    ids=["reworded", "wrapped"],
)
def test_torchs_oom_class_is_the_ranks_cuda_oom(tail):
    assert _named(TRACE5 + tail) == [("oom-cascade", "cuda-oom", [5])]
    renumbered = [line.replace("[rank5]", "[rank2]") for line in TRACE5 + tail]
    assert _named(renumbered) == [("oom-cascade", "cuda-oom", [2])]
