"""A log that ends while its processes wait on a JIT-built torch extension (``torch.utils.cpp_extension``, DeepSpeed's
ops): the build lock one process holds, or one a killed build left behind.

torch's JIT build prints ``Using <root> as PyTorch extensions root...`` in every process that loads the extension, and
the first to take the build's lock (a ``FileBaton``: a ``lock`` file in ``<root>/<extension>/``) builds it while the
others wait on that file in silence; each then prints ``Loading extension module <name>...``. A build killed midway
(a Ctrl-C, a job cancelled, an OOM kill) leaves its ``lock`` file, and every later run waits on it forever, with no
error (real incidents OpenRLHF/OpenRLHF#208: three processes' ``Using .cache/torch_extensions/py310_cu118 as PyTorch
extensions root...`` and nothing after). One ``ext_build`` event (subkind ``waits``) per log body whose last non-blank
lines are such lines (and the build's own ``Emitting ninja build file``/``Building extension module``/``Allowing
ninja``/``Detected CUDA files`` lines) with no ``Loading extension module`` after them: ``nranks`` the processes that
printed the root in that run, ``error_message`` the root. queries/rank_failure.sql says it at ``info`` naming no rank
(docs/rules.md, "Session 32: leftovers").
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_patterns import API_TS
from k10s_forensics.parsers.log_streams import line_events

_API_TS = re.compile(API_TS)
#: a launcher's or torch's tag in front of a line (``[rank1]:``, ``[default0]:``, pdsh's ``host: ``, mpirun's ``[1,0]<stderr>:``)
_TAG = re.compile(r"^(?:[\w.-]{1,253}: )?(?:\[\d+,\d+\]<std(?:out|err)>:|\[(?:rank|default)?\d{1,5}\]:)?\s*")
_ROOT = re.compile(r"^Using\s+(\S.*?) as PyTorch extensions root\.\.\.\s*$")
#: the build's own lines between the root and the module's load (no error, no end)
_BUILDING = re.compile(r"^(?:Emitting ninja build file |Building extension module |Allowing ninja to set a default number of workers"
                       r"|Detected CUDA files, patching ldflags|Creating extension directory |No modifications detected for re-loaded extension)")


def waiting(lines: list[str]) -> tuple[str, int, int] | None:
    """(root, processes, 0-based index of the last root line) where ``lines`` end inside a JIT build: their last
    non-blank lines root and build lines only, at least one root; None otherwise."""
    root, count, last = None, 0, None
    for i in range(len(lines) - 1, -1, -1):
        text = _TAG.sub("", _API_TS.sub("", lines[i].rstrip("\r"), count=1), count=1).strip()
        if not text or _BUILDING.match(text):
            continue
        m = _ROOT.match(text)
        if m is None:
            break
        root = root or m.group(1)
        last = i if last is None else last
        count += 1
    return (root, count, last) if root is not None else None


def ext_build_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``ext_build`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body ends in a JIT build."""
    table = table.filter(pc.fill_null(pc.match_substring(table["body"], "as PyTorch extensions root"), False))
    rows, nos, texts, counts, roots = [], [], [], [], []
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        lines = (body or "").split("\n")
        got = waiting(lines)
        if got is not None:
            rows.append(row)
            roots.append(got[0])
            counts.append(got[1])
            nos.append(got[2] + 1)
            texts.append(lines[got[2]].rstrip("\r"))
    if not rows:
        return None
    return line_events(meta_table, rows, nos, texts, "ext_build", ["waits"] * len(rows),
                       {"nranks": pa.array(counts, pa.int64()), "error_message": pa.array(roots, pa.string())})


__all__ = ["ext_build_events", "waiting"]
