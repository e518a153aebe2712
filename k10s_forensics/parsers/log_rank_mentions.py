"""Ranks a log names in torch's and NCCL's own words, whatever prefix its lines carry (or none): what the
importer lays a job out by when no line is tagged with its rank (``log_layout.infer_layout``). The world
holds at least the highest rank named.

* NCCL's communicator set-up: ``comm 0x55d… rank 3 nranks 8``;
* gloo's monitored barrier: the rank that reached it and the one it waited for (``Rank 1 successfully
  reached monitoredBarrier, … send/recv from rank 0``), and the ranks that failed it;
* ProcessGroupNCCL's own prefix on its watchdog, abort and desync lines: ``[Rank 3]`` (torch 1.x–2.2),
  ``[PG 0 Rank 3]``, ``[PG 0 (default_pg) Rank 3]``, ``[PG ID 0 PG GUID 0(default_pg) Rank 3]`` (2.3+). A
  subgroup's prefix gives its group rank, never above the global ranks;
* HCCL's (Ascend) ``IP/ID`` notation, ``[90.90.92.240/1]``: the rank its cluster exception report locates
  (``Cluster Exception Location[IP/ID]:[…/1]``), the one that discovered it (``Discoverer:[…/0]``) and the
  ranks of its heartbeat trace (``rank [127.10.0.1/9] status[LOST] by rank [127.10.0.1/1]``);
* webdataset's sample metadata, which its loader appends to an exception it raises on a sample (the shard
  list's ``__rank__``: ``str((rank, world_size))``, ``'__rank__': '(18, 32)'``): the rank whose loader raised it
  (``sample_rank``: a line holding it under an unranked exception gives that exception its rank).

* a training script's own rank tag opening a line (behind any prefix the importer strips): ``Rank 3: step 2/6 loss
  0.41``, ``rank 3: …``, ``[rank 3] …`` (``print(f"Rank {rank}: …")``, the legacy launcher's and mp.spawn's jobs
  whose lines torch tags with nothing): the rank printed, so the world holds it (session 40). Mid-line mentions
  (``from rank 0: …``) are no tag.

A Horovod stall row printed bare (``16: [allreduce.x, ...]`` under ``Missing ranks:``) names the rank missing, not the
line's printer: its number is no srun ``--label`` (``unlabel_stall_rows``), so routing keeps it with its header.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_patterns import API_TS, HOROVOD_MISSING_HEADER, HOROVOD_MISSING_ROW, PY_EXCEPTION

_API_STAMP = re.compile(API_TS)  # ``kubectl logs --timestamps``' stamp before a stall row
COMM_RANK = re.compile(r"comm 0x[0-9a-fA-F]+ rank (\d+) n[Rr]anks (\d+)")
_BARRIER_RANKS = re.compile(r"\bRank (\d{1,7}) successfully reached monitoredBarrier|send/recv from rank (\d{1,7})"
                            r"|\bRanks? (\d{1,7}(?:, ?\d{1,7}){0,4095}) failed to pass monitoredBarrier")
_PG_RANK = re.compile(r"\[(?:PG [^\[\]]{1,120}? )?Rank (\d{1,7})\]")
_HCCL_RANK = re.compile(r"(?:Location\[IP/ID\]:|Discoverer:|\brank )\[[^\]/\s]{1,253}/(\d{1,7})\]")
#: webdataset's shard-list metadata in a sample dict: ``'__rank__': '(18, 32)'`` (rank, world size; ``'None'`` unset)
WDS_RANK = re.compile(r"""['"]__rank__['"]: ?['"]\((\d{1,7}), ?(\d{1,7})\)['"]""")
#: a script's rank tag opening a line: ``Rank 3:``, ``rank 3:``, ``[rank 3]`` (``SCRIPT_RANK_SEEN``: anywhere, the cheap check)
SCRIPT_RANK = re.compile(r"(?:[Rr]ank (\d{1,7}):|\[[Rr]ank (\d{1,7})\])\s")
_SCRIPT_RANK_SEEN = re.compile(r"[Rr]ank \d{1,7}(?::|\])\s")
#: lines from an exception's first line to the wrapped line holding its sample dict
SAMPLE_GAP = 3


def named_ranks(text: str) -> list[int]:
    """Every rank ``text`` names in the words above (see the module doc), in order of appearance by kind."""
    out = [int(m.group(1)) for m in COMM_RANK.finditer(text)] if "comm 0x" in text else []
    if "monitoredBarrier" in text:
        out += [int(r) for m in _BARRIER_RANKS.finditer(text) for g in m.groups() if g for r in g.replace(" ", "").split(",")]
    if "Rank " in text:
        out += [int(m.group(1)) for m in _PG_RANK.finditer(text)]
    if "/ID]" in text or "status[" in text:
        out += [int(m.group(1)) for m in _HCCL_RANK.finditer(text)]
    if "__rank__" in text:
        out += [int(m.group(1)) for m in WDS_RANK.finditer(text) if int(m.group(1)) < int(m.group(2))]
    if "ank " in text:
        out += script_ranks(text)
    return out


def script_ranks(text: str) -> list[int]:
    """The ranks of the script rank tags (``SCRIPT_RANK``) opening ``text``'s lines once their prefixes are stripped."""
    out = []
    for line in text.split("\n"):
        if _SCRIPT_RANK_SEEN.search(line) and (m := SCRIPT_RANK.match(normalize(line).text + " ")):
            out.append(int(m.group(1) or m.group(2)))
    return out


def wds_rank(text: str) -> int | None:
    """The rank of the first webdataset sample metadata on ``text`` (``WDS_RANK``), None where there is none or its
    rank is not below its world size."""
    m = WDS_RANK.search(text) if "__rank__" in text else None
    return int(m.group(1)) if m is not None and int(m.group(1)) < int(m.group(2)) else None


def sample_rank(events: list[dict[str, Any]], line_no: int, text: str) -> bool:
    """webdataset's sample metadata (``WDS_RANK``) on the exception's line or within ``SAMPLE_GAP`` lines under it
    (the repr of the exception's args, wrapped): the exception is that rank's, where no tag gave it one. True: the
    line held the metadata (a wrapped tail, no event of its own); the exception's own line is classified as it is
    (``log_classify.line_context`` reads the rank there)."""
    rank = wds_rank(text)
    if rank is None or PY_EXCEPTION.match(text):
        return False
    ev = events[-1] if events else None
    if ev is not None and ev["kind"] == "python_exception" and line_no - ev.get("line_no", 0) <= SAMPLE_GAP and ev.get("rank") is None:
        ev["rank"] = rank
    return True


def unlabel_stall_rows(lines: list[str], ranks: list[int | None]) -> list[int | None]:
    """``ranks`` (each line's prefix rank) with None for each bare Horovod stall row within 3 lines of its header or the
    row before it (log_stall_rows reads them so), behind the API server's timestamp or not: the row's leading number is
    the rank it names missing."""
    out, at = list(ranks), None
    for i, line in enumerate(lines):
        if "ranks:" in line and HOROVOD_MISSING_HEADER.search(line):
            at = i
        elif at is not None and i - at <= 3 and HOROVOD_MISSING_ROW.match(_API_STAMP.sub("", line, count=1)):
            out[i], at = None, i
    return out


__all__ = ["COMM_RANK", "SCRIPT_RANK", "WDS_RANK", "named_ranks", "sample_rank", "unlabel_stall_rows", "wds_rank"]
