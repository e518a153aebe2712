"""Stack dumps of a hung job's processes, pasted as users diagnose hangs (real incidents batch 141: py-spy dumps,
gdb backtraces, faulthandler tracebacks). A dump names a process by pid, an OS thread id, a gdb frame or thread number,
a spawn helper's file descriptors: none of these is a rank, and a stack that waits (on a data loader, in a collective,
in a device copy) is no failure. Every shape here is a control: no warning or critical finding may name a rank. The
one culprit of the batch (fairseq-4816, rank 0 in its data loader while 31 ranks wait in all_reduce) is named only by
the thread's prose, so it stays NOT_YET (docs/rules.md, "Session 32: batch 141"). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 23, 0, tzinfo=dt.timezone.utc)

# fairseq-4816: one py-spy main thread, an OS thread id, waiting on the data loader's queue
PYSPY_LOADER = """Thread 0x7FA6E7C01740 (idle): "MainThread"
    wait (threading.py:302)
    get (queue.py:170)
    __next__ (fairseq/data/iterators.py:648)
    __iter__ (fairseq/data/iterators.py:59)
    train (fairseq_cli/train.py:274)
    distributed_main (fairseq/distributed/utils.py:326)
    call_main (fairseq/distributed/utils.py:352)
"""

# pytorch-135703 / accelerate-3104: every child of the launcher dumped by pid, ZeRO-3 backward and an all-gather
PYSPY_PROCESSES = """ pgrep -P $(pgrep -o accelerate) | xargs -I {{}} py-spy dump --pid {{}}
{blocks}"""
PYSPY_BLOCK = """Process {pid}: /usr/bin/python3.10 -u train.py --config_file configs/mixtral_8x7b/config.yaml{arg}
Python v3.10.12 (/usr/bin/python3.10)

Thread {pid} (idle): "MainThread"
    backward (torch/autograd/__init__.py:266)
    backward (deepspeed/runtime/zero/stage3.py:2213)
    backward (accelerate/accelerator.py:2126)
    training_loop (train.py:410)
Thread {tid} (active)
    all_gather_into_tensor (torch/distributed/distributed_c10d.py:2709)
    all_gather_into_tensor (deepspeed/comm/comm.py:305)
"""


def _processes(n: int, arg: bool = False) -> str:
    blocks = "\n".join(
        PYSPY_BLOCK.format(
            pid=39 + i, tid=4076 + i, arg=f" --local_rank={i}" if arg else ""
        )
        for i in range(n)
    )
    return PYSPY_PROCESSES.format(blocks=blocks)


# transformer-xl-10: gdb frames of a .item() copy, identical on every process
GDB_ITEM = """#8  0x00007f5178571f92 in cuMemcpyDtoHAsync_v2 () from /usr/lib/x86_64-linux-gnu/libcuda.so.1
#9  0x00007f517d0984bf in ?? ()
   from /home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.6/site-packages/torch/lib/libcudart-f7fdd8d7.so.9.0
#11 0x00007f517d0aed86 in cudaMemcpyAsync ()
   from /home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.6/site-packages/torch/lib/libcudart-f7fdd8d7.so.9.0
#12 0x00007f518ba39566 in at::native::_local_scalar_dense_cuda(at::Tensor const&)::{lambda()#1}::operator()() const ()
   from /home/ubuntu/anaconda3/envs/pytorch_p36/lib/python3.6/site-packages/torch/lib/libcaffe2_gpu.so
"""

# gdb's `thread apply all bt` headers: gdb thread numbers and LWPs, a NCCL call waiting
GDB_ALL = """(gdb) thread apply all bt

Thread 18 (Thread 0x7f0498ffd700 (LWP 135332)):
#0  0x00007f05daa8fe8b in pthread_rwlock_wrlock () from /usr/lib/x86_64-linux-gnu/libpthread.so.0
#1  0x00007f0580bb3641 in ?? () from /usr/lib/x86_64-linux-gnu/libcuda.so
#8  0x00007f04fc98d6e6 in ncclGroupEnd () from /usr/lib/x86_64-linux-gnu/libnccl.so.2

Thread 3 (Thread 0x7fd0a658a000 (LWP 3913159) "executor_server"):
#0  0x00007fd0b01b8307 in epoll_wait () from /lib64/libc.so.6
#4  0x00007fd0b0d861ca in start_thread () from /lib64/libpthread.so.0
"""

# lhotse-1146: a spawned DDP process's header (spawn's file descriptors), a pod name with digits, the data loader
PYSPY_SPAWNED = """(dev) user@de-74279-k2-train-7-1218101249-5d97868c7c-98fdf:~/icefall$ py-spy dump -p 3740553
Process 3740553: /envs/dev/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=6, pipe_handle=8) --multiprocessing-fork
Python v3.9.17 (/envs/dev/bin/python3.9)

Thread 3740553 (idle): "MainThread"
    get (multiprocessing/queues.py:113)
    _try_get_data (torch/utils/data/dataloader.py:1120)
    __next__ (torch/utils/data/dataloader.py:628)
    train_one_epoch (train.py:939)
"""

# faulthandler.dump_traceback_later: a periodic dump of a waiting process
FAULTHANDLER = """Timeout (0:20:00)!
Thread 0x00007f57caf71740 (most recent call first):
  File "/opt/conda/lib/python3.8/site-packages/torch/cuda/streams.py", line 95 in synchronize
  File "/code/deepspeed/runtime/zero/stage3.py", line 406 in fetch_sub_module
  File "train.py", line 451 in forward
"""
# faulthandler's own report when the process is then aborted (the wording of pytorch/pytorch#54531): still no rank
FAULTHANDLER_ABORT = """Fatal Python error: Aborted

Current thread 0x00007f04d36bb740 (most recent call first):
  File "test/distributed/test_c10d.py", line 4634 in <lambda>
  File "test/distributed/test_c10d.py", line 4610 in _test_nccl_errors_blocking
"""

#: key: (the pasted text, processes per node given to the import or None)
CASES = {
    "pyspy-loader-stack-unranked": (PYSPY_LOADER, None),
    "pyspy-loader-stack-eight-per-node": (PYSPY_LOADER, 8),
    "pyspy-eight-processes-by-pid": (_processes(8), 8),
    "pyspy-two-processes-local-rank-args": (_processes(2, arg=True), 2),
    "gdb-item-copy-frames": (GDB_ITEM, 8),
    "gdb-thread-apply-all-lwps": (GDB_ALL, None),
    "pyspy-spawned-fds-and-pod-digits": (PYSPY_SPAWNED, None),
    "faulthandler-timeout-dump": (FAULTHANDLER, 2),
    "faulthandler-fatal-abort-current-thread": (FAULTHANDLER_ABORT, 2),
}
BATCHED = Batched("b141", list(CASES))


def _make(key: str, folder: Path):
    text, nproc = CASES[key]
    return pasted(text, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_stack_dumps_of_waiting_processes_name_no_rank(key, tmp_path_factory):
    assert_one_rank(
        naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), None
    )
