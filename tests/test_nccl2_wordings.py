"""PyTorch 2.14's opt-in NCCL backend (``TORCH_DIST_USE_NCCL2=1``, c10d::nccl2 on torchcomms) and its own wordings
(k10s_forensics/parsers/log_nccl2.py). It runs on CUDA only, so no run of ours records it: its lines are written here
from its sources (c10d/nccl2's Logging.hpp: ``[TC][rank=N][name=<comm>] ``; WorkNCCL.cpp's ``Operation timed out after
N ms``; ProcessGroupNCCL.cpp's ``Aborting process on rank N due to …``, ``nccl hit async error on rank N: …`` and the
training thread's ``NCCL operation timed out``), each shape read through ``import-logs`` and ``analyze`` as a user would,
beside the stock backend's reading of the same incident.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import pasted
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 4, 22, 0, tzinfo=dt.timezone.utc)
SRC = "torch/csrc/distributed/c10d/nccl2"
WAITERS = (0, 1, 3)


def _record(rank: int, clock: str, where: str, message: str, tagged: bool = True) -> str:
    """One c10 log record of nccl2 (torchrun's ``[rankN]:`` tag in front when ``tagged``)."""
    return (f"[rank{rank}]:" if tagged else "") + f"[E1204 {clock} {4130 + rank} {SRC}/{where}] [TC][rank={rank}][name=0] {message}"


def _timed_out(rank: int, tagged: bool = True) -> str:
    return _record(rank, f"21:30:12.3{rank}0000", "WorkNCCL.cpp:190", f"Operation timed out after {600031 + rank} ms", tagged)


def _abort(rank: int, why: str = "timeout - timeout watchdog detected operation timeout", clock: str = "",
           tagged: bool = True) -> str:
    return _record(rank, clock or f"21:30:12.3{rank}5000", "ProcessGroupNCCL.cpp:688",
                   f"Aborting process on rank {rank} due to {why}", tagged)


def _async_error(rank: int, clock: str, words: str) -> str:
    return _record(rank, clock, "ProcessGroupNCCL.cpp:402", f"nccl hit async error on rank {rank}: {words}")


def _raised(rank: int) -> list[str]:
    """The training thread's own check of its work: a traceback ending ``RuntimeError: NCCL operation timed out``."""
    return [f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "/app/train.py", line 88, in <module>',
            f"[rank{rank}]:     dist.all_reduce(t)", f"[rank{rank}]: RuntimeError: NCCL operation timed out"]


def _steps() -> list[str]:
    return [f"[rank{r}]:step 40 loss 2.11{r}" for r in range(4)]


REMOTE = "remote process exited or there was a network error"
#: name -> (pasted lines, the culprit finding's (rule, cause, ranks) or None: no rank named at warning or above)
PASTES = {
    "hang": (_steps() + [_timed_out(r) for r in WAITERS] + [_abort(r) for r in WAITERS], ("nccl-hang", "never-joined", [2])),
    "hang-abort-lines-only": (_steps() + [_abort(r) for r in WAITERS], ("nccl-hang", "never-joined", [2])),
    "hang-raised-in-training-thread": (_steps() + sum((_raised(r) for r in WAITERS), []), ("nccl-hang", "never-joined", [2])),
    "hang-untagged": ([_timed_out(r, tagged=False) for r in WAITERS] + [_abort(r, tagged=False) for r in WAITERS],
                      ("nccl-hang", "never-joined", [2])),
    "cuda-error-end-event": (_steps() + [
        _record(1, "21:20:01.100000", "WorkNCCL.cpp:201", "CUDA error during end event query: an illegal memory access was encountered (700)"),
        _abort(1, "error - timeout watchdog detected operation error", "21:20:01.200000")]
        + [_async_error(r, f"21:20:0{2 + r}.000000", REMOTE) for r in (0, 2, 3)], ("rank-failure", "cuda-error", [1])),
    "one-rank-async-error-others-time-out": (_steps() + [
        _async_error(3, "21:20:01.000000", "unhandled system error"),
        _abort(3, "error - nccl hit async error: unhandled system error", "21:20:01.100000")]
        + [_timed_out(r) for r in (0, 1, 2)], ("rank-failure", "nccl-error", [3])),
    "every-rank-async-error-at-once": (_steps() + [_async_error(r, f"21:20:01.{r}00000", "unhandled system error") for r in range(4)],
                                       None),
}


def _analysis(tmp_path: Path, lines: list[str]) -> dict:
    return analyze(pasted(lines, tmp_path, 4, NOW))


@pytest.fixture(scope="module")
def analyses(tmp_path_factory) -> dict[str, dict]:
    return {name: _analysis(tmp_path_factory.mktemp(name), lines) for name, (lines, _) in PASTES.items()}


def _named(analysis: dict) -> list[dict]:
    return [f for f in analysis["findings"] if f["severity"] in ("warning", "critical") and f["ranks"]]


@pytest.mark.parametrize("name", sorted(PASTES))
def test_each_nccl2_shape_names_its_culprit_or_none(analyses, name):
    _, want = PASTES[name]
    named = _named(analyses[name])
    if want is None:
        assert named == [], named
        assert any(f["rule"] == "rank-failure" and f["cause"] == "nccl-error" for f in analyses[name]["findings"])
        return
    rule, cause, ranks = want
    assert any((f["rule"], f["cause"], f["ranks"]) == (rule, cause, ranks) for f in named), named
    assert all(f["ranks"] == ranks for f in named), named  # no other rank named beside it


def test_a_nccl2_hang_reads_as_the_stock_backends_hang(analyses, tmp_path):
    """The same incident in stock ProcessGroupNCCL's words: the same rank, cause and grade; nccl2 gives no SeqNum or op."""
    stock = [f"[rank{r}]:[E1204 21:30:12.3{r}0000 {4130 + r} torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632] [Rank {r}] "
             "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5711, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
             f"Timeout(ms)=600000) ran for 600031 milliseconds before timing out." for r in WAITERS]
    (theirs,) = [f for f in _analysis(tmp_path, _steps() + stock)["findings"] if f["rule"] == "nccl-hang"]
    (ours,) = [f for f in analyses["hang"]["findings"] if f["rule"] == "nccl-hang"]
    assert (ours["ranks"], ours["cause"], ours["severity"], ours["confidence"]) == (
        theirs["ranks"], theirs["cause"], theirs["severity"], theirs["confidence"])
    assert "3 ranks timed out waiting in a collective." in ours["summary"] and "---" not in ours["summary"]
    assert "SeqNum" not in ours["summary"] and "SeqNum 5711 (ALLREDUCE)" in theirs["summary"]


def test_without_the_waiters_lines_no_rank_is_named(tmp_path):
    """Contrast: the same paste less nccl2's timeout lines holds no wait, so the silent rank 2 is no culprit."""
    assert _named(_analysis(tmp_path, _steps())) == []


@pytest.mark.parametrize("line, kind, subkind, rank", [
    (_timed_out(3), "nccl_watchdog_timeout", "nccl2_timed_out", 3),
    (_timed_out(3, tagged=False), "nccl_watchdog_timeout", "nccl2_timed_out", 3),  # the record's own [TC][rank=3]
    (_abort(2), "nccl_watchdog_timeout", "nccl2_abort_timeout", 2),
    (_abort(2, "timeout - collective operation timed out"), "nccl_watchdog_timeout", "nccl2_abort_timeout", 2),
    # earlier builds' order, the training thread's bare abort, reconfigurable mode's revoke
    (_record(2, "21:30:12.300000", "ProcessGroupNCCL.cpp:301", "Aborting process due to timeout on rank 2 - timeout watchdog "
             "detected operation timeout"), "nccl_watchdog_timeout", "nccl2_abort_timeout", 2),
    (_record(2, "21:30:12.300000", "ProcessGroupNCCL.cpp:420", "Aborting process due to timeout"), "nccl_watchdog_timeout",
     "nccl2_abort_timeout", 2),
    (_record(2, "21:30:12.300000", "ProcessGroupNCCL.cpp:352", "Revoking communicator on rank 2 - watchdog detected timeout "
             "(reconfigurable mode)"), "nccl_watchdog_timeout", "nccl2_abort_timeout", 2),
    (_record(0, "21:20:01.000000", "ProcessGroupNCCL.cpp:330", "Aborting process due to error on rank 0 - nccl hit async error: "
             "unhandled system error"), "nccl_error_other", "ncclSystemError", 0),
    ("[rank1]: RuntimeError: NCCL operation timed out", "nccl_watchdog_timeout", "nccl2_raised", 1),
    (_async_error(0, "21:20:01.000000", REMOTE), "nccl_remote_error", "remote_error", 0),
    (_async_error(0, "21:20:01.000000", "unhandled cuda error"), "nccl_error_other", "ncclUnhandledCudaError", 0),
    (_abort(0, "error - nccl hit async error: internal error"), "nccl_error_other", "ncclInternalError", 0),
    (_record(1, "21:20:01.100000", "WorkNCCL.cpp:201", "CUDA error during end event query: an illegal memory access was "
             "encountered (700)"), "cuda_error", "illegal-address", 1),
])
def test_each_wording_is_its_event(line, kind, subkind, rank):
    (event,) = classify(line)
    assert (event["kind"], event["subkind"], event["rank"]) == (kind, subkind, rank)


def test_the_work_timeout_keeps_how_long_it_ran():
    (event,) = classify(_timed_out(0))
    assert event["ran_for_ms"] == 600031 and event.get("timeout_ms") is None  # nccl2 prints no Timeout(ms)


@pytest.mark.parametrize("line", [
    "curl: (28) Operation timed out after 30000 milliseconds with 0 bytes received",  # curl's, in milliseconds, no [TC]
    "[E1204 21:30:12.300000 4130 server.cpp:12] Operation timed out after 600031 ms",  # another C++ program's, no [TC]
    "INFO Aborting process on rank 0 due to user request",  # neither timeout nor error
    "[TC][rank=1][name=0] Revoking communicator on rank 1 - watchdog detected error (reconfigurable mode)",  # no word of why
    "[TC][rank=0][name=0] Timeout thread starting for rank: 0",  # nccl2's own info record
])
def test_lines_like_them_are_no_wait(line):
    assert not [e for e in classify(line) if e["kind"] in ("nccl_watchdog_timeout", "nccl_error_other", "cuda_error")]
