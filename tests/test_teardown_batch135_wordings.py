"""Teardown at the end of a run that names no one (real incidents batch 135, ``teardown-exit-hangs``): every rank's
PyTorch >= 2.4 ``process group has NOT been destroyed`` warning at a clean exit (pytorch/pytorch#126275, the 2.5+
``Warning: WARNING: ... before we destruct ProcessGroupNCCL`` wording too, a lone rank's or a few ranks' with one
missing), torchrun's agent SIGTERMing children that were still exiting right before ``WorkerState.SUCCEEDED``
(pytorch/pytorch#125969, the old ``Closing process N via signal SIGTERM`` and the new ``Sending process N closing
signal SIGTERM`` wordings, bracketed or glog-prefixed), and ``mp.spawn``'s ``Terminating process N`` before a
``ProcessRaisedException`` whose process index the paste cut (pytorch/pytorch#163397). No rule was changed for the
batch: these pin that a destructor's warning, the launcher's clean-up of exiting children and a PID missing from its
list stay no culprit. Contrast: the agent's ``failed (exitcode: 1) local_rank: N`` after its SIGTERMs is still read.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 1, 20, 0, tzinfo=dt.timezone.utc)
_TAIL = (
    " On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL "
    "{what} have finished in this process. In rare cases this process can exit before this point and block the "
    "progress of another member of the process group. This constraint has always been present,  but this warning "
    "has only been added since PyTorch 2.4"
)
W24 = (
    "[rank{r}]:[W515 07:06:42.91574017{r} ProcessGroupNCCL.cpp:1117] WARNING: process group has NOT been destroyed "
    "before it is being destructed." + _TAIL.format(what="data transfers")
)
W25 = (
    "[rank{r}]:[W403 11:42:02.38096715{r} ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been "
    "destroyed before we destruct ProcessGroupNCCL."
    + _TAIL.format(what="operations")
    + " (function operator())"
)
NEW_KILL = (
    "W0510 14:52:48.18{i}934 672413 torch/distributed/elastic/multiprocessing/api.py:858] Sending process {pid} "
    "closing signal SIGTERM"
)
OLD_KILL = (
    "[2024-05-10 14:52:48,18{i}] torch.distributed.elastic.multiprocessing.api: [WARNING] Closing process {pid} "
    "via signal SIGTERM"
)
DONE = [
    "I0510 14:52:48.229119 672413 torch/distributed/elastic/agent/server/api.py:879] [default] worker group "
    "successfully finished. Waiting 300 seconds for other agents to finish.",
    "I0510 14:52:48.229161 672413 torch/distributed/elastic/agent/server/api.py:924] Local worker group finished "
    "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish",
]
SPAWN = (
    "W0920 10:36:10.72{i}000 1320983 site-packages/torch/multiprocessing/spawn.py:169] Terminating process {pid} "
    "via signal SIGTERM"
)
FAILED = (
    "E0510 14:52:49.103000 672413 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) "
    "local_rank: 1 (pid: 675172) of binary: /usr/bin/python"
)
PIDS = (675171, 675172, 675174)


def _kills(form: str, pids=PIDS) -> list[str]:
    return [form.format(i=i, pid=pid) for i, pid in enumerate(pids)]


#: key: (the pasted lines, nproc per node, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "w24-every-rank": ([W24.format(r=r) for r in (3, 6)], None, None),
    "w24-lone-rank0": ([W24.format(r=0)], None, None),
    "w25-lone-rank0": ([W25.format(r=0)], None, None),
    "w25-ranks-0-1-3-of-4": ([W25.format(r=r) for r in (0, 1, 3)], 4, None),
    "w25-lone-rank2-then-success": ([W25.format(r=2), *DONE], 4, None),
    "new-kills-then-success": (_kills(NEW_KILL) + DONE, None, None),
    "new-kills-then-success-nproc4": (_kills(NEW_KILL) + DONE, 4, None),
    "old-kills-then-success": (_kills(OLD_KILL) + DONE[1:], None, None),
    "spawn-kills-then-raised-cut": (
        _kills(SPAWN, (1321005, 1321006, 1321007))
        + ["torch.multiprocessing.spawn.ProcessRaisedException: "],
        None,
        None,
    ),
    # contrast: the agent's failed worker after its SIGTERMs is that worker's failure
    "new-kills-then-failed-local-rank1": (
        _kills(NEW_KILL, (675171, 675174)) + [FAILED],
        4,
        1,
    ),
}
BATCHED = Batched("b135", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_teardown_at_exit_names_no_one(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2])
