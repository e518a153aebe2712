"""A pair's one waiter and its node launcher's failure report (real incidents batch 40, Ouroboros' terminal log).

In a bundle ``k10s import-logs`` made from a paste, when a single rank timed out in the watchdog, the only other rank
of a two-rank job is a silent witness (never-joined) only if a line of its own or its node launcher's failure report is
in the paste: one waiter's lines are no proof that the others' output was pasted at all (docs/rules.md, nccl-hang).
Every launcher's report counts, not torchrun's table only: the parent's ``process 1 terminated with signal SIGABRT`` of
torch.multiprocessing.spawn (bare, in its ProcessExitedException, after a Kaggle console's elapsed-time column),
mpirun's ``noticed that process rank 1 ... exited on signal 6``, Horovod's ``Process 1 exit with status code 134``,
DeepSpeed's ``exits with return code = -6``. Without any report nobody is named; in a world of four, one waiter and
three silent ranks name nobody either. All pastes are analysed in one merged bundle.
"""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from incident_kit import naming_findings
from torch_runs_kit import CAPTURED

WAITER = ["[rank1]:[E1130 04:10:21.473000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=306, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600032 "
          "milliseconds before timing out.",
          "[rank1]:[E1130 04:10:21.474000000 ProcessGroupNCCL.cpp:2119] [PG ID 0 PG GUID 0(default_pg) Rank 1] failure "
          "detected by watchdog at work sequence id: 306 PG status: last enqueued work: 306, last completed work: 305",
          "terminate called after throwing an instance of 'c10::DistBackendError'"]
#: the Ouroboros shape: the author's six lines, each after the Kaggle console's elapsed seconds
KAGGLE = ["4557.9s  [val] step=3750  val_ce=5.6254  val_acc=0.2203",
          "4600.0s  WorkNCCL(SeqNum=13274, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,",
          "          Timeout(ms)=600000) ran for 600003 milliseconds before timing out.",
          "4600.0s  [Rank 1] Watchdog caught collective operation timeout",
          "4600.0s  terminate called after throwing an instance of 'c10::DistBackendError'",
          "4600.0s  process 1 terminated with signal SIGABRT"]
SPAWN_EXC = "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT"
SPAWN_CODE = "Exception: process 1 terminated with exit code 134"
MPIRUN = "mpirun noticed that process rank 1 with PID 4242 on node gpu01 exited on signal 6 (Aborted)."
HOROVOD = "Process 1 exit with status code 134."
DEEPSPEED = ("[2026-11-30 04:10:25,114] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', "
             "'--local_rank=1'] exits with return code = -6")

#: (name, paste, processes per node and world, the ranks a warning/critical finding must name: [] for none)
PASTES = [
    ("kaggle-elapsed-spawn", KAGGLE, 2, [0]),
    ("spawn-exception", WAITER + [SPAWN_EXC], 2, [0]),
    ("spawn-exit-code", WAITER + [SPAWN_CODE], 2, [0]),
    ("mpirun-noticed", WAITER + [MPIRUN], 2, [0]),
    ("horovod-exit", WAITER + [HOROVOD], 2, [0]),
    ("deepspeed-last-command", WAITER + [DEEPSPEED], 2, [0]),
    # no launcher's report: the waiter's lines may be all that was pasted
    ("no-report", WAITER, 2, []),
    ("kaggle-no-report", KAGGLE[:-1], 2, []),
    # a world of four: one waiter and three silent ranks are no pair
    ("four-ranks-spawn", WAITER + [SPAWN_EXC], 4, []),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.logimport import LogSource, import_logs

    tmp = tmp_path_factory.mktemp("witness")
    bundles = [import_logs([LogSource("log.txt", "\n".join(lines) + "\n")], tmp / name, job="train", namespace="team-a",
                           now=CAPTURED, derive=False, nproc_per_node=n, world_size=n)[0]
               for name, lines, n, _ in PASTES]
    return analyze(merge(bundles, tmp / "merged"))["findings"]


@pytest.mark.parametrize(("i", "want"), [(i, want) for i, (*_, want) in enumerate(PASTES)], ids=[p[0] for p in PASTES])
def test_a_launcher_report_makes_the_silent_rank_of_a_pair_a_witness(findings, i, want):
    named = naming_findings(findings_of(findings, i))
    assert sorted({r for f in named for r in f["ranks"]}) == want, [(f["rule"], f["severity"], f["ranks"], f["summary"]) for f in named]
    assert all(f["cause"] == "never-joined" for f in named), [(f["rule"], f["cause"]) for f in named]
