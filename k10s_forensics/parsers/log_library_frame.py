"""The innermost frame of a Python exception's traceback when it is a library's installed code: the file of the last
``File "…", line N, in f`` line a process printed, ``LIBRARY_GAP`` lines at most above its exception line (the frame,
its source line, a caret line), kept on the exception's event (``library_frame``) when that file lies under a
``site-packages`` or ``dist-packages`` directory (``/usr/local/lib/python3.10/dist-packages/vllm/lora/ops/…``).

Such an exception was raised by the library's own code: an ``assert`` or a check of its own, which every process
running that library with that config meets alike. queries/rank_failure.sql reads a lone paste's assertion or check
raised there as a suspect only (``lone-paste-library-check``; docs/rules.md, "Session 62: a lone copy of a library's
own check"). A frame of the program's own script (any other path), or a frame printed further above (a traceback cut
there, another process's lines between), leaves the event without it. The printer's own frame is read, else an untagged
one (a paste that kept the rank tag on the exception line only).
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized

Event = dict[str, Any]

#: a traceback frame: its file (``File "/…/dist-packages/vllm/lora/ops/triton_ops/lora_shrink_op.py", line 149, in
#: _lora_shrink``)
FRAME = re.compile(r"\bFile \"([^\"]{1,400})\", line \d{1,7}, in \S")
#: a file under an installed library's directory
LIBRARY_PATH = re.compile(r"/(?:site|dist)-packages/[A-Za-z_]\w{0,60}/")
LIBRARY_GAP = 4  # the frame, its source line, a caret line (Python 3.11+), then the exception


class LibraryFrames:
    """Per printing rank: its last traceback frame (line, the file when it is a library's install, else None)."""

    def __init__(self) -> None:
        self._last: dict[int | None, tuple[int, str | None]] = {}

    def frame(self, line_no: int, norm: Normalized) -> None:
        """Remember a frame line (the line goes on to be read as before)."""
        m = FRAME.search(norm.text) if "File \"" in norm.text else None
        if m is not None:
            self._last[norm.rank] = (line_no, m.group(1) if LIBRARY_PATH.search(m.group(1)) else None)

    def mark(self, line_no: int, norm: Normalized, head: Event) -> None:
        """The library's file on a Python exception right under that printer's last frame, when it is one."""
        if head["kind"] != "python_exception":
            return
        # the printer's own frame, else one printed untagged (a paste whose frames lost the tag its exception kept)
        last = self._last.pop(norm.rank, None) or self._last.pop(None, None)
        if last is not None and last[1] is not None and 0 < line_no - last[0] <= LIBRARY_GAP:
            head["library_frame"] = last[1][-300:]


__all__ = ["FRAME", "LIBRARY_GAP", "LIBRARY_PATH", "LibraryFrames"]
