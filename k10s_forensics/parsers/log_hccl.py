"""HCCL's (Ascend) peer-wait reports continuing a rank's exception (real incidents batch 67).

torch_npu raises a collective's failure as one ``RuntimeError`` whose message runs over several lines: the op's error
(``InnerRunOpApi:… OPS function error: HcclAllreduce, error code is 6``), the ACL call that failed (``[ERROR] … (PID:…,
Device:1, RankID:1) ERR01100 OPS call acl api failed.``), then CANN's error-code report saying why. Two of those codes say
the rank was waiting on another one:

* ``EI0006: … Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for
  the rank being stuck`` (or, at link setup, ``Reason: 1. The remote does not initiate a connect request …``);
* ``EI0002: … The wait execution of the Notify register times out. Reason: The Notify register has not received the
  Notify record from remote rank [R]``.

That exception is the wait's teardown, as NCCL's watchdog timeout is (``log_patterns.PY_TEARDOWN``): the rank that
raised it is a waiter, not the culprit; which peer did not send is not said (``remote rank [unknown]``, or none). A
report alone, with no exception above it, is no event (batch 60's ``EI0002`` lines name no one).
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized

#: CANN's error-code line of a wait on a remote rank (socket data, notify record) that timed out
HCCL_PEER_WAIT = re.compile(r"\bEI000(?:6: .{0,120}?Getting socket times out|2: .{0,120}?wait execution of the Notify register times out)")
#: the exception's line to its error-code line: the ACL ``[ERROR] … ERR…`` line, maybe a ``TraceBack`` header, between
REPORT_GAP = 4


def peer_wait_report(events: list[dict[str, Any]], line_no: int, norm: Normalized) -> None:
    """A peer-wait report (``HCCL_PEER_WAIT``) within ``REPORT_GAP`` lines under a rank's raised exception, of the
    same rank (or both untagged): that exception becomes the wait's teardown."""
    if not events or "EI000" not in norm.text or not HCCL_PEER_WAIT.search(norm.text):
        return
    ev = events[-1]
    if ev["kind"] != "python_exception" or ev.get("subkind") != "raised" or line_no - ev.get("line_no", 0) > REPORT_GAP:
        return
    if norm.rank is not None and ev.get("rank") not in (None, norm.rank):
        return
    ev["subkind"] = "teardown"
    ev["error_message"] = ((ev.get("error_message") or "") + " (HCCL: a remote rank did not answer in time)")[:300]


__all__ = ["HCCL_PEER_WAIT", "peer_wait_report"]
