"""Session 18's general fixes (docs/rules.md, "Session 18: general fixes"), each wording a case.

* A script's own ``sys.excepthook`` that logs the exception it did not handle as one record, with no traceback, then
  exits 1 (``ERROR train: uncaught KeyError: 'labels'``): the record is no failure by itself, but it says why a rank
  its launcher reports exiting 1 with nothing else of its own ended (``python-exception``, not ``exit-1``).
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_classify import classify

_HOOKED = [
    ("[default1]:2026-11-30 01:33:49,688 ERROR train: uncaught KeyError: 'labels'", "KeyError", "'labels'"),
    ("ERROR:root:Uncaught exception: KeyError: 'labels'", "KeyError", "'labels'"),
    ("CRITICAL:__main__:Unhandled exception: ValueError: bad batch", "ValueError", "bad batch"),
    ("2026-11-30 01:33:49.688 | ERROR    | __main__:hook:12 - Unhandled exception ValueError('bad batch')", "ValueError",
     "'bad batch'"),
    ("E1130 01:33:51.634000 30042 train.py:12] uncaught RuntimeError: boom", "RuntimeError", "boom"),
    ("[rank3]: FATAL trainer - UNCAUGHT exception in main: torch.cuda.OutOfMemoryError - CUDA OOM",
     "torch.cuda.OutOfMemoryError", "CUDA OOM"),
    ("2026-11-30 01:33:49 [ERROR] unhandled exception, ZeroDivisionError: division by zero", "ZeroDivisionError",
     "division by zero"),
    ("ERROR train: uncaught KeyboardInterrupt", "KeyboardInterrupt", None),
]


@pytest.mark.parametrize("line,error_type,message", _HOOKED, ids=["logging", "root-logger", "critical", "loguru-repr",
                                                                   "glog", "upper-dotted", "comma", "no-message"])
def test_a_logged_uncaught_exception_is_read_with_its_type(line, error_type, message):
    assert [(e["kind"], e["error_type"], e["error_message"]) for e in classify(line)] == [("logged_exception", error_type, message)]


def test_the_logged_record_keeps_the_rank_its_launcher_tag_gives():
    assert [(e["rank"], e["local_rank"]) for e in classify(_HOOKED[0][0])] == [(None, 1)]
    assert [e["rank"] for e in classify("[rank2]: ERROR train: uncaught KeyError: 'labels'")] == [2]


@pytest.mark.parametrize("line", [
    "ERROR train: caught KeyError: 'labels', retrying",  # handled: no uncaught / unhandled
    "[rank0]: ERROR uncaught exception, see above",  # no exception named
    "host:1:1 [0] NCCL WARN unhandled cuda error",  # NCCL's own words: no Python exception
    "RuntimeError: NCCL error: unhandled system error, NCCL version 2.18.1",  # an exception (python_exception), not a record
    "ERROR train: uncaught ChildFailedError: worker 1 failed",  # the launcher's own exception
    "WARNING uncaught exceptions are logged to train.log",  # no exception's name
], ids=["handled", "no-type", "nccl", "exception-line", "launcher", "prose"])
def test_other_lines_are_no_logged_uncaught_exception(line):
    assert not [e for e in classify(line) if e["kind"] == "logged_exception"]


def test_the_hook_record_says_why_a_silent_exit_1_ended(tmp_path):
    """The recorded t15 excepthook run (rank 1's hook logs one record, its launcher reports exit 1): reworded as loguru
    prints it, rank 1 is named with python-exception; without the record, the same run reads exit-1 (the cause comes
    from that line alone, the rank from the launcher either way)."""
    from torch_runs_kit import findings_of_texts, load_runs, named, plain

    run = next(r for r in load_runs() if r.id == "2.14.1/t15-trun-excepthook-one-line-rank1")
    texts = [plain(t) for t in run.stamped()]
    hook = "ERROR train: uncaught KeyError: 'labels'"
    assert hook in texts[0]
    loguru = [t.replace(hook, "| ERROR    | __main__:hook:12 - Unhandled exception KeyError('labels')") for t in texts]
    assert named(findings_of_texts(tmp_path / "loguru", loguru)) == [("python-exception", [1])]
    cut = ["".join(ln for ln in t.splitlines(keepends=True) if hook not in ln) for t in texts]
    assert named(findings_of_texts(tmp_path / "cut", cut)) == [("exit-1", [1])]
