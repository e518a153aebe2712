"""A rank's failure without a clock pasted above another rank's glog-stamped watchdog timeout (session 44): the
traceback took the timeout line's time (a line of no clock borrows its log's nearest stamp), which put it 10 minutes
after the collective began, so it was dropped as the hang's consequence and nothing was named. A time borrowed from a
line below is only a bound from above: the failure is kept. A stamped line above the traceback still bounds it from
below: below the timeout line it was printed after the collective began, and is not named as its cause. Pasted lines through
``k10s import-logs``, one log, no layout.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste

NOW = dt.datetime(2026, 12, 4, 7, 0, tzinfo=dt.timezone.utc)
TRACEBACK = ["[rank2]: Traceback (most recent call last):", '[rank2]:   File "/opt/train.py", line 88, in <module>',
             "[rank2]:     loss = criterion(logits, labels)", "[rank2]: KeyError: 'labels'"]
#: rank 0's watchdog at 06:50 on a collective that began at 06:40
TIMEOUT = ("[rank0]:[E1204 06:50:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
           "milliseconds before timing out.")


RANK2 = [("rank-failure", "python-exception", [2]), ("nccl-hang", "rank-failed", [2])]


@pytest.mark.parametrize(("lines", "named"), [
    (TRACEBACK + [TIMEOUT], RANK2),  # no stamp above: the borrowed time bounds it from above only
    ([TIMEOUT] + TRACEBACK, []),     # below the timeout: printed after 06:50, after the collective began
], ids=["above-the-timeout", "below-the-timeout"])
def test_a_failure_with_no_clock_above_a_stamped_timeout(tmp_path, lines, named):
    assert named_in_paste(tmp_path, "\n".join(lines) + "\n", None, None, NOW) == named
