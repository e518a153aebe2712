"""Accelerator stacks beyond CUDA/NCCL (real incidents batch 67; docs/rules.md, "Session 24: batch 67").

* RCCL (ROCm) and NCCL builds that keep their debug info print NCCL's error return with the source's absolute path
  (``NCCL INFO /usr/src/debug/rccl/build/hipify/src/init.cc:2278 -> 1``): the same return as ``init.cc:1929 -> 2``
  (parsers/log_comm_lines.py ``nccl_return``), so two processes returning alike are seen (``nccl_alike``).
* NCCL's own WARN of a CUDA call it made (``NCCL WARN Cuda failure 'invalid argument'``) in one process, while two or
  more processes return the same NCCL error from the same site: the communicator's setup failed in all of them, no
  single culprit (queries/_incident.sql ``nccl_several``). One analysis for those cases (tests/bundle_batch.py).
* HCCL (Ascend): torch_npu's ``RuntimeError: … OPS function error: HcclAllreduce, error code is 6`` whose error-code
  report below says the rank waited on a remote one (``EI0006: … Getting socket times out. Reason: Remote Rank did not
  send the data in time``; ``EI0002: … The wait execution of the Notify register times out``) is that wait's teardown,
  no rank's own failure (parsers/log_hccl.py). Parser calls only.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bundle_batch import analyze_node_sets, findings_of
from incident_kit import naming_findings
from parser_kit import body_events
from k10s_forensics.parsers.log_comm_lines import nccl_return
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
PREFILTER = re.compile(PREFILTER_EVENT)
RCCL = "/usr/src/debug/rccl/build/hipify/src"
RPM = "/long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/src"


@pytest.mark.parametrize(("line", "subkind", "site"), [
    (f"UVOSLinux:19403:19403 [1] NCCL INFO {RCCL}/init.cc:2278 -> 1", "ncclUnhandledCudaError", f"{RCCL}/init.cc:2278"),
    (f"UVOSLinux:19402:19415 [0] NCCL INFO {RCCL}/transport/p2p.cc:473 -> 1", "ncclUnhandledCudaError", f"{RCCL}/transport/p2p.cc:473"),
    (f"g1064:11143:11190 [0] NCCL INFO {RPM}/init.cpp:1585 -> 3", "ncclInternalError", f"{RPM}/init.cpp:1585"),
    (f"UVOSLinux:19402:19415 [0] NCCL INFO {RCCL}/group.cc:68 -> 1 [Async thread]", "ncclUnhandledCudaError", f"{RCCL}/group.cc:68"),
    ("node1:4242:4300 [2] NCCL INFO init.cc:1929 -> 2", "ncclSystemError", "init.cc:1929"),  # NCCL's relative path: as before
    ("node1:4242:4300 [2] NCCL INFO transport/net_ib.cc:1054 -> 6", "ncclRemoteError", "transport/net_ib.cc:1054"),
])
def test_an_error_return_with_the_source_s_absolute_path(line, subkind, site):
    ev = nccl_return(line)
    assert (ev["subkind"], ev["error_message"]) == (subkind, f"{site} -> {line.rsplit('-> ', 1)[1][0]}")
    assert PREFILTER.search(line)


@pytest.mark.parametrize("line", [
    f"UVOSLinux:19402:19402 [0] NCCL INFO {RCCL}/init.cc:2278 -> 0",  # success is never an error return
    f"UVOSLinux:19402:19402 [0] NCCL INFO Using network Socket, see {RCCL}/net.cc",  # no return
])
def test_no_error_return(line):
    assert nccl_return(line) is None


def _rccl_init(warn_pid: int, other_pid: int, other_site: str = "init.cc:2278", code: int = 1) -> str:
    """Two processes' communicator setup: the WARN in ``warn_pid``'s transport thread, both processes' returns."""
    return "\n".join([
        f"host:{warn_pid}:{warn_pid + 17} [0] {RCCL}/transport/p2p.cc:237 NCCL WARN Cuda failure 'invalid argument'",
        f"host:{warn_pid}:{warn_pid + 17} [0] NCCL INFO {RCCL}/transport/p2p.cc:646 -> 1",
        f"host:{other_pid}:{other_pid} [1] NCCL INFO {RCCL}/group.cc:437 -> {code}",
        f"host:{other_pid}:{other_pid} [1] NCCL INFO {RCCL}/{other_site} -> {code}",
        f"host:{warn_pid}:{warn_pid + 13} [0] NCCL INFO {RCCL}/init.cc:1585 -> 1",
        f"host:{warn_pid}:{warn_pid} [0] NCCL INFO {RCCL}/group.cc:437 -> 1",
        f"host:{warn_pid}:{warn_pid} [0] NCCL INFO {RCCL}/init.cc:2278 -> 1",
        "[rank0]: Traceback (most recent call last):",
    ]) + "\n"


_SETS = [
    # the RCCL P2P setup of batch 67: both processes return alike -> no one
    ("alike", [_rccl_init(19402, 19403)], []),
    # the same, the WARN in the second process's lines: still no one
    ("alike-other", [_rccl_init(19403, 19402)], []),
    # the other process returned a remote error (it saw the first go): the WARN's process is the culprit
    ("remote", [_rccl_init(19402, 19403, code=6)], [0]),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    return analyze_node_sets([(name, texts) for name, texts, _ in _SETS], tmp_path_factory.mktemp("rccl"), NOW,
                             nproc=lambda name: 2)


@pytest.mark.parametrize("i", range(len(_SETS)), ids=[s[0] for s in _SETS])
def test_a_communicator_setup_failing_alike_names_no_one(findings, i):
    named = sorted({r for f in naming_findings(findings_of(findings, i)) for r in f["ranks"]})
    assert named == _SETS[i][2]


def _exceptions(lines: list[str]) -> list[tuple]:
    return [(e.get("rank"), e["subkind"]) for e in body_events(lines, NOW, prefiltered=False) if e["kind"] == "python_exception"]


RAISED = "RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: HcclAllreduce, error code is 6"
ACL = "[ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, RankID:1) ERR01100 OPS call acl api failed."
SOCKET = ("EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank did not send the "
          "data in time. Please check the reason for the rank being stuck")
CONNECT = ("EI0006: 2024-05-21-11:57:54.167.645 Getting socket times out. Reason: 1. The remote does not initiate a connect "
           "request. some NPUs in the cluster are abnormal.")
NOTIFY = ("EI0002: [PID: 7277] 2024-11-28-11:59:30.645.648 The wait execution of the Notify register times out. Reason: The "
          "Notify register has not received the Notify record from remote rank [5].base information: [streamID:[2], taskID[5]]")


@pytest.mark.parametrize(("lines", "want"), [
    # batch 67: the rank's tag on every line of the report
    ([f"[rank1]: {RAISED}", f"[rank1]: {ACL}", f"[rank1]: {SOCKET}"], [(1, "teardown")]),
    # untagged (one process's own log)
    ([RAISED, ACL, SOCKET], [(None, "teardown")]),
    # the link-setup wording of the same code
    ([f"[rank3]: {RAISED.replace('HcclAllreduce', 'HcclBroadcast')}", f"[rank3]: {CONNECT}"], [(3, "teardown")]),
    # the notify wait (a collective's step waiting on a remote rank's record)
    ([f"[rank0]: {RAISED}", f"[rank0]: {ACL}", "[rank0]:         TraceBack (most recent call last):", f"[rank0]: {NOTIFY}"],
     [(0, "teardown")]),
])
def test_an_hccl_wait_on_a_remote_rank_is_the_waiter_s_teardown(lines, want):
    assert _exceptions(lines) == want
    assert all(PREFILTER.search(ln) for ln in lines if "EI000" in ln)


@pytest.mark.parametrize("lines", [
    # another error code: the rank's own failure (device memory)
    [f"[rank1]: {RAISED}", f"[rank1]: {ACL}", "[rank1]: EL0004: [PID: 9] 2025-04-08 Failed to allocate memory."],
    # the report of another rank below it: not this exception's
    [f"[rank1]: {RAISED}", f"[rank1]: {ACL}", f"[rank2]: {SOCKET}"],
    # too far below (another report)
    [f"[rank1]: {RAISED}", *[f"[rank1]: step {i} loss 0.1" for i in range(5)], f"[rank1]: {SOCKET}"],
])
def test_other_reports_leave_the_exception_the_rank_s_own(lines):
    assert _exceptions(lines) == [(1, "raised")]


def test_a_report_alone_is_no_event():
    assert _exceptions([SOCKET]) == [] and _exceptions([f"[rank4]: {NOTIFY}"]) == []
