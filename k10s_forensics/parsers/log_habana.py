"""Intel Gaudi's (Habana) PyTorch bridge re-raising a failure of its launch thread (real incidents batch 93).

The bridge catches what failed in its launch thread and raises it again as a ``RuntimeError`` whose first line says
only where it was caught, the same words for every failure of every process:

* ``RuntimeError: [Rank:6] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Launch thread...`` (``MODULE:BRIDGE`` in older
  releases, the ``[Rank:N]`` tag only in some);

and what failed follows on the next line of the same message:

* ``Check $HABANA_LOGS/ for details`` with the failure glued to it (``Check $HABANA_LOGS/ for detailsGraph compile
  failed. synStatus=synStatus 26 [Generic failure].``);
* or, in older releases, the failure alone (``FATAL ERROR :: MODULE:DEVMEM Allocation failed for size::40960000
  (39.0625)MB``).

The eager mode's bridge (batch 129) says ``Exception in Lowering thread...`` and puts one more wrapper between:
``[Rank:0] FATAL ERROR :: MODULE:PT_EAGER HabanaLaunchOpPT Run returned exception....``, then the failure alone
(``Graph compile failed. synStatus=synStatus 26 [Generic failure].``): the inner wrapper is the message until the line
under it, which is the failure.

That next line becomes the exception's message: ranks that failed alike (the same graph compile failure, one caught in
the launch thread, one raised in a collective's call) are read alike, and ranks that failed differently are not taken
as alike for the wrapper they share. A line that is not the exception's next line of the same process says nothing.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized

#: the bridge's wrapper in an exception's message: where the failure was caught, not what it was
LAUNCH_THREAD = re.compile(r"FATAL ERROR :: MODULE:\w{1,40} Exception in (?:Launch|Lowering) thread\.{0,3}\s*$")
#: the eager bridge's inner wrapper between the outer one and the failure: where it was caught, again
INNER = re.compile(r"^\s*(?:\[Rank:\d{1,6}\] )?FATAL ERROR :: MODULE:\w{1,40} \w{1,60} Run returned exception\.{0,4}\s*$")
#: the failure alone under the inner wrapper (any line but the bridge's own trace of where it was raised)
BARE = re.compile(r"^\s*(?!(?:\[Rank:\d{1,6}\] )?Habana exception raised from )(\S.{0,400}?)\s*$")
#: the wrapper's next line: the failure, behind the pointer to the bridge's logs or alone (an older release's)
DETAIL = re.compile(r"^\s*(?:Check \$HABANA_LOGS/ for details\s*(\S.{0,400}?)|(FATAL ERROR :: MODULE:\w{1,40} \S.{0,400}?))\s*$")
#: the exception's line to its detail line: the very next one
DETAIL_GAP = 1


def launch_thread_detail(events: list[dict[str, Any]], line_no: int, norm: Normalized) -> bool:
    """A detail line (``DETAIL``) right under a raised exception whose message is the bridge's wrapper
    (``LAUNCH_THREAD``), of the same process (the same rank tag, or both untagged): the failure becomes the
    exception's message; the eager bridge's inner wrapper (``INNER``) right under it is the message until the line
    under that (``BARE``) replaces it. Whether the line was read so (it is then no event of its own)."""
    if not events:
        return False
    ev = events[-1]
    message = ev.get("error_message") or ""
    if "FATAL ERROR :: " not in message:  # both wrappers say so: the common line costs one substring test
        return False
    outer, inner = LAUNCH_THREAD.search(message), INNER.match(message)
    if ev["kind"] != "python_exception" or not (outer or inner) or norm.rank != ev.get("rank"):
        return False
    gap = line_no - ev.get("line_no", 0)
    if outer and gap <= DETAIL_GAP and INNER.match(norm.text):
        ev["error_message"] = norm.text.strip()[:300]  # the eager bridge's inner wrapper: the failure is under it
        return True
    if inner:  # the line under the inner wrapper (two under the exception) is the failure
        m = BARE.match(norm.text) if gap <= 2 * DETAIL_GAP else None
        if m is None or LAUNCH_THREAD.search(norm.text) or INNER.match(norm.text):
            return False
        ev["error_message"] = m.group(1)[:300]
        return True
    if "HABANA_LOGS" not in norm.text and "FATAL ERROR :: " not in norm.text:
        return False
    m = DETAIL.match(norm.text)
    if m is None or LAUNCH_THREAD.search(norm.text) or gap > DETAIL_GAP:
        return False
    ev["error_message"] = (m.group(1) or m.group(2))[:300]
    return True


__all__ = ["BARE", "DETAIL", "INNER", "LAUNCH_THREAD", "launch_thread_detail"]
