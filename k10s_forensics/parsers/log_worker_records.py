"""Workers that began logging an exception in the same second (session 72): a multiprocess server's worker logs its
exception through one handler, line by line, each line behind the worker's prefix, the level, the record's time (to the
second) and the handler's source line: vLLM's multiproc workers, ``(VllmWorker rank=3 pid=268) ERROR 05-12 19:01:18
[multiproc_executor.py:470] RuntimeError: CUDA error: …`` (``(Worker_TP12 pid=114) ERROR …`` in later releases).

Where two or more workers' ERROR records from one handler site bear the same second, each worker raised at that moment
at one step of the code they share, whether or not the paste kept the rest of its record (a traceback cut after its
first, empty line). One ``worker_record`` event per body, worker, second and site so shared (the worker's first such
line): ``reporter_rank`` the worker's rank (the prefix's, not ``rank``: the line is no failure of its own, and no
reading of the ranks a paste shows counts it), ``error_message`` ``<site> <MM-DD HH:MM:SS>``. A second or site that one
worker alone logs gives none. Read by queries/rank_failure.sql (docs/rules.md, "Session 72: workers raising in the same
second"): a culprit whose failure line is such a record, beside another worker's of the same second and site, is no
single culprit.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_streams import line_events

#: a worker's ERROR record: its prefix (its rank), the record's time to the second, the handler's ``file.py:line``
RECORD = re.compile(r"\((?:[A-Za-z]*Worker)(?:_TP(?P<tp>\d{1,5})| rank=(?P<rank>\d{1,5}))(?: pid=[^)\s]{1,20})?\) ERROR "
                    r"(?P<ts>\d\d-\d\d \d\d:\d\d:\d\d) \[(?P<site>[\w.]{1,80}:\d{1,6})\]")


def shared_records(body: str) -> list[tuple[int, int, str, str]]:
    """(worker rank, 1-based line number, line, ``site ts``) of each worker's first ERROR record of a second and handler
    site that two or more workers' records share, in line order."""
    first: dict[tuple[str, str], dict[int, tuple[int, str]]] = {}
    for i, line in enumerate(body.split("\n")):
        if ") ERROR " not in line:
            continue
        m = RECORD.search(line)
        if m is None:
            continue
        rank = int(m.group("tp") if m.group("tp") is not None else m.group("rank"))
        first.setdefault((m.group("site"), m.group("ts")), {}).setdefault(rank, (i + 1, line.rstrip("\r")))
    out = [(rank, no, line, f"{site} {ts}") for (site, ts), ranks in first.items() if len(ranks) >= 2
           for rank, (no, line) in ranks.items()]
    return sorted(out, key=lambda r: r[1])


def worker_record_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``worker_record`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body holds two workers'
    ERROR records of one second and site."""
    table = table.filter(pc.fill_null(pc.match_substring(table["body"], ") ERROR "), False))
    rows, nos, texts, ranks, keys = [], [], [], [], []
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        for rank, no, line, key in shared_records(body or ""):
            rows.append(row)
            nos.append(no)
            texts.append(line)
            ranks.append(rank)
            keys.append(key)
    if not rows:
        return None
    return line_events(meta_table, rows, nos, texts, "worker_record", ["error"] * len(rows),
                       {"reporter_rank": pa.array(ranks, pa.int64()), "error_message": pa.array(keys, pa.string())})


__all__ = ["RECORD", "shared_records", "worker_record_events"]
