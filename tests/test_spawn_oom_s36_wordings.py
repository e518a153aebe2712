"""mp.spawn's ``-- Process N terminated with the following error:`` heads process N's own traceback: the exception that
ends it is N's whatever it says (session 36). A CUDA OOM or CUDA error there read as no process's (only a plain Python
exception took the header's process), so the process was named python-exception from the header while its OOM stood
unranked beside it (batches 208 and 210: VA-DepthNet-11's completed contrast, HigherHRNet-80 in a given layout).
Variants: the OOM's wordings (``torch.cuda.OutOfMemoryError``, ``RuntimeError: CUDA out of memory``, 2.x's
``torch.OutOfMemoryError``), a CUDA error, processes 0 and 3, with and without the parent's traceback above and a layout.
Contrasts: a plain exception under the header stays python-exception; the same OOM with no header names no one.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)

PARENT = [
    "Traceback (most recent call last):",
    '  File "train.py", line 412, in <module>',
    "    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))",
    '  File "/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 241, in spawn',
    '    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")',
    '  File "/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 158, in join',
    "    raise ProcessRaisedException(msg, error_index, failed_process.pid)",
    "torch.multiprocessing.spawn.ProcessRaisedException: ",
    "",
]

OOM_WORDINGS = {
    "legacy": "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 23.69 GiB total "
    "capacity; 20.12 GiB already allocated; 1.51 GiB free; 21.20 GiB reserved in total by PyTorch)",
    "runtime": "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 10.76 GiB total capacity; "
    "9.12 GiB already allocated; 301.56 MiB free; 9.40 GiB reserved in total by PyTorch)",
    "torch2": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 3 has a total capacity of "
    "79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.11 GiB memory in use.",
}
CUDA_ERROR = "RuntimeError: CUDA error: an illegal memory access was encountered"
PLAIN = "ValueError: too many values to unpack (expected 2)"


def _block(process: int, last: str, parent: bool = True) -> list[str]:
    return (PARENT if parent else []) + [
        f"-- Process {process} terminated with the following error:",
        "Traceback (most recent call last):",
        '  File "/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 69, in _wrap',
        "    fn(i, *args)",
        '  File "/workspace/train.py", line 290, in main_worker',
        "    loss.backward()",
        last,
    ]


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    **{f"oom-{w}-process1-layout-4": (_block(1, line), 4, 4, 1, "cuda-oom") for w, line in OOM_WORDINGS.items()},
    **{f"oom-{w}-process3-as-pasted": (_block(3, line), None, None, 3, "cuda-oom") for w, line in OOM_WORDINGS.items()},
    "oom-legacy-process0-no-parent-layout-2": (_block(0, OOM_WORDINGS["legacy"], parent=False), 2, 2, 0, "cuda-oom"),
    "cuda-error-process2-layout-4": (_block(2, CUDA_ERROR), 4, 4, 2, "cuda-error"),
    "cuda-error-process2-as-pasted": (_block(2, CUDA_ERROR), None, None, 2, "cuda-error"),
    # contrasts: a plain exception under the header is the process's python-exception, as before
    "plain-process1-layout-4": (_block(1, PLAIN), 4, 4, 1, "python-exception"),
    # the same OOM with no spawn header (one unranked traceback in a world of 4) names no one, as before
    "oom-legacy-no-header-layout-4": (_block(1, OOM_WORDINGS["legacy"], parent=False)[1:], 4, 4, None, None),
}
BATCHED = Batched("s36-spawn-oom", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_spawn_process_oom_is_its_own(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
