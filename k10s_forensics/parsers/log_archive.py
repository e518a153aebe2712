"""Logs a user attaches as an archive, and logs written one file per process.

``members(name, data)``: a tar (plain, or compressed with gzip, bzip2 or xz: ``logs.tar.gz``, what
``tar czf`` of a log folder gives) or a zip (``logs.zip``, GitHub's "download log archive", a
folder zipped on a desktop) read in memory, never extracted: its regular files in natural path
order (``node-2.log`` before ``node-10.log``), each a log of its own, named by its path in the
archive; a gzip member (kubelet's rotated ``0.log.<time>.gz``) is read as its text. Folders, links,
devices, macOS ``__MACOSX/`` and ``._*`` companions, empty and binary members are skipped (an archive
of empty logs only is those logs, empty: a container that wrote nothing); more than ``MAX_MEMBERS``
files or ``max_bytes`` of text in all is refused (one line, ``InputError``), as is a damaged archive.

``process_files(sources)``: files that are one per **process**, not per node, named so: Azure ML's
``user_logs/std_log_process_<N>.txt``, Open MPI's ``--output-filename`` ``<dir>/<job>/rank.<N>/stdout``
and ``stderr``, ``rank<N>.log`` / ``rank_<N>.txt`` / ``…-rank-<N>.out``. Read as node logs they would
be one node per file in the order given (a shell's glob puts ``process_10`` before ``process_2``)
and every rank named by where the file landed. When every file is named by a process number and
none holds several processes (lines of another rank, a local rank's tag, a torch elastic agent's
line: the folder of a launcher started once per node, ``mpirun --map-by ppr:1:node torchrun``),
each process is a node of one process, at its rank (the rank's stdout and stderr together), an
absent rank's node empty: no order between processes is invented (a file has no clock), and no
line is changed. The launcher's own log beside them (Azure ML's ``user_logs/std_log.txt``) names
no process and is not read (the command says so).
"""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
import zlib

from k10s_forensics.errors import InputError
from k10s_forensics.parsers.log_agents import agent_of
from k10s_forensics.parsers.log_encoding import decode_log
from k10s_forensics.parsers.log_normalize import normalize

MAX_MEMBERS = 4096
#: how ``process_files`` says what it did (``logimport`` then lays one process per node)
PER_PROCESS = "one file per process"
_SKIP = re.compile(r"(?:^|/)(?:__MACOSX/|\._)")
_PROCESS_FILE = re.compile(r"(?:^|/)(?:std_log_process_0*(\d{1,7})\.txt|rank\.0*(\d{1,7})/std(?:out|err)"
                           r"|[\w.-]{0,100}?(?:^|[_.-]|/)rank[_.-]?0*(\d{1,7})\.(?:log|txt|out))$")


#: the launcher's own log beside the processes' (Azure ML's ``user_logs/std_log.txt``)
_LAUNCHER_FILE = re.compile(r"(?:^|/)std_log\.txt$")


def _natural(path: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path))


def is_archive(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04" or data[257:262] == b"ustar" or data[:3] == b"BZh" or data[:6] == b"\xfd7zXZ\x00"


def _tar(data: bytes) -> list[tuple[str, bytes]]:
    out = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
        for info in tar:
            if info.isfile():
                if len(out) >= MAX_MEMBERS:
                    raise InputError(f"more than {MAX_MEMBERS} files in the archive")
                f = tar.extractfile(info)
                out.append((info.name, f.read() if f else b""))
    return out


def _zip(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        infos = [i for i in z.infolist() if not i.is_dir()]
        if len(infos) > MAX_MEMBERS:
            raise InputError(f"more than {MAX_MEMBERS} files in the archive")
        return [(i.filename, z.read(i)) for i in infos]


def members(name: str, data: bytes, max_bytes: int) -> list[tuple[str, str]]:
    """The archive's text files as ``(path, text)`` in natural path order (see the module doc)."""
    try:
        raw = _zip(data) if data[:4] == b"PK\x03\x04" else _tar(data)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise InputError(f"{name}: not a readable archive ({exc})") from exc
    out, total, empty = [], 0, []
    for path, blob in sorted(raw, key=lambda m: _natural(m[0])):
        blob = _gunzipped(name, path, blob, max_bytes)
        if not _SKIP.search(path) and not blob.strip():
            empty.append((path.lstrip("./"), ""))
        text = None if _SKIP.search(path) or not blob.strip() else decode_log(blob)
        if text is None:  # skipped, empty or binary
            continue
        total += len(blob)
        if total > max_bytes:
            raise InputError(f"{name}: more than {max_bytes >> 20} MiB of logs in the archive; give fewer files")
        out.append((path.lstrip("./"), text))
    if not out and not empty:
        raise InputError(f"{name}: no text log in the archive")
    return out or empty  # only empty logs: a container that wrote nothing (one archive among others)


def _gunzipped(name: str, path: str, blob: bytes, max_bytes: int) -> bytes:
    """A gzip member (kubelet's rotated ``0.log.<time>.gz``, a ``.log.gz``) as its text, at most ``max_bytes``."""
    if blob[:2] != b"\x1f\x8b":
        return blob
    try:
        data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(blob, max_bytes + 1)
    except zlib.error as exc:
        raise InputError(f"{name}: {path} is not a readable gzip file ({exc})") from exc
    if len(data) > max_bytes:
        raise InputError(f"{name}: more than {max_bytes >> 20} MiB of logs in the archive; give fewer files")
    return data


def _process(name: str) -> int | None:
    m = _PROCESS_FILE.search(name)
    return int(next(g for g in m.groups() if g is not None)) if m else None


def _one_process(index: int, text: str) -> bool:
    """False when the file holds lines of several processes, or of a launcher's tee (see the module doc)."""
    ranks = set()
    for line in text.split("\n"):
        if agent_of(line):
            return False
        if "[" in line[:40]:
            n = normalize(line)
            if n.local_rank is not None:
                return False
            ranks.update([n.rank] if n.rank is not None else [])
    return ranks <= {index}


def process_files(sources: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], str] | None:
    """Per-process files (see the module doc) as one log per process in rank order (an empty one where a
    rank's file is absent), and how; None: not such files."""
    launcher = [name for name, _ in sources if _LAUNCHER_FILE.search(name)]
    sources = [(name, text) for name, text in sources if not _LAUNCHER_FILE.search(name)]
    if len(sources) < 2:
        return None
    index = [_process(name) for name, _ in sources]
    if None in index or max(index) >= 4 * len(sources) + 64 or not all(_one_process(i, t) for i, (_, t) in zip(index, sources)):
        return None
    per: dict[int, list[str]] = {}
    for i, (name, text) in sorted(zip(index, sources), key=lambda p: (p[0], p[1][0])):
        per.setdefault(i, []).append(text.rstrip("\n"))
    logs = [(f"process {r}", "\n".join(per.get(r, []))) for r in range(max(index) + 1)]
    shown = ", ".join(str(i) for i in sorted(per)[:4]) + (", ..." if len(per) > 4 else "")
    left = f"; {', '.join(launcher)} not read (the launcher's own lines name no process)" if launcher else ""
    return logs, f"{PER_PROCESS} ({len(per)} processes: {shown}), one process per node{left}"


__all__ = ["MAX_MEMBERS", "PER_PROCESS", "is_archive", "members", "process_files"]
