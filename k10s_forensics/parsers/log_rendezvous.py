"""The elastic launcher's own rendezvous failing: torchrun's agent (``torch.distributed.elastic``) raising
``RendezvousTimeoutError``, ``RendezvousClosedError``, ``RendezvousConnectionError``, ``RendezvousStateError`` or
``RendezvousError`` out of its rendezvous handler.

These are the launcher's exceptions, not a rank's (parsers/log_patterns.LAUNCHER_EXCEPTIONS: never a rank's failure).
Where a rank failed, they are the teardown that followed (the surviving agent's closed rendezvous, its lost store). Where
none did, they are the whole story, and a log of nothing else used to read as nothing having failed (real incidents
batch 344): the group never formed (a node never started or never reached the endpoint: ``RendezvousTimeoutError``),
the rendezvous host's store went away (``RendezvousConnectionError: The connection to the C10d store has failed``), or
another node's agent closed it (``RendezvousClosedError``). One ``rendezvous`` event per such exception line (or its
error file's ``"message"`` record): subkind ``timeout``, ``closed``, ``connection``, ``state`` or ``error`` (the base class);
``error_message`` the exception's message (null when it has none). ``RendezvousGracefulExitError`` (a node leaving on
purpose) is not one. The store's port in use on its host (c10d's server socket failing to bind, ``EADDRINUSE``) is
subkind ``port-in-use``, ``error_message`` ``port N``. queries/rank_failure.sql says it naming no rank, where no incident of the job has a cause
(docs/rules.md, "Session 58: the launcher's rendezvous").
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_patterns import API_TS
from k10s_forensics.parsers.log_streams import line_events

_API_TS = re.compile(API_TS)
#: a launcher's or log shipper's tag in front of a line (``[rank1]:``, ``[default0]:``, ``host: ``, mpirun's ``[1,0]<stderr>:``)
_TAG = re.compile(r"^(?:[\w.-]{1,253}: )?(?:\[\d+,\d+\]<std(?:out|err)>:|\[(?:rank|default)?\d{1,5}\]:)?\s*")
#: the exception's own line: its class, qualified or bare, at the start of the line, then its message or nothing
#: (``torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError``; ``...RendezvousConnectionError: The connection to
#: the C10d store has failed. See inner exception for details.``)
_RAISED = re.compile(r"^(?:torch\.distributed\.elastic\.rendezvous\.(?:api\.)?)?Rendezvous(Timeout|Closed|Connection|State)?Error"
                     r"(?::\s*(?P<message>.*?))?\s*$")
#: the same in torch elastic's error file as its error handler logs it (``"message": "RendezvousClosedError: ",``)
_RECORDED = re.compile(r'^"message":\s*"(?:torch\.distributed\.elastic\.rendezvous\.(?:api\.)?)?Rendezvous(Timeout|Closed|Connection|State)?Error'
                       r'(?::\s*(?P<message>[^"]*?))?\s*",?\s*$')
#: the store's server socket failing to bind its port, in use on that host (torch's c10d, raised as ``DistNetworkError`` by
#: the agent or rank creating the rendezvous store, or logged by c10d before it): ``The server socket has failed to listen
#: on any local network address. port: 33649, useIpv6: false, code: -98, name: EADDRINUSE, …`` (torch >= 2.3), ``… The
#: server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).`` (2.0-2.2, and c10d's warning)
_BIND = re.compile(r"failed to (?:listen on any local network address|bind to )")
#: the port: torch >= 2.3's ``port: N``, or the address's ``:N (errno: 98``
_PORT = re.compile(r"\bport: (\d{1,5})|:(\d{1,5}) \(errno: 98\b")
_IN_USE = re.compile(r"EADDRINUSE|Address already in use|errno: 98\b")
#: a line that may be one of the above (one RE2 pass over each body first, then over that body's lines)
_CANDIDATE = re.compile(r"Rendezvous(?:Timeout|Closed|Connection|State)?Error|failed to (?:listen on any local network address|bind to )")
_SUBKIND = {"Timeout": "timeout", "Closed": "closed", "Connection": "connection", "State": "state", None: "error"}


def raised(line: str) -> tuple[str, str | None] | None:
    """(subkind, message or None) where ``line`` is the launcher's rendezvous exception line; None otherwise."""
    text = _API_TS.sub("", line.rstrip("\r"), count=1).strip()
    if "failed to" in text and _BIND.search(text) and _IN_USE.search(text):
        port = _PORT.search(text)
        return "port-in-use", (f"port {port.group(1) or port.group(2)}" if port else None)
    m = _RAISED.match(text) or _RECORDED.match(text) or _RAISED.match(_TAG.sub("", text, count=1).strip())  # ``Error: `` is no tag
    if m is None:
        return None
    return _SUBKIND[m.group(1)], (m.group("message") or None)


def rendezvous_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``rendezvous`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body holds one."""
    table = table.filter(pc.fill_null(pc.match_substring_regex(table["body"], _CANDIDATE.pattern), False))
    rows, nos, texts, subkinds, messages = [], [], [], [], []
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        for i, line in enumerate((body or "").split("\n")):
            got = raised(line) if _CANDIDATE.search(line) else None
            if got is not None:
                rows.append(row)
                nos.append(i + 1)
                texts.append(line.rstrip("\r"))
                subkinds.append(got[0])
                messages.append(got[1])
    if not rows:
        return None
    return line_events(meta_table, rows, nos, texts, "rendezvous", subkinds, {"error_message": pa.array(messages, pa.string())})


__all__ = ["raised", "rendezvous_events"]
