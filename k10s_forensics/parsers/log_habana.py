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

That next line becomes the exception's message: ranks that failed alike (the same graph compile failure, one caught in
the launch thread, one raised in a collective's call) are read alike, and ranks that failed differently are not taken
as alike for the wrapper they share. A line that is not the exception's next line of the same process says nothing.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized

#: the bridge's wrapper in an exception's message: where the failure was caught, not what it was
LAUNCH_THREAD = re.compile(r"FATAL ERROR :: MODULE:\w{1,40} Exception in Launch thread\.{0,3}\s*$")
#: the wrapper's next line: the failure, behind the pointer to the bridge's logs or alone (an older release's)
DETAIL = re.compile(r"^\s*(?:Check \$HABANA_LOGS/ for details\s*(\S.{0,400}?)|(FATAL ERROR :: MODULE:\w{1,40} \S.{0,400}?))\s*$")
#: the exception's line to its detail line: the very next one
DETAIL_GAP = 1


def launch_thread_detail(events: list[dict[str, Any]], line_no: int, norm: Normalized) -> bool:
    """A detail line (``DETAIL``) right under a raised exception whose message is the bridge's wrapper
    (``LAUNCH_THREAD``), of the same process (the same rank tag, or both untagged): the failure becomes the
    exception's message. Whether the line was read so (it is then no event of its own)."""
    if not events or ("HABANA_LOGS" not in norm.text and "FATAL ERROR :: " not in norm.text):
        return False
    m = DETAIL.match(norm.text)
    if m is None or LAUNCH_THREAD.search(norm.text):
        return False
    ev = events[-1]
    if (ev["kind"] != "python_exception" or line_no - ev.get("line_no", 0) > DETAIL_GAP
            or not LAUNCH_THREAD.search(ev.get("error_message") or "")):
        return False
    if norm.rank != ev.get("rank"):
        return False
    ev["error_message"] = (m.group(1) or m.group(2))[:300]
    return True


__all__ = ["DETAIL", "LAUNCH_THREAD", "launch_thread_detail"]
