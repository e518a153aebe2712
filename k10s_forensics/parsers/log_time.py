"""The clock of a log line printed without the API's timestamp prefix (glog, ISO-like, ctime,
``LEVEL MM-DD``, ``[MM-DD HH:MM:SS|LEVEL|``); a yearless date is placed in the capture's year (log_lines.py, logimport.py)."""

from __future__ import annotations

import datetime as dt
import re

from k10s_forensics.parsers import log_patterns as P

#: a yearless ``[MM-DD HH:MM:SS|LEVEL|file:line:function]`` head (NVIDIA imaginaire / Cosmos's loguru format)
BRACKET_MMDD_TS = re.compile(r"\[(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?\|(?:TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL)\|")

UTC = dt.timezone.utc


def _frac_us(frac: str | None) -> int:
    return int((frac or "0")[:6].ljust(6, "0"))


def _with_year(month: int, day: int, hh: int, mm: int, ss: int, us: int, captured_at: dt.datetime | None) -> dt.datetime | None:
    """A yearless date placed in the year of the capture (or the year before, across New Year)."""
    ref = captured_at or dt.datetime.now(UTC)
    for year in (ref.year, ref.year - 1):
        try:
            value = dt.datetime(year, month, day, hh, mm, ss, us, tzinfo=UTC)
        except ValueError:
            return None
        if value <= ref + dt.timedelta(days=2):
            return value
    return value


def fallback_ts(text: str, captured_at: dt.datetime | None) -> dt.datetime | None:
    """Timestamp of a line without the API prefix: glog, ISO-like, ``LEVEL MM-DD``, ``[MM-DD HH:MM:SS|LEVEL|``; else None."""
    m = P.GLOG_TS.search(text)
    if m:
        mmdd = m.group(2)
        return _with_year(int(mmdd[:-2]), int(mmdd[-2:]), int(m.group(3)), int(m.group(4)), int(m.group(5)), _frac_us(m.group(6)), captured_at)
    m = P.ISO_TS.search(text)
    if m:
        try:
            return dt.datetime(
                int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)),
                int(m.group(6) or 0), _frac_us(m.group(7)), tzinfo=UTC,
            )
        except ValueError:
            return None
    m = P.CTIME_TS.search(text) if ":" in text else None
    if m:
        try:
            return dt.datetime(int(m.group(6)), P.MONTHS.index(m.group(1)) + 1, int(m.group(2)), int(m.group(3)), int(m.group(4)),
                               int(m.group(5)), tzinfo=UTC)
        except ValueError:
            return None
    m = P.LEVEL_MMDD_TS.search(text) or BRACKET_MMDD_TS.search(text)
    if m:
        frac = m.group(6) if m.re is BRACKET_MMDD_TS else None
        return _with_year(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)), _frac_us(frac), captured_at)
    return None


def dated_ts(text: str) -> dt.datetime | None:
    """The clock of a line that carries its year (ISO-like, ctime; torchrun's failure-table ``time : 2025-04-01_00:26:06``);
    None for a yearless one (glog, ``LEVEL MM-DD``) or none. A paste's own dated lines tell the year its yearless
    ones were printed in, which the day it is imported does not (logimport.py)."""
    if P.GLOG_TS.search(text) or P.LEVEL_MMDD_TS.search(text) or BRACKET_MMDD_TS.search(text):
        return None
    return fallback_ts(text, None)


with_year = _with_year  # a yearless date in the capture's year (journalctl's short lines)

__all__ = ["dated_ts", "fallback_ts", "with_year"]
