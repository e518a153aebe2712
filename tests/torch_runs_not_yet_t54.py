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
_HERRING_ALIKE = ("--tee 3 --local-ranks-filter 1 (ranks 1 and 3 shown): rank 3's handled KeyError traceback at step 2 "
                  "(`ERROR [rank3] train: eval batch failed, skipping`, then `[default1]:KeyError: 'num_tokens'`, and rank "
                  "3's training lines after it) is read as rank 3 raising; beside rank 1's silent os._exit(1) at step 4 "
                  "it makes 'Ranks 1, 3 raised a Python exception ... no single culprit' (warning, no rank; import: "
                  "'failed alike in lines without a timestamp of their own', podlog: 'within one second'): the herring "
                  "hides the culprit (the job torn down, a caught traceback the rank trained on after still counts)")
_HERRING_FIRST = ("2 x 3, --tee 3 --log-dir, the captured pod logs only: rank 0's handled ValueError traceback at step 2 "
                  "(`[default0]:ValueError: eval batch 2: expected 4 samples, got 3 ...`, rank 0 training on after it) "
                  "is named as the first failure (rank-failure, critical, python-exception, rank 0); rank 5's SIGKILL at "
                  "step 4 (exit -9, no SIGTERM first: host-oom-kill) not named; import-logs reads it right (rank 5, "
                  "host-oom-kill, critical)")
_BOTH = {f"{v}/t54-trun-2x2-{run}": why for v in ("2.13.0", "2.14.1") for run, why in {
    "handled-key-rank1-exit1-rank2": _UNTAGGED_EXIT, "handled-key-rank3-exit1-rank1-filter1": _HERRING_ALIKE}.items()}
_T54: dict[str, dict[str, str]] = {
    "import": dict(_BOTH),
    "podlog": {**_BOTH, **{f"{v}/t54-trun-2x3-handled-value-rank0-sigkill-rank5-logdir": _HERRING_FIRST
                           for v in ("2.13.0", "2.14.1")}},
}
