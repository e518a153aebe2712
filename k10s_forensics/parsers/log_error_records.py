"""A rank's own ERROR/CRITICAL-level logging record (session 65): what a program that catches its failure at the top
says of it before it exits (``logger.error(f"rank {rank}: {e}")`` then ``sys.exit(2)``; ``log.error("Training failed:
%s", e)`` then ``exit(1)``), no traceback, no exception type.

One ``error_record`` event per log body and rank (the LAST such record of that rank in the body), in a body that holds a
launcher's exit report (``exitcode``, as log_streams.py): ``error_message`` the record's message (the level and the
record's own fields taken off), ``local_rank`` from torchrun's ``--tee`` prefix (``[default1]:``), ``rank`` from the
record's rank tag (``[rank: 3]``, ``[rank3]:``, ``[Rank 3]``, ``RANK 3``) or the message's own ``rank 3:`` at its start;
a record naming no rank either way is none. The level word as the formats print it:

* the ``logging`` module's default ``ERROR:train:msg``;
* a level among the record's header fields after its time or in brackets: DeepSpeed's ``[2026-12-06 20:56:30,137]
  [ERROR] [engine.py:112:step] msg``, Hydra's ``[…][train][ERROR] - msg``, HF's ``12/06/2026 20:45:38 - ERROR -
  __main__ - msg``, loguru's ``2026-12-06 20:45:38.420 | ERROR    | __main__:main:42 - msg``, ``… ERROR train: msg``.

glog-style lines (``E1206 20:45:43.256000 10240 file.py:1002] …``: torch's own agent and C++ lines) are no record of
the program's. ``subkind``: what the message's wording is by the line classifier (log_classify.classify): ``cuda_oom``,
``cuda_error``, a peer's or teardown's wording (``peer``: gloo/NCCL connection, timeouts, ``DistBackendError``), else
``message``. No failure by itself: queries/_failure_line.sql reads it as the exception text of that rank's non-zero,
non-signal exit reported just after it (docs/rules.md, "Session 65: a handler's ERROR record").

Session 67: a rank's LAST own line that is a message alone (no level word: ``%(message)s``, Python's last-resort
handler, a print to stderr) with an exception message's wording is an ``error_record`` too, subkind ``bare``
(``bare``); queries/_failure_line.sql reads it only before an exit of status 2..125 (``sys.exit(msg)`` exits 1).
torch's ``[rankN]:`` prefix is taken off a line (its rank the line's) before either reading.

Session 68: in a body that reports an exit of 2..125 (``exitcode  : 2``), a rank's last own line is such a line WHATEVER
its wording (``rank 3: bad batch at step 3: sample 17 has no tokens``), where it reads as a handler's sentence, not output
going on (``_plain``: no counter, metric, setting, dump, banner, indented source line, status report's lead word).
"""

from __future__ import annotations

import datetime as dt
import re

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_patterns import API_TS
from k10s_forensics.parsers.log_prefilter_step import PREFILTER_STEP, PROGRESS_LOSS
from k10s_forensics.parsers.log_streams import line_events

_API_TS = re.compile(API_TS)
_LEVEL = r"(?:ERROR|CRITICAL|FATAL)"
#: a line that may be a record (RE2 over each body, then over that body's lines)
_CANDIDATE = re.compile(r"(?:^|[\s\[|:\-])" + _LEVEL + r"(?:[\s\]|:\-]|$)")
_TEE = re.compile(r"^\[default(\d{1,4})\]:")
#: the logging module's default format: ``ERROR:name:message``
_BASIC = re.compile(r"^" + _LEVEL + r":[\w.<>-]{0,120}:(?P<msg>.*)$")
#: the level among the header's fields: a header of a time and/or bracketed fields, then the level (bracketed, or
#: between separators), then the message
_HEADED = re.compile(r"^(?P<head>.{0,160}?)(?:\[" + _LEVEL + r"\s*\]|(?:(?<=\s)|(?<=\|)|(?<=\]))" + _LEVEL
                     + r"(?=\s|\||:))\s*(?:[|:]|-(?=\s))?\s*(?P<msg>.*)$")
_TIME = re.compile(r"\d\d:\d\d:\d\d")
_BRACKETS = re.compile(r"^(?:\s*\[[^\]]{1,80}\])+\s*[-|]?\s*$")
#: the header's fields before the message: ``[engine.py:112:step]``, loguru's ``__main__:main:42 - ``, HF's ``__main__ - ``
_FIELDS = re.compile(r"^(?:\[[^\]]{0,120}\]\s*)*(?:[\w.<>-]{1,120}(?::[\w.<>-]{1,80}){0,2}(?::\d{1,7})?\s+[-|]\s+)?")
_GLOG = re.compile(r"^[EFW]\d{4} \d\d:\d\d:\d\d")
#: a launcher's own record (torch elastic's agent through ``logging``, DeepSpeed's launcher): the exit report, no rank's
_LAUNCHERS = re.compile(r"torch\.distributed\.elastic|\(exitcode: -?\d|sigkill_handler|launch\.py:\d")
#: a rank tag among the header's fields, or the message's own ``rank 3:`` at its start
_RANK_TAG = re.compile(r"\[(?:[Rr]ank|RANK)(?::\s?|\s)?(\d{1,6})\]")
_RANK_LEAD = re.compile(r"^\[?(?:[Rr]ank|RANK)(?::\s?|\s)(\d{1,6})\]?[:\]](?:\s|$)")
#: a victim's wording: a peer's or the collective's failure (a collective named), a wait that timed out, the teardown's
#: signal
_PEER = re.compile(r"(?i)connection (?:reset|closed|refused)|by peer|remote (?:worker|peer|process)|timed? ?out|timeout|"
                   r"DistBackendError|DistNetworkError|NCCL|gloo|ProcessGroup|watchdog|collective|SIGTERM|signal \d|"
                   r"socket|broken pipe|heartbeat|all[-_ ]?reduce|all[-_ ]?gather|reduce[-_ ]scatter|broadcast|barrier|"
                   r"synchroni[sz]")
#: torch's own rank prefix of a worker's stderr lines (``[rank3]:``, 2.2+), after ``--tee``'s
_RANK_PREFIX = re.compile(r"^\[rank(\d{1,6})\]:")
#: (session 67) a message-only line's error wording: what an exception's message says (``[Errno 2] No such file``,
#: ``expected 4 samples ..., got 3``, ``the model expects 8``, ``invalid``, ``failed``), not a progress line's
_ERROR_WORDS = re.compile(r"(?i)\b(?:error|errno|exception|fail(?:s|ed|ure)?|invalid|cannot|can't|could ?n[o']t|unable|not found|"
                          r"no such|missing|mismatch(?:ed)?|expect(?:s|ed)?|must|out of (?:range|bounds)|exceed(?:s|ed)?|denied|"
                          r"refused|unexpected|illegal|unsupported|not supported|overflow|corrupt(?:ed)?|assert(?:ion)?|wrong)\b")
#: (session 68) a plain message's start: a word (or a quoted name), not a banner's or a table's punctuation
_SENTENCE = re.compile(r"^['\"`]?[^\W_]")
#: (session 68) what a progress, status or configuration line prints, not a handler's message: a counter, a percentage,
#: a metric or a setting (``loss=0.1``, ``lr: 3e-4``), a dump (``Namespace(``, ``{'``), a lead word of a report of work
#: going on or done, a report of work done
_NOT_SAID = re.compile(r"\b\d+\s?/\s?\d+\b|\d%|\bit/s\b|\bs/it\b|[\w.\]'\"]\s?=\s?\S|\b[A-Za-z_][\w.]*:\s?[-+]?\.?\d[\d.]*(?:e-?\d+)?"
                       r"\s*(?:$|[,;|)}\]]|\s+[A-Za-z_][\w.]*\s?[:=])|Namespace\(|^[\[{(]|\{['\"]|"
                       r"(?i:^(?:epoch|step|iter(?:ation)?|batch \d|saving|saved|loading|loaded|start(?:ing|ed)?|init(?:iali[sz]\w*)?|using|"
                       r"running|build(?:ing)?|built|download\w*|creat(?:ing|ed)|writ(?:ing|ten)|wrote|reading|setting|resum\w*|"
                       r"evaluat\w*|validat(?:ing|ion)|train(?:ing|ed)?|done|finish\w*|complete\w*|success\w*|launch\w*|wait\w*|"
                       r"sync\w*|log(?:ging|ged)?|exit(?:ing)?|shutting|clean\w*|clos(?:ing|ed)|upload\w*|push\w*|flush\w*|"
                       r"atexit|world[_ ]size|device|model|dataset|extension modules|(?:current )?thread 0x|stack|"
                       r"world|hello|welcome|version|seed|rank \d|local[_ ]rank|process group|received|got|sent|total|elapsed|"
                       r"time|took|memory|mem|gpu|cuda|nccl|torch)\b)|"
                       r"(?i:\b(?:flushed|pushed|saved|loaded|written|uploaded|downloaded|finished|completed|done|initiali[sz]ed|"
                       r"started|exiting|shutting down|succeeded|ready|joined|connected|registered)\b)|^(?!(?i:no|some|any|every)thing\b)[A-Za-z]+ing\b|\brank \d|"
                       r"\bin \d+(?:\.\d+)?\s?(?:s|ms|sec|seconds|min|minutes)\b")
#: (session 68) a launcher's report of an exit status (torchrun's ``exitcode  : 2`` / ``(exitcode: 2)``)
_CHOSEN = re.compile(r"exitcode\)?\s*:\s*(\d{1,3})\b")
#: a level word other than an error's among the first fields: an INFO/WARNING/DEBUG record (not an error's message)
_OTHER_LEVEL = re.compile(r"(?:^|[\s\[|:])(?:INFO|WARN(?:ING)?|DEBUG|TRACE|NOTICE|SUCCESS)(?:[\s\]|:]|$)")
#: lines that end a process at status 2 with no handler of the program's: argparse's usage error (``usage: ...``,
#: ``train.py: error: ...``), the interpreter's own (``python3: can't open file '...': [Errno 2]``); a traceback's lines
_NOT_HANDLED = re.compile(r"^(?:usage: |[\w./-]{1,200}: error: |Traceback \(most recent|\s*File \")|can't open file '")
#: a progress line (a loss value, a tqdm bar, HF's dict): the rank went on (queries/_failure_line.sql decides by its time)
_PROGRESS = re.compile(PROGRESS_LOSS + r"|\|\s*\d+/\d+\s*\[\d|\{'loss': ")
_STEP = re.compile(PREFILTER_STEP)
_LEAD_FIELDS = re.compile(r"^(?:\s*\[[^\]]{1,80}\])+")
#: rich's handler's trailing ``   train.py:42`` (the record's place, right-aligned after the message)
_OWN_HINT = re.compile(r"(?i)rank|\[default\d")
_RICH_PATH = re.compile(r"\s{3,}[\w.-]{1,80}\.py:\d{1,6}$")
#: (session 69) torch's DataLoader worker kill, as the rank's main process words it (its SIGCHLD handler's RuntimeError,
#: printed anywhere in the rank's output: under ``Exception ignored in:`` when the handler ran inside logging's lock),
#: and the loader's next error naming that worker (``DataLoader worker (pid(s) N, M) exited unexpectedly``)
_LOADER_KILL = re.compile(r"DataLoader worker \(pid (\d+)\) is killed by signal: [A-Za-z ]*[A-Za-z]")
_LOADER_EXIT = re.compile(r"^(?:\[?[Rr]ank:? ?\d+\]?:? ?)?(?:[\w.]*(?:Error|Exception): )?DataLoader worker \(pid\(s\) ([\d, ]+)\) "
                          r"exited unexpectedly")
_PEER_KINDS = {"nccl_remote_error", "nccl_watchdog_timeout", "watchdog_exception_summary", "nccl_desync", "torchrun_sigterm",
               "nccl_error_other", "nccl_return", "collective_mismatch"}


def record(line: str) -> tuple[int | None, int | None, str] | None:
    """(local rank, rank, message) where ``line`` is an ERROR/CRITICAL-level record naming its rank; else None."""
    local, prefixed, text = _own(line)
    if _GLOG.match(text) or _LAUNCHERS.search(text):
        return None
    m = _BASIC.match(text)
    head, msg = ("", m.group("msg")) if m else ("", None)
    if m is None:
        h = _HEADED.match(text)
        if h is None or not (h.group("head").strip() == "" or _TIME.search(h.group("head")) or _BRACKETS.match(h.group("head"))):
            return None
        head, msg = h.group("head"), h.group("msg")
        cut = _FIELDS.match(msg).end() if head.strip() else 0
        head, msg = head + " " + msg[:cut], msg[cut:]
    msg = msg.strip()
    rank = _named_rank(prefixed, _RANK_TAG.search(head) or _RANK_LEAD.match(msg))
    if local is None and rank is None:
        return None
    return local, rank, _RICH_PATH.sub("", msg)


def _named_rank(prefixed: int | None, tag: re.Match | None) -> int | None:
    """A line's rank: torch's ``[rankN]:`` prefix, else the rank its record's fields or message name."""
    return prefixed if prefixed is not None else int(tag.group(1)) if tag else None


def _key(local: int | None, rank: int | None) -> tuple[str, int] | None:
    """Whose line it is within one log: its ``--tee`` local rank, else its rank; None when neither."""
    return ("t", local) if local is not None else ("r", rank) if rank is not None else None


def _own(line: str) -> tuple[int | None, int | None, str]:
    """(``--tee``'s local rank, torch's ``[rankN]:`` rank, the rest) of a line, its API time taken off."""
    text = _API_TS.sub("", line.rstrip("\r"), count=1)
    tee = _TEE.match(text)
    text = text[tee.end():] if tee else text
    tagged = _RANK_PREFIX.match(text)
    return (int(tee.group(1)) if tee else None, int(tagged.group(1)) if tagged else None,
            text[tagged.end():] if tagged else text)


def bare(line: str, plain: bool = False) -> tuple[int | None, int | None, str] | str | None:
    """(session 67) A message-only line of a rank's own (no level word: ``%(message)s``, Python's last-resort handler,
    ``print(..., file=sys.stderr)``): (local rank, rank, message) where it carries an error's wording and names its rank
    (``--tee``'s prefix, ``[rankN]:``, a leading ``[rank: 3]``/``[Rank 3]`` field, the message's own ``rank 3:``);
    ``"progress"`` for a progress line; ``"other"`` for any other line of a rank (its output went on); None for a line of
    no rank's, a launcher's or a C++ (glog) line. For the lines ``record`` does not take (``ERROR: ...`` too)."""
    local, prefixed, text = _own(line)
    if not text.strip() or _GLOG.match(text) or _LAUNCHERS.search(text):
        return None
    fields = _LEAD_FIELDS.match(text)
    msg = text[fields.end():].strip() if fields else text.strip()
    rank = _named_rank(prefixed, (_RANK_TAG.search(fields.group(0)) if fields else None) or _RANK_LEAD.match(msg))
    if local is None and rank is None:
        return None
    if _PROGRESS.search(text):
        return "progress"
    said = _RANK_LEAD.sub("", msg, count=1)
    if (_OTHER_LEVEL.search(text[:80]) or _NOT_HANDLED.search(msg)
            or not (_ERROR_WORDS.search(said) or plain and _plain(text[fields.end() + 1:] if fields else text, said))):
        return "progress" if _STEP.search(text) else "other"
    return local, rank, msg


def _plain(rest: str, said: str) -> bool:
    """(session 68) A message with no error word that is still a sentence a handler prints (``rank 3: bad batch at step 3:
    sample 17 has no tokens``), not output that goes on: not indented (a traceback's, a warning's source line), starting
    with a word (not a banner's ``====``/``+---``/``|``), no counter (``3/10``, ``45%``), no metric or setting
    (``loss=0.1``, ``lr: 3e-4``, ``world_size=4``), no dump (``Namespace(...)``, ``{'lr': ...}``), no lead word of a
    progress or status report (``Epoch``, ``Saving checkpoint to``, ``starting``, ``done``), no report of work done
    (``... flushed``/``saved``/``initialised``)."""
    return bool(said) and not rest[:1].isspace() and _SENTENCE.match(said) is not None and not _NOT_SAID.search(said)


def own_rank(line: str) -> int | None:
    """The rank a worker's line names as its own: an ERROR-level record's or a message-only line's (``bare``), or a
    leading ``[Rank 5]``/``[rank: 5]`` field of any record (parsers/log_torchrun_dir.py places a tree's agents by it)."""
    got = record(line) if _CANDIDATE.search(line) else None
    own = got if got is not None else bare(line) if _OWN_HINT.search(line) else None
    if isinstance(own, tuple):
        return own[1]
    text = _own(line)[2]
    fields = _LEAD_FIELDS.match(text)  # ``[time] [INFO] [engine.py:87:step] [Rank 0]``
    tag = _RANK_TAG.search(fields.group(0)) if fields else None
    return int(tag.group(1)) if tag else None


def wording(message: str) -> tuple[str, str | None]:
    """(subkind, error type) of a record's message by the line classifier: ``cuda_oom``, ``cuda_error``, ``peer``, or
    ``message`` (with the exception type the message starts with, where it does)."""
    body = _RANK_LEAD.sub("", message, count=1)
    events = classify(body, normalize(body)) if body else []
    kinds = [e["kind"] for e in events]
    if _PEER.search(body) or any(k in _PEER_KINDS for k in kinds) or any(e.get("subkind") == "teardown" for e in events):
        return "peer", None
    for e in events:
        if e["kind"] in ("cuda_oom", "cuda_error"):
            return e["kind"], e.get("error_type")
    typed = next((e.get("error_type") for e in events if e["kind"] == "python_exception" and e.get("error_type")), None)
    return "message", typed


def error_record_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``error_record`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body holds one: each
    rank's last ERROR-level record, and (session 67) its last own line where that is a message-only error line
    (``bare``; subkind ``bare``), no other line of its own after it but progress lines (their time decides in SQL)."""
    table = table.filter(pc.fill_null(pc.match_substring(table["body"], "exitcode"), False))
    last: dict[tuple[int, int | None, int | None], tuple[int, str, str, bool]] = {}
    kills: dict[int, dict[str, tuple[int, tuple | None, str]]] = {}  # (session 69) per body: worker pid -> its kill's line
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        said: dict[tuple, tuple | None] = {}  # a rank's own key -> its message-only line still standing
        plain = any(2 <= int(c) <= 125 for c in _CHOSEN.findall(body or ""))  # (session 68) a status a program chose
        for i, line in enumerate((body or "").split("\n")):
            kill = _LOADER_KILL.search(line) if "killed by signal" in line else None
            if kill is not None:
                kills.setdefault(row, {})[kill.group(1)] = (i + 1, _key(*_own(line)[:2]), kill.group(0))
            got = record(line) if _CANDIDATE.search(line) else None
            if got is not None:
                last[(row, got[0], got[1])] = (i + 1, line.rstrip("\r"), got[2], False)
                said[_key(got[0], got[1])] = None
                continue
            own = bare(line, plain) if _OWN_HINT.search(line) else None
            if own is None or own == "progress":
                continue
            if own == "other":  # the rank's output went on past any message before (not its stdout's flush: _flushed)
                key = _key(*_own(line)[:2])
                if key is not None:
                    said[key] = _flushed(said.get(key), line)
                continue
            peer = _PEER.search(own[2])  # a peer's wording: a victim's, and no message of its own stands before it
            said[_key(own[0], own[1])] = None if peer else (own, i + 1, line.rstrip("\r"))
        for kept in said.values():
            if kept is not None and wording(kept[0][2])[0] == "message":
                (local, rank, msg), line_no, line = kept[:3]
                at = (row, local, rank)
                if at not in last or last[at][0] < line_no:
                    last[at] = (line_no, line, msg, True)
    if not last:
        return None
    keys = sorted(last, key=lambda k: (k[0], last[k][0]))
    said = [_loader_kill(wording(last[k][2]), last[k], kills.get(k[0], {}), _key(k[1], k[2])) for k in keys]
    kinds = ["bare" if last[k][3] else s[0] for k, s in zip(keys, said)]
    return line_events(meta_table, [k[0] for k in keys], [last[k][0] for k in keys], [last[k][1] for k in keys],
                       "error_record", kinds,
                       {"local_rank": pa.array([k[1] for k in keys], pa.int64()), "rank": pa.array([k[2] for k in keys], pa.int64()),
                        "error_type": pa.array([s[1] for s in said], pa.string()),
                        "error_message": pa.array([last[k][2][:300] for k in keys], pa.string())})


def _flushed(kept: tuple | None, line: str) -> tuple | None:
    """(session 71) A standing message-only line kept past its rank's own status report (``starting (local rank 2, pid
    N)``: a sentence of work going on, no error word, not indented) that is its stdout flushed at exit after its stderr's
    message: by their clocks at most 0.5 s after it; where either has none, the one line after it."""
    a, b = (_API_TS.match(t) for t in (kept[2] if kept else "", line))
    text = _own(line)[2]
    said = _RANK_LEAD.sub("", text[_LEAD_FIELDS.match(text).end() if _LEAD_FIELDS.match(text) else 0:], count=1)
    if (kept is None or len(kept) > 3 or said[:1].isspace() or not _SENTENCE.match(said) or not _NOT_SAID.search(said)
            or _ERROR_WORDS.search(said) or _NOT_HANDLED.search(said) or (a and b and not 0 <= (
                dt.datetime.fromisoformat(b[0].strip()) - dt.datetime.fromisoformat(a[0].strip())).total_seconds() <= 0.5)):
        return None
    return kept if a and b else (*kept, True)


def _loader_kill(said: tuple[str, str | None], kept: tuple, kills: dict, key: tuple | None) -> tuple[str, str | None]:
    """(session 69) A record that is the loader's ``DataLoader worker (pid(s) N) exited unexpectedly``, typed by the kill
    of worker N its rank's own output (or an untagged line) printed before it: ``DataLoader worker (pid N) is killed by
    signal: Killed`` (queries/_failure_line.sql reads the signal as the exception form's)."""
    exited = _LOADER_EXIT.match(kept[2]) if "exited unexpectedly" in kept[2] else None
    for pid in re.findall(r"\d+", exited.group(1)) if exited else []:
        line_no, whose, wording_ = kills.get(pid, (None, None, None))
        if line_no is not None and line_no < kept[0] and whose in (key, None):
            return said[0], wording_
    return said


__all__ = ["bare", "error_record_events", "own_rank", "record", "wording"]
