"""A launch command line pasted with its output: how many processes it starts, and whether on one host.

Users paste the command they ran above its output (``$ mpirun -np 4 ./a.out``, ``torchrun --nproc_per_node 2
train.py``, a ``set -x`` trace's ``+ horovodrun -np 2 …``). One that starts every process on the host it runs on
makes the ranks share one host, one binary and one set of libraries, so a failure of the host or the binary (an
illegal instruction, a shared library missing, a C library too old) meets every process alike, whichever the
launcher reports (queries/_incident_common_mode.sql, ``one_host_alike``; docs/rules.md, "Session 32: leftovers"). One
``launch_cmd`` event per such line, with ``nranks`` (the processes it starts) and a subkind:

* ``one_host``: ``mpirun``/``mpiexec`` (Open MPI, MPICH, ``orterun``, ``prterun``) with ``-np N``/``-n N`` and no host
  list, hostfile or per-node count (``-H``, ``--host``, ``-hostfile``, ``-machinefile``, ``-f``, ``-npernode``, ``-ppn``,
  ``--map-by ppr:…``), or with every listed host the local one (``-H localhost:4``, ``--host 127.0.0.1``);
  ``horovodrun -np N`` with no ``-H``/``--hosts``/hostfile/discovery script, or ``-H localhost:N``; ``torchrun`` (or
  ``python -m torch.distributed.run``/``launch``) with ``--nproc_per_node N`` and no ``--nnodes`` but 1 (``1:1``);
  ``torchpack dist-run -np N`` (torchpack's mpirun wrapper: spvnas, bevfusion, torchsparse) with no ``-H``/``--hosts``
  or hostfile, which it runs as ``mpirun -np N -H localhost:N``, or with every listed host the local one;
* ``hosts``: the same launchers with any other host list, hostfile or node count: more than one host, or unknown.

A line is read only where the launcher is its first word after a shell prompt (``$``, ``#``, ``%``, ``>``, a
``user@host:~$`` prompt, ``set -x``'s ``+``), ``env``/``time``/``nohup`` and ``VAR=value`` settings, with its
backslash continuations; a launcher named inside a sentence, or run under ``srun``/``ssh``, is not read.
"""

from __future__ import annotations

import re
import shlex

import pyarrow as pa
import pyarrow.compute as pc

from k10s_forensics.parsers.log_patterns import API_TS
from k10s_forensics.parsers.log_streams import line_events

#: a body that may hold a launch command line (one RE2 pass before any Python)
_ANY = r"\b(?:mpirun|mpiexec|orterun|prterun|horovodrun|torchrun|torchpack|torch\.distributed\.(?:run|launch))\b"
_API_TS = re.compile(API_TS)
#: the line's start up to the launcher: a prompt, a venv's name, wrappers and environment settings
_LINE = re.compile(r"(?m)^[ \t]*(?:\([\w.-]{1,40}\)[ \t]+)?(?:[\w.@~:/-]{0,80}[$#%>+][ \t]+)?"
                   r"(?:(?:env|time|nohup|exec)[ \t]+|[A-Za-z_]\w{0,60}=\S*[ \t]+)*"
                   r"(?:\S*/)?(?:mpirun|mpiexec(?:\.hydra)?|orterun|prterun|horovodrun|torchrun|torchpack|python[\d.]*)\b[^\n]*")
_MPI = {"mpirun", "mpiexec", "mpiexec.hydra", "orterun", "prterun"}
_NP = {"-np", "--np", "-n", "--n", "-c", "--num-proc", "-num-proc"}
_HOSTS = {"-H", "-host", "--host", "-hosts", "--hosts"}
#: a hostfile, a rank file, an elastic or per-node layout: the hosts are not on the line (or more than one)
_ELSEWHERE = {"-hostfile", "--hostfile", "-machinefile", "--machinefile", "-f", "-default-hostfile", "--default-hostfile",
              "-rf", "--rankfile", "-npernode", "--npernode", "-N", "-ppn", "--ppn", "-perhost", "--host-discovery-script",
              "--min-np", "--max-np", "-configfile", "--app"}
_FLAGS = {"--allow-run-as-root", "-allow-run-as-root", "--oversubscribe", "-oversubscribe", "--tag-output", "-tag-output",
          "--timestamp-output", "--report-bindings", "-report-bindings", "-v", "--verbose", "-q", "--quiet", "-l",
          "--display-map", "-display-map", "--use-hwthread-cpus", "-prepend-rank", "--prepend-rank", "--standalone",
          "-bind-to-core", "--bind-to-core", "--noprefix", "-nooversubscribe", "--nooversubscribe", "--no-python",
          "--use_env", "--use-env", "--gloo", "--mpi", "--verbose-stall-check", "--disable-cache"}
_TWO = {"--mca", "-mca", "-gmca", "--gmca", "--prtemca", "--omca"}
_LOCAL = re.compile(r"^(?:localhost|127\.0\.0\.1|::1|\[::1\])(?::\d{1,4})?$")


def _tokens(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError:  # an unclosed quote of a cut paste
        return text.split()


def _program(tokens: list[str]) -> tuple[str | None, list[str]]:
    """The launcher's name and its options (every token before the program it starts)."""
    i = 0
    while i < len(tokens) and (re.match(r"^(?:\(.*\)|[\w.@~:/-]*[$#%>+]|env|time|nohup|exec|[A-Za-z_]\w*=.*)$", tokens[i])):
        i += 1
    if i >= len(tokens):
        return None, []
    name, rest = tokens[i].rsplit("/", 1)[-1], tokens[i + 1:]
    if re.fullmatch(r"python[\d.]*", name):
        if rest[:1] == ["-m"] and rest[1:2] and rest[1] in ("torch.distributed.run", "torch.distributed.launch"):
            return "torchrun", rest[2:]
        return None, []
    if name == "torchpack":  # torchpack's launcher is its ``dist-run`` subcommand
        return ("torchpack", rest[1:]) if rest[:1] == ["dist-run"] else (None, [])
    return name, rest


def _options(rest: list[str]) -> dict[str, list[str]] | None:
    """Each option before the program with its values (``--opt=value`` split; an unknown option takes the next token
    unless it is another option or the program: a ``python``, a path, a ``.py``/``.sh`` file); None where a lone ``-``
    (a paste's ``- H host``) leaves the options unknown."""
    opts: dict[str, list[str]] = {}
    i = 0
    while i < len(rest):
        tok = rest[i]
        if tok == "-":
            return None
        if not tok.startswith("-"):
            break
        name, eq, value = tok.partition("=")
        if eq:
            opts.setdefault(name, []).append(value)
            i += 1
            continue
        n = 0 if tok in _FLAGS else 2 if tok in _TWO else 1
        vals = rest[i + 1:i + 1 + n]
        if n == 1 and (not vals or vals[0].startswith("-") or re.match(r"^(?:python[\d.]*|\S*/\S*|\S+\.(?:py|sh))$", vals[0])):
            vals = []
        opts.setdefault(tok, []).extend(vals)
        i += 1 + len(vals)
    return opts


def _count(values: list[str]) -> int | None:
    return int(values[-1]) if values and values[-1].isdigit() else None


def launch(line: str) -> tuple[str, int] | None:
    """(``one_host`` or ``hosts``, processes started) for a pasted launch command line; None when it is none, or
    starts fewer than two processes or an unknown number."""
    name, rest = _program(_tokens(line))
    if name is None:
        return None
    opts = _options(rest)
    if opts is None:
        return None
    if name in _MPI or name in ("horovodrun", "torchpack"):
        n = _count(next((opts[o] for o in (("-np", "--nproc") if name == "torchpack" else _NP) if o in opts), []))
        hosts = [h for o in _HOSTS if o in opts for v in opts[o] for h in v.split(",") if h]
        spread = any(o in opts for o in _ELSEWHERE) or any("ppr:" in v and "node" in v for v in opts.get("--map-by", []) + opts.get("-map-by", []))
        one = not spread and all(_LOCAL.match(h) for h in hosts) and not (any(o in opts for o in _HOSTS) and not hosts)
    elif name == "torchrun":
        n = _count(opts.get("--nproc_per_node") or opts.get("--nproc-per-node") or [])
        nnodes = opts.get("--nnodes") or []
        node_rank = opts.get("--node_rank") or opts.get("--node-rank") or []
        one = (not nnodes or all(re.fullmatch(r"1(?::1)?", v) for v in nnodes)) and all(v == "0" for v in node_rank)
    else:
        return None
    if n is None or n < 2:
        return None
    return ("one_host" if one else "hosts"), n


def launch_events(table: pa.Table, meta_table: pa.Table) -> pa.Table | None:
    """``launch_cmd`` rows of ``log_events`` for ``table`` (``_row``, ``body``); None when no body holds a launch line."""
    table = table.filter(pc.fill_null(pc.match_substring_regex(table["body"], _ANY), False))
    rows, kinds, nos, texts, counts = [], [], [], [], []
    for row, body in zip(table["_row"].to_pylist(), table["body"].to_pylist()):
        lines = (body or "").split("\n")
        for no, raw in enumerate(lines, 1):
            text = _API_TS.sub("", raw.rstrip("\r"), count=1)
            if not _LINE.match(text):
                continue
            whole = text
            for more in lines[no:no + 20]:  # backslash continuations
                if not whole.rstrip().endswith("\\"):
                    break
                whole = whole.rstrip()[:-1] + " " + _API_TS.sub("", more.rstrip("\r"), count=1)
            got = launch(whole)
            if got is not None:
                rows.append(row)
                kinds.append(got[0])
                counts.append(got[1])
                nos.append(no)
                texts.append(raw.rstrip("\r"))
    if not rows:
        return None
    return line_events(meta_table, rows, nos, texts, "launch_cmd", kinds, {"nranks": pa.array(counts, pa.int64())})


__all__ = ["launch", "launch_events"]
