"""The log parser's events of one log body, as the wording tests read them (no bundle, no analysis)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from k10s_forensics.parsers.log_lines import BodyAssembler
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

_EVENT = re.compile(PREFILTER_EVENT)


def body_events(lines: Iterable[str], now: dt.datetime, *, prefiltered: bool = True) -> list[dict[str, Any]]:
    """Each line fed to one ``BodyAssembler`` as line 1, 2, …; with ``prefiltered`` only the lines the prefilter
    passes (as a rebuild feeds it), else every line (a wording the parser must read even when fed directly)."""
    asm = BodyAssembler(now)
    for no, line in enumerate(lines, 1):
        if not prefiltered or _EVENT.search(line):
            asm.feed(no, line, None)
    return asm.finish()


def table_entry(index: int, rank: int, local_rank: int, host: str, when: str, code: int, pid: int) -> list[str]:
    """SYNTHETIC: one entry of torchrun's ChildFailedError table in torch 2.x's format, no error file."""
    sig = "  (SIGTERM)" if code == -15 else " "
    return [f"[{index}]:", f"  time      : {when}", f"  host      : {host}", f"  rank      : {rank} (local_rank: {local_rank})",
            f"  exitcode  : {code} (pid: {pid}){sig}", "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]


__all__ = ["body_events", "table_entry"]
