"""The innermost frame of a Python traceback: the last ``File "…", line N, in f`` line a process printed.

* On a Python exception, ``LIBRARY_GAP`` lines at most above its exception line (the frame, its source line, a caret
  line), the frame itself is kept (``error_frame``: ``<file>", line N, in f``), and its file (``library_frame``) when that
  file lies under a ``site-packages`` or ``dist-packages`` directory (``/usr/local/lib/python3.10/dist-packages/vllm/…``).
  Such an exception was raised by the library's own code: an ``assert`` or a check of its own, which every process
  running that library with that config meets alike. queries/rank_failure.sql reads a lone paste's assertion or check
  raised there as a suspect only (``lone-paste-library-check``; docs/rules.md, "Session 62: a lone copy of a library's
  own check"). A frame printed further above (a traceback cut there, another process's lines between) leaves the event
  without them. The printer's own frame is read, else an untagged one (a paste that kept the rank tag on the exception
  line only).
* A traceback cut before its exception (a printer's last frame, no line of that printer read after it to the end of
  the log body: an excerpt, a process killed mid-print): its innermost frame goes on the printer's traceback start when
  one is an event (a header, torch's ``[rankN]:`` first frame), else on a ``python_traceback`` event of its own,
  subkind ``cut_frame``, at that frame's line, when the frame names its printer (mpirun's / DeepSpeed's ``[1]   File …``;
  an untagged frame may be any process's, another traceback's among them).
  queries/_incident.sql reads another rank's traceback ending in the same innermost frame as a rank's error frame as
  the same error (docs/rules.md, "Session 64: a second rank's traceback down to the same frame").
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized

Event = dict[str, Any]

#: a traceback frame: its file, line and function (``File "/…/dist-packages/vllm/lora/ops/triton_ops/lora_shrink_op.py",
#: line 149, in _lora_shrink``)
FRAME = re.compile(r"\bFile \"([^\"]{1,400})\", line (\d{1,7}), in (\S{1,200})")
#: a file under an installed library's directory
LIBRARY_PATH = re.compile(r"/(?:site|dist)-packages/[A-Za-z_]\w{0,60}/")
LIBRARY_GAP = 4  # the frame, its source line, a caret line (Python 3.11+), then the exception
FRAME_CHARS = 300  # an error_frame keeps the file's last characters, its line and function


class _Frame:
    """A printer's last frame line: where, what it says, the raw line and its clock."""

    __slots__ = ("line_no", "library", "frame", "text", "norm", "api_ts", "followed")

    def __init__(self, line_no: int, library: str | None, frame: str, text: str, norm: Normalized,
                 api_ts: dt.datetime | None) -> None:
        self.line_no, self.library, self.frame, self.text, self.norm, self.api_ts = line_no, library, frame, text, norm, api_ts
        self.followed = False  # an event of its printer came after it: not a traceback cut at the body's end


class LibraryFrames:
    """Per printing rank: its last traceback frame, and the traceback start event it printed (if one)."""

    def __init__(self) -> None:
        self._last: dict[int | None, _Frame] = {}
        self._started: dict[int | None, Event] = {}

    def frame(self, line_no: int, norm: Normalized, text: str = "", api_ts: dt.datetime | None = None) -> None:
        """Remember a frame line (the line goes on to be read as before)."""
        m = FRAME.search(norm.text) if "File \"" in norm.text else None
        if m is not None:
            where = f'{m.group(1)[-FRAME_CHARS:]}", line {m.group(2)}, in {m.group(3)}'
            library = m.group(1) if LIBRARY_PATH.search(m.group(1)) else None
            self._last[norm.rank] = _Frame(line_no, library, where, text or norm.text, norm, api_ts)

    def mark(self, line_no: int, norm: Normalized, head: Event) -> None:
        """An event of a printer: a traceback's start is remembered; a Python exception right under that printer's last
        frame takes the frame (and the library's file, when it is one); any other event follows the printer's last frame
        (its traceback was not cut at the body's end)."""
        if head["kind"] == "python_traceback":
            self._started[norm.rank] = head
            return
        self._started.pop(norm.rank, None)
        if head["kind"] != "python_exception":
            if norm.rank in self._last:
                self._last[norm.rank].followed = True
            return
        # the printer's own frame, else one printed untagged (a paste whose frames lost the tag its exception kept)
        last = self._last.pop(norm.rank, None) or self._last.pop(None, None)
        if last is not None and 0 < line_no - last.line_no <= LIBRARY_GAP:
            head["error_frame"] = last.frame
            if last.library is not None:
                head["library_frame"] = last.library[-300:]

    def cut(self) -> list[_Frame]:
        """At the end of a log body: each printer's traceback cut before its exception (its last frame, nothing of that
        printer read after it). Its traceback start event, when one is, takes the frame; the others are returned (each
        then a ``cut_frame`` event of its own)."""
        out = []
        for printer, last in self._last.items():
            if last.followed:
                continue
            started = self._started.get(printer)
            if started is not None and started.get("line_no", last.line_no) <= last.line_no:
                started["error_frame"] = last.frame
            elif printer is not None:  # an untagged printer's frames may be any process's: no event of their own
                out.append(last)
        self._last.clear()
        return out


__all__ = ["FRAME", "FRAME_CHARS", "LIBRARY_GAP", "LIBRARY_PATH", "LibraryFrames"]
