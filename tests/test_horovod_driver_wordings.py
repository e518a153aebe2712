"""horovodrun's driver ending the job (parsers/log_failures.py ``HOROVOD_DRIVER_REPORT``, real incidents batch 65):
its Gloo runner's ``RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus
causing the job to be terminated. The first process to do so was:`` is raised in the launcher's own process, about a
process it ran: no rank's exception (as torchrun's ``ChildFailedError``; its MPI / jsrun runners' ``RuntimeError: mpirun
failed with exit code N`` already read as a rankless exit). A paste of the driver's traceback alone named rank 0, the bucket its
untagged lines fall into, a false culprit. The report's ``Process name: N`` / ``Exit code: N`` lines keep their
event (tests/test_hpc_launcher_wordings.py); a rank's own ``RuntimeError`` keeps its. Parser calls only.
"""

from __future__ import annotations

import datetime as dt

import pytest

from parser_kit import body_events
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
GLOO = ("RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the job "
        "to be terminated. The first process to do so was:")


def _exceptions(line: str) -> list[tuple]:
    return [(e["subkind"], e.get("rank"), e["error_type"]) for e in classify(line) if e["kind"] == "python_exception"]


def _events(text: str) -> list[tuple]:
    return [(e["kind"], e.get("subkind"), e.get("rank"), e.get("exit_code")) for e in body_events(text.split("\n"), NOW, prefiltered=False)]


@pytest.mark.parametrize("line", [
    GLOO,  # gloo_run.py, static and elastic
    "RuntimeError: mpirun failed with exit code 139",  # mpi_run.py: a rankless exit
    "RuntimeError: jsrun failed with exit code 255",  # js_run.py (LSF)
    "[1,0]<stderr>:" + GLOO,  # behind a rank tag all the same: the driver's words
    "<>        [2021-12-07 10:43:01] 087c0ee7 || " + GLOO,  # behind Determined's container prefix
])
def test_the_driver_s_report_is_no_rank_s_exception(line):
    assert _exceptions(line) == []


@pytest.mark.parametrize(("line", "error_type"), [
    ("RuntimeError: Expected all tensors to be on the same device", "RuntimeError"),  # a rank's own
    ("[1,2]<stderr>:RuntimeError: mpirun exited early in my wrapper", "RuntimeError"),  # other words about mpirun
    ("RuntimeError: setup: mpirun not found on PATH", "RuntimeError"),  # a program's own message about mpirun
    ("ValueError: Horovod detected a bad shape", "ValueError"),
])
def test_other_exceptions_keep_their_event(line, error_type):
    assert [t for _, _, t in _exceptions(line)] == [error_type]


ELASTIC = """  File "/opt/anaconda3/lib/python3.6/site-packages/horovod/runner/gloo_run.py", line 318, in launch_gloo_elastic
    .format(name=name, code=exit_code))
{gloo}
Process name: elastic-test-worker-1[0]
Exit code: 137
""".format(gloo=GLOO)


def test_the_elastic_report_names_no_rank():
    """The elastic runner names the process ``host[slot]``: which global rank that was needs the host order, which the
    report does not give; neither the traceback nor the report is a rank's event."""
    assert [e for e in _events(ELASTIC) if e[0] in ("python_exception", "process_exit") and e[2] is not None] == []


def test_the_static_report_still_names_its_rank():
    assert ("process_exit", "mpirun_first", 1, 1) in _events(GLOO + "\nProcess name: 1\nExit code: 1")
    assert not [e for e in _events(GLOO + "\nProcess name: 1\nExit code: 1") if e[0] == "python_exception"]
