"""The fifty-fourth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why: ``_T54[how]``, one
dict each way (``import``, ``podlog``), as one of its misses is the captured pod logs' only."""

from __future__ import annotations

_UNTAGGED_EXIT = ("torchrun's defaults (untagged output): rank 2 leaves with os._exit(1) at step 4, no word; its table "
                  "entry says exit 1 and the ranks left print gloo's 'Connection closed by peer' ([rankN]:-tagged); "
                  "rank 2 is named, but as python-exception (warning, medium: 'Only its exit status is in the logs'), "
                  "not exit-1: its own lines ('rank 2 step 3 loss ...') carry no rank the parser reads (training_step, "
                  "rank_resolved empty), so nothing shows its output was there for a traceback to appear in (no --tee "
                  "prefix, no rank tag): the silent exit is not known silent (2.14.1 adds an nccl-hang of rank 2, "
                  "critical, never-joined/rank-failed: the right rank, not the truth's cause); rank 1's handled KeyError "
                  "traceback plays no part")
# t54-trun-2x2-handled-key-rank3-exit1-rank1-filter1 (2.13.0 and 2.14.1, both ways) read right since session 61 (rank 3's
# caught KeyError traceback, after which rank 3's own `[default1]:` progress lines go on, is handled, not its end, teardown
# or not: no failure alike rank 1's; rank 1's silent exit 1 is exit-1, node 1's teed tracebacks saying the job's torchrun
# tees stderr: rank 1, exit-1, warning); t54-trun-2x3-handled-value-rank0-sigkill-rank5-logdir (2.13.0 and 2.14.1, the
# pod logs) read right since session 61 (rank 0's caught ValueError, its `[default0]:` steps after it: rank 5, host-oom-kill,
# critical). docs/rules.md, "Session 61: a handled traceback is not the rank's end".
# t54-trun-2x2-handled-key-rank1-exit1-rank2 (_UNTAGGED_EXIT above, kept as the record; 2.13.0 and 2.14.1, both ways) read
# right since session 69 (rank 2's own `rank 2 step 3 loss …` lines, its script's rank tag opening them, show its output
# was in its pod's log, beside its peers' `[rankN]:`-tagged tracebacks: its exit 1 without one is silent, exit-1;
# docs/rules.md, "Session 69: recorded runs' residue (a script's own rank tag shows a silent exit)",
# tests/test_script_rank_tag_silent_exit.py)
_T54: dict[str, dict[str, str]] = {
    "import": {},
    "podlog": {},
}
