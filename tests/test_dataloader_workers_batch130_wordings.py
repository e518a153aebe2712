"""DataLoader worker deaths and shared-memory / file-descriptor limits in multi-rank runs (real incidents batch 130:
LLaMA-Factory#8043, pytorch#149762, ultralytics#16400, gpt-neox#1252/#1253, pytorch#120401). No rule changed for
the batch (every rank right as collected); these pin its shapes and their variants. A lone rank's DataLoader worker
death is that rank's failure (the worker's signal charged to it: ``Terminated`` stays the rank's own RuntimeError,
``Bus error`` its SIGBUS); every rank's worker dying alike, unranked shared-memory ``ENOSPC`` or ``Too many open
files`` from interleaved processes behind a host prefix, and an unranked traceback after one rank's own progress
prints name no one (docs/rules.md, "Session 31: batch 130"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 19, 30, tzinfo=dt.timezone.utc)
HANDLER = ('  File "/usr/lib/python3.10/site-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler',
           "    _error_if_any_worker_fails()")
SHM_HINT = (" It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory "
            "limit.")
ENOSPC = ["Traceback (most recent call last):",
          '  File "/usr/lib/python3.10/multiprocessing/queues.py", line 244, in _feed',
          "    obj = _ForkingPickler.dumps(obj)",
          "RuntimeError: unable to write to file </torch_8289_606636967_0>: No space left on device (28)"]


def _worker_killed(rank: int | None, signal: str, pid: int, hint: str = "") -> list[str]:
    tag = "" if rank is None else f"[rank{rank}]: "
    return [tag + "Traceback (most recent call last):", tag + HANDLER[0], tag + HANDLER[1],
            f"{tag}RuntimeError: DataLoader worker (pid {pid}) is killed by signal: {signal}. {hint}".rstrip()]


#: key: (the pasted lines, processes per node, the rank a warning/critical finding must name alone: None for none,
#: its cause)
CASES = {
    # ultralytics-16400's shape: one rank's worker SIGTERMed, the rank's own RuntimeError
    "lone-rank-worker-terminated": (_worker_killed(2, "Terminated", 3349014), 4, 2, "python-exception"),
    # one rank's worker out of shared memory, with PyTorch's hint
    "lone-rank-worker-bus-error": (_worker_killed(5, "Bus error", 46794, SHM_HINT), 8, 5, "sigbus"),
    # a rank's own ENOSPC writing a tensor to /dev/shm, rank-tagged: named rank 3 until session 59; a lone rank's full
    # disk (here the node's /dev/shm) is a suspect only since (info)
    "tagged-shm-enospc": ([f"[rank3]: {line}" for line in ENOSPC], 4, None, None),
    # a rank's `Too many open files` refusal from its loader, rank-tagged
    "tagged-too-many-open-files": (["[rank1]: RuntimeError: Too many open files. Communication with the workers is no "
                                    "longer possible. Please increase the limit using `ulimit -n` in the shell or change "
                                    "the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy("
                                    "'file_system')` at the beginning of your code"], 2, 1, "python-exception"),
    # a rank's pin-memory thread gone
    "tagged-pin-memory-thread": (["[rank3]: Traceback (most recent call last):",
                                  '[rank3]:   File "train.py", line 88, in <module>',
                                  "[rank3]: RuntimeError: Pin memory thread exited unexpectedly"], 4, 3, "python-exception"),
    # controls: every rank's worker dies alike (the container's /dev/shm) ...
    "every-rank-worker-bus-error": (sum((_worker_killed(r, "Bus error", 1000 + r, SHM_HINT) for r in range(4)), []), 4,
                                    None, None),
    # ... every rank's worker SIGKILLed alike
    "every-rank-worker-killed": (sum((_worker_killed(r, "Killed", 2000 + r) for r in range(4)), []), 4, None, None),
    # ... unranked ENOSPC tracebacks of two processes (Megatron-LM-878's shape)
    "unranked-shm-enospc-twice": (ENOSPC * 2, 2, None, None),
    # ... the loader's own shm warning from every worker, no rank
    "unranked-unexpected-bus-error": (["ERROR: Unexpected bus error encountered in worker. This might be caused by "
                                       "insufficient shared memory (shm)."] * 4, 4, None, None),
    # ... gpt-neox-1252's interleaved `Too many open files` behind a pdsh host prefix
    "host-prefixed-errno24": (["GPUCA6E:        nfd = dup(fd)", "GPUCA6E:           ^^^^^^^",
                               "GPUCA6E: OSError: [Errno 24] Too many open files",
                               "GPUCA6E:    OSError  : [Errno 24] Too many open files"], None, None, None),
    # ... pytorch-120401's unranked traceback after one rank's own progress prints
    "rank-prints-then-unranked-traceback": (["rank 13, epoch 160, torch.Size([4])"] * 3
                                            + ["Traceback (most recent call last):",
                                               '  File "/workspace/dataloader.py", line 29, in <module>',
                                               "    for itd in dataloader:"], 16, None, None),
}
BATCHED = Batched("b130", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc = CASES[key][0], CASES[key][1]
    return pasted(lines, folder, nproc, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_dataloader_worker_deaths_name_the_lone_rank_only(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2], CASES[key][3])
