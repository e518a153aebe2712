"""Session 18's general fixes (docs/rules.md, "Session 18: general fixes"), each wording a case.

* A script's own ``sys.excepthook`` that logs the exception it did not handle as one record, with no traceback, then
  exits 1 (``ERROR train: uncaught KeyError: 'labels'``): the record is no failure by itself, but it says why a rank
  its launcher reports exiting 1 with nothing else of its own ended (``python-exception``, not ``exit-1``).
* An exit 1 of a rank a collective fingerprint report names is that check's RuntimeError: ``collective-mismatch``.
* A paste whose line order nothing proves (its times fall and rise alike, its times and tracebacks disagree, or its
  tracebacks are turned over and upright alike): no first failure is read from its order.

The inputs that must be analysed are read in one analysis (``_findings``: their bundles merged, tests/bundle_batch.py).
"""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_newest_first import newest_first, order_unknown
from torch_runs_kit import CAPTURED, load_runs, named, plain

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


_HOOK = "ERROR train: uncaught KeyError: 'labels'"


def _hook_texts() -> list[str]:
    run = next(r for r in load_runs() if r.id == "2.14.1/t15-trun-excepthook-one-line-rank1")
    return [plain(t) for t in run.stamped()]


def _tb(rank: int, error: str, turned: bool = False) -> list[str]:
    lines = [f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "train.py", line {10 + rank}, in <module>',
             f"[rank{rank}]:     step(batch)", f"[rank{rank}]: {error}"]
    return lines[::-1] if turned else lines


_TEARDOWN = "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error"
#: two ranks each raising its own error, two torn down: two tracebacks upright, two turned over (pieces of the log
#: pasted turned): nothing orders rank 0's KeyError against rank 1's ValueError
_MIXED = [*_tb(0, "KeyError: 'labels'"), *_tb(1, "ValueError: bad batch", turned=True), *_tb(2, _TEARDOWN),
          *_tb(3, _TEARDOWN, turned=True)]
_UPRIGHT = [*_tb(0, "KeyError: 'labels'"), *_tb(1, "ValueError: bad batch"), *_tb(2, _TEARDOWN), *_tb(3, _TEARDOWN)]


_FINGERPRINT = ("RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint("
                "SequenceNumber=485, OpType=ALLREDUCE, TensorShape=[25], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float "
                "(default), device=cuda)), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=485, OpType=BROADCAST, "
                "TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes=TensorOptions(dtype=long int, device=cuda)).")
_EXIT0 = ("[2024-02-09 09:09:15,164] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 "
          "(pid: 170581) of binary: /usr/bin/python3.10")


def _inputs() -> list[list[str]]:
    texts = _hook_texts()
    assert _HOOK in texts[0]
    loguru = [t.replace(_HOOK, "| ERROR    | __main__:hook:12 - Unhandled exception KeyError('labels')") for t in texts]
    cut = ["".join(ln for ln in t.splitlines(keepends=True) if _HOOK not in ln) for t in texts]
    return [loguru, cut, ["\n".join(_MIXED) + "\n"], ["\n".join(_UPRIGHT) + "\n"], [f"{_FINGERPRINT}\n{_EXIT0}\n"],
            [f"RuntimeError: boom\n{_EXIT0}\n"]]


@pytest.fixture(scope="module")
def _findings(tmp_path_factory) -> list[list[dict]]:
    tmp = tmp_path_factory.mktemp("general18")
    bundles = [import_logs([LogSource(f"node{n}.log", t) for n, t in enumerate(texts)], tmp / str(i), job="train",
                           namespace="team-a", now=CAPTURED, world_size=4 if i < 4 else 2, derive=False)[0]
               for i, texts in enumerate(_inputs())]
    from k10s_forensics.analyze.runner import analyze

    found = analyze(merge(bundles, tmp / "merged"))["findings"]
    return [findings_of(found, i) for i in range(len(bundles))]


def test_the_hook_record_says_why_a_silent_exit_1_ended(_findings):
    """The recorded t15 excepthook run (rank 1's hook logs one record, its launcher reports exit 1): reworded as loguru
    prints it, rank 1 is named with python-exception; without the record, the same run reads exit-1 (the cause comes
    from that line alone, the rank from the launcher either way)."""
    assert named(_findings[0]) == [("python-exception", [1])]
    assert named(_findings[1]) == [("exit-1", [1])]


_T = "2026-11-28 12:05:0{}.000 UTC\t"


@pytest.mark.parametrize("lines", [
    [_T.format(s) + f"line {s}" for s in (1, 3, 2, 5, 4, 6, 0)],  # times fall and rise alike
    [_T.format(s) + ln for s, ln in zip((1, 2, 3, 4, 5, 6, 7, 8), _tb(0, "KeyError: 'x'", turned=True) + _tb(1, "ValueError: y", turned=True))],
    _MIXED,  # no times: two tracebacks turned over, two upright
], ids=["times-both-ways", "times-rise-tracebacks-turned", "tracebacks-both-ways"])
def test_a_paste_whose_order_nothing_proves_is_noted_and_left_as_it_is(lines):
    assert order_unknown(lines)
    out, note = newest_first(lines)
    assert out == lines and note and note.startswith("line order unknown")


@pytest.mark.parametrize("lines", [
    [_T.format(s) + f"line {s}" for s in (6, 5, 4, 3, 2, 1)],  # newest first: reversed
    [_T.format(s) + f"line {s}" for s in (1, 2, 4, 3, 5, 6, 7)],  # one fall among rises (two processes' buffers)
    [f"[pod/train-{p}/pytorch] " + _T.format(s).replace("\t", " ") + f"line {s}" for p in range(4) for s in (1, 2)],  # --prefix: pod after pod
    _UPRIGHT,
    [*_tb(0, "KeyError: 'x'", turned=True), *_tb(1, "ValueError: y", turned=True)],  # every traceback turned: newest first
    ["Traceback (most recent call last):", "Traceback (most recent call last):", '  File "a.py", line 1, in <module>',
     '  File "a.py", line 1, in <module>', "KeyError: 'x'", "KeyError: 'x'"],  # untagged processes interleaved
    ["no clock", "no traceback"],
], ids=["newest-first", "one-fall", "pod-after-pod", "upright", "all-turned", "interleaved", "neither"])
def test_a_paste_whose_order_is_proven_or_unknowable_by_nothing_is_no_unknown_order(lines):
    assert not order_unknown(lines)
    assert not (newest_first(lines)[1] or "").startswith("line order unknown")


def test_no_first_failure_is_read_from_a_paste_whose_order_nothing_proves(_findings):
    """Rank 0's KeyError and rank 1's ValueError, no clock: in a paste whose tracebacks are upright, rank 0's comes
    first and is named; with two of them turned over, nothing orders the two, and no rank is named."""
    assert named(_findings[3]) == [("python-exception", [0])]
    assert named(_findings[2]) == []
    reasons = [f["title"] + " " + str(f["evidence"]) for f in _findings[2] if f["rule"] == "rank-failure"]
    assert any("line order is unknown" in r for r in reasons), reasons


def test_an_exit_1_of_a_rank_a_fingerprint_report_names_is_that_mismatch(_findings):
    """torch's untagged `Detected mismatch between collectives on ranks. Rank 1 is running …, but Rank 0 is running …` above
    torchrun's `failed (exitcode: 1) local_rank: 0`: rank 0's exit is the check's RuntimeError, a collective mismatch (the
    rank is the launcher's, as before); another untagged error above the same exit stays python-exception."""
    assert ("collective-mismatch", [0]) in named(_findings[4])
    assert not [f for f in _findings[4] if f["severity"] in ("critical", "warning") and f["ranks"] == [1]]
    assert named(_findings[5]) == [("python-exception", [0])]
