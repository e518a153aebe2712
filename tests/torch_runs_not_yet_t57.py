"""The fifty-seventh set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why: ``_T57[how]``, one
dict each way (``import``, ``podlog``), as its one miss is the captured pod logs' only."""

from __future__ import annotations

_SPAWN_CONFIG = (
    "mp.spawn, one spawner per node, 2 x 2: every rank raises the same configuration ValueError at step 8; each "
    "spawner SIGTERMs its other process and prints ONE '-- Process 1 terminated with the following error:' report "
    "(its first failed process: rank 1 on node 0, rank 3 on node 1), so only 2 of the 4 ranks' tracebacks are in the "
    "logs, and each is stamped when its spawner prints it, after the sibling's SIGTERM, not when the rank raised: node "
    "1's at 17:45:16.404817, node 0's at 17:45:17.407646, 1.003 s apart (2.13.0: 0.58 s apart, read right as "
    "common-mode); k10s said 'Rank 3 raised an exception and the job was torn down ... 1 other rank(s)/processes were "
    "torn down after it' (rank-failure, critical, python-exception, rank 3, decided_by first-failure, rank 1 its "
    "victim); truth: a control, every rank's same ValueError, no rank may be named (the import-logs reading, without "
    "the pod logs' arrival stamps, says 'Ranks failed (python-exception) but no single rank brought the job down': "
    "right)")
_T57: dict[str, dict[str, str]] = {
    "import": {},
    # read right since session 63 (devM: the same exception raised to the letter by another rank within ten seconds
    # fails them alike; tests/test_same_exception_to_the_letter.py): 2.14.1/t57-spawn-2x2-config-every-rank-step8 (podlog)
    "podlog": {},
}
