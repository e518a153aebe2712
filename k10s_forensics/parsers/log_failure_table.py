"""torchrun's ``ChildFailedError`` failure table, read line by line for ``log_lines.BodyAssembler``.

A ``[N]:`` header, then ``time``/``rank``/``exitcode``/``traceback`` field lines, grouped per entry
(a gap of more than ``TABLE_GAP`` lines closes an entry; an entry whose rows were fused onto one
line is read from that line, and the agent's own ``failed (exitcode: …) local_rank: …`` report fused
in front of it on that line is read too); ``Failures:`` / ``Root Cause`` set the section. One
``torchrun_failure`` event per entry (subkind ``failures``/``root_cause``/``table``). A mixin: it
reads and writes the assembler's ``events``, ``_entry``, ``_section`` and ``truncated_entries``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_py_exceptions import TRACEBACK_CHAINED, py_exception

LINE_CHARS = 4096
TABLE_GAP = 3
#: an entry's ``traceback : Traceback (most recent call last):`` field (torch's ``@record`` error file): its frames follow,
#: then the exception the rank died of, kept as the entry's last line (session 70)
TRACEBACK_GAP = 80
UTC = dt.timezone.utc
#: the agent's own lines: a teardown's SIGTERM lines, its ``failed (exitcode: …)`` report, a worker group's restart
#: the most lines the workers print between the agent's first SIGTERM line and its ``failed`` line that are read through
TEARDOWN_LINES = 1000
_LAUNCHER_KINDS = ("torchrun_sigterm", "torchrun_failure", "worker_group_restart")


class FailureTable:
    """The failure-table steps of ``BodyAssembler`` (see the module doc)."""

    events: list
    truncated_entries: int
    _entry: dict[str, Any] | None
    _section: str | None

    def _table_line(self, line_no: int, text: str, api_ts: dt.datetime | None) -> bool:
        if self._entry is not None and self._entry.get("traceback_open") and P.TABLE_TRACEBACK_END.match(text):
            self._entry.update(traceback_open=False, last=line_no)  # the error file's exception, the traceback's end:
            self._entry["lines"].append(text)  # kept in the entry's line, and read on as any line would be
            self._entry["exception"] = (line_no, text, api_ts)  # the rank's own exception (session 71: _close_entry)
            return False
        if (self._entry is not None and not self._entry.get("traceback_open") and "exception" in self._entry
                and "exception" in text and TRACEBACK_CHAINED.match(text.strip())):
            self._entry.update(traceback_open=True, last=line_no)  # a chained exception's next traceback: the rank died
            return False  # of the chain's last exception, the one that ends it (session 71)
        flat = P.TABLE_FLAT.search(text)
        if flat:  # the entry's rows on one line (or the whole table, on a page that lost its line breaks)
            self._flat_entry(line_no, text, flat, api_ts)
            return True
        if P.TABLE_ROOT.search(text):
            self._close_entry()
            self._section = "root_cause"
            return True
        if P.TABLE_FAILURES.match(text) or P.NO_OTHER_FAILURES.search(text):
            self._close_entry()
            self._section = "failures"
            return True
        m = P.TABLE_HEADER.match(text)
        if m:
            self._close_entry()
            self._entry = {"index": int(m.group(1)), "first": line_no, "last": line_no, "lines": [text], "api_ts": api_ts, "section": self._section}
            return True
        m = P.TABLE_FIELD.match(text)
        if not m:
            return False
        if self._entry is None and m.group(1) in ("traceback", "error_file", "host"):
            return False  # a lone trailer field is an ordinary line (e.g. "Signal 6 ... received by PID")
        entry = self._table_entry(line_no, text, api_ts)
        name, value = m.group(1), m.group(2).strip()
        if name == "time":
            t = P.TABLE_TIME.match(text)
            if t:
                try:
                    entry["time"] = dt.datetime(*(int(g) for g in t.groups()), tzinfo=UTC)
                except ValueError:
                    pass
        elif name == "rank":
            r = P.TABLE_RANK.match(value)
            if r:
                entry["rank"], entry["local_rank"] = int(r.group(1)), int(r.group(2))
        elif name == "traceback":
            entry["traceback_open"] = value.startswith("Traceback (most recent call last)")
        elif name == "exitcode":
            e = P.TABLE_EXIT.match(value)
            if e:
                entry["exit_code"], entry["pid"] = int(e.group(1)), int(e.group(2)) if (e.group(2) or "").isdigit() else None
        return True

    def _flat_entry(self, line_no: int, text: str, flat: Any, api_ts: dt.datetime | None) -> None:
        """An entry whose rows lost their line breaks: its rank and exit code are all it needs. A section title
        fused in front of it on the line (``… Root Cause (first observed failure): [0]: time : …``) is its section."""
        head = text[:flat.start()]
        titles = [(m.start(), "root_cause") for m in P.TABLE_ROOT.finditer(head)] + [
            (m.start(), "failures") for m in P.NO_OTHER_FAILURES.finditer(head)]
        if titles:
            self._close_entry()
            self._section = max(titles)[1]
        self._fused_agent_report(line_no, head, api_ts)
        self._table_entry(line_no, text, api_ts)
        self._entry.update(rank=int(flat.group(1)), local_rank=int(flat.group(2)), exit_code=int(flat.group(3)),
                           pid=int(flat.group(4)) if flat.group(4).isdigit() else None)

    def _fused_agent_report(self, line_no: int, head: str, api_ts: dt.datetime | None) -> None:
        """The agent's ``failed (exitcode: …) local_rank: …`` line fused in front of a flattened entry (a
        page that collapsed the log's line breaks, a Space's error box): that process's own report, kept
        beside the entry (the same line: one report of one poll, its failures not ordered)."""
        if not P.AGENT_FAILED.search(head):
            return
        for ev in classify(head[head.rfind("failed (exitcode"):]):
            if ev.get("kind") == "torchrun_failure":
                self.events.append(dict(ev, line_no=line_no, ts=api_ts, line=head[:LINE_CHARS]))

    def _table_entry(self, line_no: int, text: str, api_ts: dt.datetime | None) -> dict[str, Any]:
        """The open failure-table entry, given one more line (opened when the excerpt starts mid-entry)."""
        if self._entry is None:
            self._entry = {"index": None, "first": line_no, "last": line_no, "lines": [], "api_ts": api_ts, "section": self._section}
        self._entry["last"] = line_no
        self._entry["lines"].append(text)
        return self._entry

    def _close_entry(self) -> None:
        entry, self._entry = self._entry, None
        if entry is None:
            return
        if "rank" not in entry and "exit_code" not in entry:
            if entry["index"] is not None:
                self.truncated_entries += 1
            return
        ts = self._finer_time(entry)
        self.events.append(
            {
                "kind": "torchrun_failure",
                "subkind": entry["section"] or "table",
                "rank": entry.get("rank"),
                "local_rank": entry.get("local_rank"),
                "exit_code": entry.get("exit_code"),
                "pid": entry.get("pid"),
                "severity": "E",
                "line_no": entry["first"],
                "ts": ts,
                "line": "\n".join(entry["lines"])[:LINE_CHARS],
            }
        )
        self._error_file_exception(entry, ts)

    def _error_file_exception(self, entry: dict[str, Any], ts: dt.datetime | None) -> None:
        """(session 71) The exception an entry's ``traceback :`` field ends in (torch's ``@record`` error file) is the
        rank's own exception, as its console would have printed it: one ``python_exception`` event of the entry's rank
        (and pid), read by ``py_exception`` as a console's exception line is (``teardown``: a peer's failure or the
        group's wait, e.g. gloo's ``Connection closed by peer``, ``DistStoreError: wait timeout ... keys:
        /default_pg/...``; else ``raised``, e.g. ``MemoryError``), at the entry's time (the rank's failure, not the
        table's print). Where the entry names no rank (a flattened or cut entry), none."""
        kept = entry.get("exception")
        if kept is None or entry.get("rank") is None:
            return
        line_no, text, _ = kept
        for said in reversed(self.events[-4:]):  # what the line itself said (a store wait's key names the rank waited for):
            if said.get("line_no") == line_no and said["kind"] == "nccl_desync":  # the entry's process said it, then
                said.update(reporter_rank=entry["rank"], pid=entry.get("pid"), ts=ts)
        ev = py_exception(text.strip())
        if ev is None or ev.get("kind") != "python_exception":
            return
        self.events.append({"kind": "python_exception", "subkind": ev["subkind"], "error_type": ev.get("error_type"),
                            "error_message": ev.get("error_message"), "rank": entry["rank"], "local_rank": entry.get("local_rank"),
                            "pid": entry.get("pid"), "severity": "E", "line_no": line_no, "ts": ts, "line": text[:LINE_CHARS]})

    def _finer_time(self, entry: dict[str, Any]) -> dt.datetime | None:
        """An entry's ``time`` has whole seconds only: the agent's ``failed (exitcode: …)`` line of
        the same pid, in that second, says when to the millisecond (ranks a second apart are
        otherwise read as failing together). The agent logs that line for the first failure its poll
        found; another process that failed by itself (not the agent's SIGTERM) in the same second was
        found by the same poll: the line's time is its time too."""
        when = entry.get("time")
        pid = entry.get("pid")
        if when is None or pid is None:
            return when or entry["api_ts"]
        for at in range(len(self.events) - 1, -1, -1):
            ev = self.events[at]
            if ev["kind"] == "torchrun_failure" and ev.get("subkind") == "agent":
                # the teardown's start where it is in the entry's second, else the line's (printed after the teardown)
                finer = next((t for t in (self._teardown_start(at), ev.get("ts")) if t is not None and t.replace(microsecond=0) == when), None)
                if finer is None:
                    return when
                return finer if ev.get("pid") == pid or entry.get("exit_code") not in (None, -15) else when
        return when

    def _teardown_start(self, agent_at: int) -> dt.datetime | None:
        """When the agent began the teardown its ``failed (exitcode: …)`` line at ``agent_at`` follows: the first of the
        ``Sending process N closing signal SIGTERM`` lines just above it (sent right after the poll that found the
        failure, before the line: torch's ``SubprocessContext._poll``), or None. An entry's whole-second ``time`` is
        that poll's; the line, printed once every worker is down, may fall in the next second (docs/rules.md,
        "Session 70: --redirects consoles")."""
        start, agent_line = None, self.events[agent_at].get("line_no", 0)
        for ev in reversed(self.events[:agent_at]):
            if agent_line - ev.get("line_no", agent_line) > TEARDOWN_LINES:
                break
            if ev["kind"] not in _LAUNCHER_KINDS and start is None:
                continue  # a worker's own line printed during the teardown (``--tee``'s ``[default0]:Traceback``): not the agent's
            if ev["kind"] != "torchrun_sigterm" or ev.get("subkind") != "SIGTERM":
                break  # (the teardown's SIGTERM lines are consecutive: one above a worker's line is an earlier teardown's)
            start = ev.get("ts") or start
        return start


__all__ = ["FailureTable", "LINE_CHARS", "TABLE_GAP", "TRACEBACK_GAP"]
