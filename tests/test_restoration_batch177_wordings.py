"""Image and video restoration / super-resolution training on BasicSR and MMEditing (real incidents batch 177): the
readings the batch met, pinned with their variants. The torch-elastic agent's ``failed (exitcode: -9) local_rank: 0``
over a ``ChildFailedError`` table whose root cause is rank 0 with ``<NO_OTHER_FAILURES>`` (xinntao/Real-ESRGAN#302,
two pasted failures of rank 0, the author's ``…………`` elision between them) names rank 0, host-oom-kill, also without
the elision, and the agent line or the table alone still name rank 0; one worker's ``CUDA out of memory ... (GPU 0;
...)`` before the agent's ``failed (exitcode: 1) local_rank: 0`` (open-mmlab/mmagic#1478, one GPU) names rank 0,
cuda-oom, with or without a layout; rank 1's lone PyTorch 1.x ALLREDUCE watchdog timeout, wrapped mid-word, over its
``reduce_loss_dict`` traceback and the agent's exit of local rank 1 in a world of 2 (Zj-BinXia/DiffIR#39: rank 0 was
validating alone) names rank 0, never-joined, also unwrapped, while in a world of 4 (three ranks silent) it names no
one; the PyTorch 1.5+ legacy launcher's ``CalledProcessError`` raised with ``cmd=cmd)`` quoting the last spawned
``--local_rank=3`` and ``died with <Signals.SIGSEGV: 11>`` after the last checkpoint (open-mmlab/mmagic#343) names no
one, with or without the log lines before it; a torchrun table whose two ranks both exit 1 in the same second
(XPixelGroup/DiffBIR#179) names no one, with or without a layout.
Contrast: the agent's lone ``failed (exitcode: 1) local_rank: 0`` over the launcher's own traceback
(swz30/Restormer#33, NOT_YET: Flowformer-8's culprit shape) still names rank 0. No rule changed for the batch. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
AGENT = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: {code}) local_rank: {lr} (pid: {pid}) of binary: "
LAUNCHER = (
    "/home/ici/anaconda3/lib/python3.8/site-packages/torch/distributed/launcher/api.py"
)
TABLE_302 = [
    f' File "{LAUNCHER}", line 245, in launch_agent',
    "    raise ChildFailedError(",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "=====================================================",
    "realesrgan/train.py FAILED",
    "-----------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "-----------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2022-04-21_21:49:12",
    "  host      : ici-System-Product-Name",
    "  rank      : 0 (local_rank: 0)",
    "  exitcode  : -6 (pid: 9543)",
    "  error_file: <N/A>",
    "  traceback : Signal 6 (SIGABRT) received by PID 9543",
]
KILLED_302 = AGENT.format(code=-9, lr=0, pid=71517) + "/home/xxx/bin/python"
REAL_ESRGAN_302 = [
    KILLED_302,
    "Traceback (most recent call last):",
    "",
    "\u2026" * 12,
    "",
    *TABLE_302,
]
OOM_1478 = [
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.75 GiB total capacity; 9.28 GiB already "
    "allocated; 18.75 MiB free; 9.34 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try "
    "setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
    "PYTORCH_CUDA_ALLOC_CONF",
    AGENT.format(code=1, lr=0, pid=12491)
    + "/home/gihwan/anaconda3/envs/openmmlab2/bin/python",
    "Traceback (most recent call last):",
    '  File "/home/gihwan/anaconda3/envs/openmmlab2/lib/python3.7/runpy.py", line 193, in _run_module_as_main',
    '    "__main__", mod_spec)',
]
WATCHDOG = (
    "[E ProcessGroupNCCL.cpp:566] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
    "Timeout(ms)=1800000) ran for 1803936 millisecond"
)
ENV = "/home/ikun/miniconda3/envs/diffir"
DIFFIR_TAIL = [
    "Traceback (most recent call last):",
    'File "DiffIR/train.py", line 15, in <module>',
    "train_pipeline(root_path)",
    f'File "{ENV}/lib/python3.8/site-packages/basicsr/models/base_model.py", line 371, in reduce_loss_dict',
    "torch.distributed.reduce(losses, dst=0)",
    f'File "{ENV}/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 1383, in reduce',
    "work = default_pg.reduce([tensor], opts)",
    "RuntimeError: NCCL communicator was aborted on rank 1.",
    AGENT.format(code=1, lr=1, pid=994987) + f"{ENV}/bin/python3\\",
]
DIFFIR_39 = [WATCHDOG, "s before timing out.", *DIFFIR_TAIL]
PY16 = "/home/s50018018/anaconda3/envs/open-mmlab1.6"
LEGACY_343 = [
    "2021-05-29 00:33:19,191 - mmedit - INFO - Saving checkpoint at 300000 iterations",
    "2021-05-29 00:33:19,400 - mmedit - INFO - Iter(val) [300000]    PSNR: 31.5380, SSIM: 0.8928",
    "Traceback (most recent call last):",
    f'  File "{PY16}/lib/python3.7/site-packages/torch/distributed/launch.py", line 261, in <module>',
    "    main()",
    f'  File "{PY16}/lib/python3.7/site-packages/torch/distributed/launch.py", line 257, in main',
    "    cmd=cmd)",
    f"subprocess.CalledProcessError: Command '['{PY16}/bin/python', '-u', './tools/train.py', '--local_rank=3', "
    "'configs/restorers/basicvsr/basicvsr_reds4.py', '--launcher', 'pytorch', '--resume-from', "
    "'/home/s50018018/mmediting/work_dirs/basicvsr_reds4/iter_140000.pth']' died with <Signals.SIGSEGV: 11>.",
]
DOCS = "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
DIFFBIR_179 = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "=" * 60,
    "train_stage2.py FAILED",
    "-" * 60,
    "Failures:",
    "[1]:",
    "  time      : 2025-10-13_16:22:09",
    "  host      : tyut-PowerEdge-R750",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : 1 (pid: 163472)",
    "  error_file: <N/A>",
    DOCS,
    "-" * 60,
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-10-13_16:22:09",
    "  host      : tyut-PowerEdge-R750",
    "  rank      : 0 (local_rank: 0)",
    "  exitcode  : 1 (pid: 163471)",
    "  error_file: <N/A>",
    DOCS,
    "=" * 60,
]
RESTORMER_33 = [
    AGENT.format(code=1, lr=0, pid=23058) + "/opt/conda/bin/python",
    "Traceback (most recent call last):",
    '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/run.py", line 713, in run',
    "    )(*cmd_args)",
    '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/launcher/api.py", line 261, in launch_agent',
    "    failures=result.failures,",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None for
#: none, the cause one of them must give: None for any)
CASES = {
    # Real-ESRGAN-302: rank 0's two pasted failures, the elision between them
    "agent-sigkill-over-root-cause-table": (REAL_ESRGAN_302, 2, 2, 0, "host-oom-kill"),
    "agent-sigkill-over-table-no-elision": (
        [KILLED_302, *TABLE_302],
        2,
        2,
        0,
        "host-oom-kill",
    ),
    "agent-sigkill-alone": ([KILLED_302], 2, 2, 0, None),
    "root-cause-table-alone": (TABLE_302[2:], 2, 2, 0, None),
    # mmagic-1478: the one worker's CUDA OOM before the agent's exit
    "one-worker-oom-then-agent": (OOM_1478, 1, 1, 0, "cuda-oom"),
    "one-worker-oom-then-agent-no-layout": (OOM_1478, None, None, 0, "cuda-oom"),
    # DiffIR-39: rank 1's lone 1.x ALLREDUCE waiter while rank 0 validates, a world of 2
    "lone-rank1-waiter-world2-wrapped": (DIFFIR_39, 2, 2, 0, "never-joined"),
    "lone-rank1-waiter-world2-unwrapped": (
        [WATCHDOG + "s before timing out.", *DIFFIR_TAIL],
        2,
        2,
        0,
        "never-joined",
    ),
    "lone-rank1-waiter-world4": (DIFFIR_39, 4, 4, None, None),
    # mmagic-343: the 1.5+ legacy launcher quotes the last spawned command (cmd=cmd)
    "legacy-cmd-cmd-last-spawned-sigsegv": (LEGACY_343, 4, 4, None, None),
    "legacy-cmd-cmd-last-spawned-sigsegv-bare": (LEGACY_343[2:], 4, 4, None, None),
    "legacy-cmd-cmd-last-spawned-sigsegv-no-layout": (
        LEGACY_343,
        None,
        None,
        None,
        None,
    ),
    # DiffBIR-179: both ranks exit 1 in the same second
    "table-two-ranks-exit1-same-second": (DIFFBIR_179, 2, 2, None, None),
    "table-two-ranks-exit1-same-second-no-layout": (
        DIFFBIR_179,
        None,
        None,
        None,
        None,
    ),
    # contrast: the agent's lone exit of local rank 0 (Restormer-33, NOT_YET: Flowformer-8's culprit shape) names it
    "agent-lone-local-rank0-exit1-launcher-traceback": (RESTORMER_33, 8, 8, 0, None),
}
BATCHED = Batched("b177", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_restoration_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
