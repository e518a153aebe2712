"""Open MPI's ``MPI_ABORT was invoked on rank R ... with errorcode N.``: N is the status the caller gave ``MPI_Abort``,
which mpirun exits with (real incidents batch 164, FedML-AI/FedML#594: FedML's MPI backend ends a finished federation
by ``MPI_Abort(comm, 0)`` from the process that gets the finish message, rank 3 there). Errorcode 0 is success: with
no error of a process printed before it the abort is the program's orderly end, no failure of rank R, and names no
one; after an error (an exception guard calling mpi4py's ``Abort()``, whose default errorcode is 0) it stays rank R's
abort, and any other errorcode names rank R as before (parsers/log_ompi.py, docs/rules.md "Session 34: batch 164").
The errorcode is read on the abort's line or on the next (Open MPI wraps it there). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_ompi import (
    abort_status,
    mpi_abort,
    orderly_aborts_dropped,
)

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
RULE = "-" * 74
NOTE = [
    "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.",
    "You may or may not see output from other processes, depending on",
    "exactly when Open MPI kills them.",
]


def _banner(
    rank: int,
    code: int,
    *,
    wrapped: bool = True,
    indent: str = "",
    note_gap: bool = False,
) -> list[str]:
    head = f"MPI_ABORT was invoked on rank {rank} in communicator MPI_COMM_WORLD"
    lines = (
        [RULE, head, f"with errorcode {code}."]
        if wrapped
        else [RULE, f"{head} with errorcode {code}."]
    )
    return [
        indent + line for line in lines + ([""] if note_gap else []) + NOTE + [RULE]
    ]


FEDML = [  # the batch-164 paste: a markdown list item's block with stray backticks
    "   `" + RULE,
    "    MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD",
    "    with errorcode 0.",
    "",
    "   NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.",
    "   You may or may not see output from other processes, depending on",
    "    exactly when Open MPI kills them.",
    "   " + RULE + "`",
]
ROUND = [
    "[FedML-Server(0) @device-id-0] [Sat, 01 Oct 2022 18:30:34] [INFO] [server_manager.py:110:send_message] "
    "__finish server",
    "INFO: round 49 done, test_acc = 0.8123",
]
TRACEBACK = [  # rank 3's own error, then its exception guard's Abort()
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "main.py", line 52, in <module>',
    "[rank3]:     runner.run()",
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered",
]
PROCESS = "mpirun noticed that process rank 2 with PID 4242 on node fl98 exited on signal 9 (Killed)."

#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "fedml-594-as-pasted": (FEDML, None),
    "errorcode-0-wrapped": (_banner(3, 0), None),
    "errorcode-0-one-line": (_banner(5, 0, wrapped=False), None),
    "errorcode-0-indented-blank-before-note": (
        _banner(1, 0, indent="    ", note_gap=True),
        None,
    ),
    "errorcode-0-after-progress-lines": (ROUND + _banner(2, 0), None),
    # contrasts: any other errorcode is the caller's abort, as before ...
    "errorcode-2-wrapped": (_banner(1, 2), 1),
    "errorcode-14-one-line": (_banner(7, 14, wrapped=False), 7),
    "errorcode-minus-1-wrapped": (_banner(4, -1), 4),
    # ... an errorcode cut off the paste is not read as 0 ...
    "errorcode-cut": (
        [RULE, "MPI_ABORT was invoked on rank 6 in communicator MPI_COMM_WORLD"],
        6,
    ),
    # ... and after an error of a process, errorcode 0 is an exception guard's Abort(): the caller's abort
    "errorcode-0-after-traceback": (TRACEBACK + _banner(3, 0), 3),
}
BATCHED = Batched("b164", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_an_abort_with_errorcode_0_and_no_error_before_it_names_no_one(
    key, tmp_path_factory
):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])


def test_the_errorcode_on_the_abort_line_is_kept_on_its_event():
    ev = mpi_abort(
        "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD with errorcode 0."
    )
    assert ev is not None and (ev["rank"], ev["_errorcode"]) == (0, 0)
    ev = mpi_abort("MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD")
    assert ev is not None and ev["_errorcode"] is None


@pytest.mark.parametrize(
    "tail, code",
    [("with errorcode 0.", 0), ("  with errorcode 2.", 2), ("with errorcode -1", -1)],
)
def test_the_wrapped_errorcode_goes_to_the_abort_on_the_line_before(tail, code):
    ev = mpi_abort("MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD") | {
        "line_no": 10
    }
    assert abort_status([ev], 11, tail) and ev["_errorcode"] == code
    assert ev["error_message"].endswith(f"with errorcode {code}")


@pytest.mark.parametrize(
    "line_no, tail",
    [
        (12, "with errorcode 0."),  # not the line right after the abort
        (11, "with errorcode 0. and more"),  # not the help text's line
        (11, "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes."),
    ],
)
def test_other_lines_after_an_abort_are_no_errorcode(line_no, tail):
    ev = mpi_abort("MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD") | {
        "line_no": 10
    }
    assert not abort_status([ev], line_no, tail) and ev["_errorcode"] is None


def test_only_an_errorcode_0_abort_with_no_error_before_it_is_dropped():
    ok = {"kind": "process_exit", "subkind": "mpi_abort", "rank": 3, "_errorcode": 0}
    failed = {
        "kind": "process_exit",
        "subkind": "mpi_abort",
        "rank": 3,
        "_errorcode": 1,
    }
    unknown = {
        "kind": "process_exit",
        "subkind": "mpi_abort",
        "rank": 3,
        "_errorcode": None,
    }
    error = {"kind": "python_exception", "rank": None}
    step = {"kind": "comm_group", "rank": 0}
    assert orderly_aborts_dropped([step, ok]) == [step]
    assert orderly_aborts_dropped([error, ok]) == [error, ok]
    assert orderly_aborts_dropped([ok, error]) == [error]
    assert orderly_aborts_dropped([failed, unknown]) == [failed, unknown]


def test_a_process_killed_by_a_signal_is_read_as_before_beside_an_orderly_abort(
    tmp_path,
):
    from k10s_forensics.analyze.runner import analyze

    bundle = pasted(_banner(3, 0) + [PROCESS], tmp_path, None, NOW, world=None)
    named = naming_findings(analyze(bundle)["findings"])
    assert named and all(f["ranks"] == [2] for f in named), [
        (f["rule"], f["ranks"]) for f in named
    ]
