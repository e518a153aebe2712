"""Line normalisation before classification: what collectors, launchers and shippers put in front.

``normalize(text)`` peels, from the start of a candidate line, every prefix it recognises and
returns the message that is left together with the identity the prefixes carried:

* timestamps of any style: ISO (``2026-09-18 19:29:24,123``, ``2024-02-27T21:05:18.670399Z``, a console's
  ``2026-11-28 12:05:03.281 UTC``),
  clock only (``18:11:06.680``), ``22-09-01 02:31:11.512 :``, ``03/17/23 20:03:12``, bracketed
  (``[...]``, full-width ``【...】``) or not, ctime (``Fri Aug 11 12:31:45 2023``, mpirun's
  ``--timestamp-output``);
* pids ``[80746]``, pod / host prefixes ``[job-master-0]``, ``worker-0 >>``, ``192.168.1.51:``;
* the container runtime's log-file stream tag after its timestamp (``2025-07-25T07:53:08.21+08:00 stdout F``,
  CRI: what ``/var/log/pods`` holds and users paste);
* SGLang's process prefix ``[2025-07-25 07:53:08 TP2]`` (``DP2 TP2``, ``TP1 EP1``): the TP rank, unless a
  pipeline stage after the first or a data-parallel replica of its own (``DP1 TP0``) makes it a local one;
  vLLM's worker prefix ``(VllmWorker rank=2 pid=4664)`` (the rank), ``(VllmWorker TP1 pid=…)`` /
  ``(Worker_TP1_EP1 pid=…)`` (read as SGLang's) and its logger's ``ERROR 08-05 14:13:44 [file.py:487]`` (V0's
  ``… multiproc_worker_utils.py:242]`` without the bracket is left: its ``(VllmWorkerProcess pid=…)`` lines name no process),
  and its front-end's and engine core's ``(APIServer pid=1)`` / ``(EngineCore_0 pid=271)`` (no rank: the API server's
  ``EngineDeadError`` is then read as a failure of no rank);
* launcher rank tags: torchrun ``[rank3]:`` (also behind a prefix of the user's own, e.g. torchrun's
  ``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``: ``[trainer2|0]:[rank2]:``, ``trainer-1> [rank3]:``) and its ``--tee`` role prefix ``[default0]:``
  (a LOCAL rank), Determined ``[rank=3] ||``, a ``logging`` format's host, rank and level fields (``node-1 rank=3 ERROR``), mpirun ``[1,6]<stdout>:`` (``[jobid,rank]``),
  srun ``--label`` ``11:`` (and what the task printed behind it: `` 3: [rank3]:``), horovodrun ``[3]<stderr>:``, Ray Train ``(RayTrainWorker pid=…, ip=…)`` (its pid
  kept: the worker group's table gives its rank), a Ray actor whose class repr names its rank (``(MegatronPolicyWorker[rank=107]
  pid=…, ip=…)``: the rank; a bare ``[rank=3] `` too) and Ray's own processes (``(TrainController pid=…)``, the trainer ``(TorchTrainer pid=…)``,
  ``(raylet)``), Ray's `` [repeated 2x across cluster]`` dedup note at the end;
* mpirun's (and horovodrun's) tag repeated inside the line: they tag every write, not every line, so a line the
  process wrote in pieces carries its own tag again where a write began (Python writes an exception's name and its
  ``: message`` apart: ``[1,19]<stderr>:RuntimeError[1,19]<stderr>:: NCCL communicator was aborted``); the same
  tag is taken out of the message (another rank's tag mid-line is two processes' writes interleaved: left);
* a tqdm progress bar glued in front of a log line (carriage-return redraws: the last one);
  ANSI colour and cursor codes anywhere in the line (``strip_ansi``);
* c10's glog layout (``E1128 18:49:28.796000 12152 torch/distributed/elastic/multiprocessing/api.py:836]``):
  torch.distributed.elastic logs a failed process's traceback line by line through it (accelerate's
  ``notebook_launcher``, ``torch.distributed.launcher.api.elastic_launch``);
* torchx's ``<role>/<replica id> `` (its local scheduler's and ``torchx log``'s prefix) and torchrun's
  ``--tee`` prefix of an empty role (``[1]:text``, as torchx starts it: a LOCAL rank);
* a structured (JSON) record (``{"level": ..., "rank": 2, "msg": ..., "exc_info": "Traceback ..."}``):
  its message, or the last line of the traceback it holds, and its rank (``log_json``);
* loguru / rich layouts (HF accelerate logs through rich): ``| LEVEL | module:function:42 -``,
  rich's ``LEVEL    `` column, and a source location at the end of the line (``api.py:699``).

Masked fields: ``MASK`` is what a user puts where a PID, host, IP, port or path was
(``xxxxxx``, ``XXXX``, ``<hostname>``, ``<ip>``, ``***``, ``[REDACTED]``, ``…``, ``...``,
``$HOST``, ``<PID>``); the wordings accept it in those places and ``is_masked`` tells the
classifier to keep no identity from it (two masked hosts are not the same host).

Only a prefix is stripped; the patterns of log_classify still search the whole line, so a
prefix this module does not know costs nothing but the start-anchored wordings (torchrun's
failure table, Python exception lines).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from k10s_forensics.parsers.log_json import unjson

_TS_CORE = (
    r"\d{4}-\d\d-\d\d[ T_]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d| (?:UTC|GMT)(?=\s))?"
    r"|\d\d-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d{1,9})?"
    r"|\d\d/\d\d/\d{2,4},? \d\d:\d\d:\d\d(?:[.,]\d{1,9})?"
    r"|\d\d:\d\d:\d\d(?:[.,]\d{1,9})?"
    r"|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}"  # mpirun --timestamp-output
)
#: torchrun's ``--tee`` prefix ``[{role}{local_rank}]:`` where the role is the host's name and a colon, as
#: ``--role $(hostname -s):`` sets it (stas00's ml-engineering, open-r1's and nanotron's SLURM scripts): ``[node1:4]:``,
#: ``[alphagpu12:3]:`` (session 62); not a source location (``[trainer.py:650]:``)
TEE_NOT_SOURCE = r"(?![\w.-]{0,62}\.(?:py|pyx|cc|cpp|cu|cuh|c|h|hpp|rs|go|java|js|ts|sh):)"  # not ``[trainer.py:650]:``
TEE_HOST_NAME = r"[A-Za-z][\w.-]{0,62}"
TEE_HOST_CORE = r"\[" + TEE_NOT_SOURCE + r"(?P<tee_host>" + TEE_HOST_NAME + r"):(?P<tee_local>\d{1,4})\]:"
#: the prefix where it stands in a line: at its start, or behind a shipper's timestamp (search the line's first 160 characters)
TEE_HOST = re.compile(r"(?:^|(?<=\s))" + TEE_HOST_CORE)
#: One prefix element at the start of a line; group ``rank``/``local``/``mpi``/``srun`` carry identity.
_PREFIX = re.compile(
    r"(?:"
    r"\[(?:" + _TS_CORE + r")(?P<sgl>(?: (?:DP|PP|TP|EP|CP)\d{1,5}){1,5})\]"  # SGLang: [2025-07-25 07:53:08 DP2 TP2]
    r"|[\[【](?:" + _TS_CORE + r")[\]】]"  # bracketed timestamp
    r"|(?:stdout|stderr) [PF](?= )"  # the container runtime's (CRI) log file: <time> stdout F <line>
    r"|(?:" + _TS_CORE + r")(?:\s*[:|-](?=\s))?"  # bare timestamp, optional ' :' / ' |' / ' -'
    # torch's ``[rankN]:``; its bracket (or ``[r``) lost by a copy at the line's start (``rank4]: ``, ``ank1]: ``, session 60)
    r"|(?:\[rank|r?ank(?=\d{1,7}\]: ))(?P<rank>\d{1,7})\]:"
    r"|\[rank=(?P<rank_eq>\d{1,7})\](?:\s*\|\||(?=\s))"  # Determined's ``[rank=3] ||``, a Ray worker's ``[rank=3] ``
    # a logging format's host and rank fields, then its level: ``2026-11-29 14:49:37,336 node-1 rank=3 ERROR <line>``
    # ParlAI's multiprocessing_train: ``rank: 3 | <time> CRITICAL | <line>``
    r"|(?:[A-Za-z0-9][\w.-]{0,62} )?rank(?:[=:]|: )(?P<rank_kv>\d{1,7}) (?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|\|)(?= )"
    r"|\[default(?P<local>\d{1,4})\]:"
    # torchrun's --tee prefix of a host-named role (``--role $(hostname -s): --tee 3``): ``[node1:4]:`` (a LOCAL rank)
    r"|" + TEE_HOST_CORE +
    r"|\[(?P<local_bare>\d{1,4})\]:(?=\S)"  # torchrun's --tee prefix of an empty role (torchx): [1]:text
    # torchx's <role>/<replica id> (local_cwd, `torchx log`); a role may start with a digit (NeMo-Run's ``0000-steps/0``,
    # batch 345) but holds a letter (not a count: ``12/24``)
    r"|(?=[\w-]{0,62}[A-Za-z_])[A-Za-z0-9_][\w-]{0,62}/\d{1,5}(?= )"
    r"|\[(?:\d{1,7},)?(?P<mpi>\d{1,7})\]<std(?:out|err)>:"  # mpirun [jobid,rank], horovodrun (gloo) [rank]
    # vLLM's worker processes: ``(VllmWorker rank=2 pid=4664)`` (its rank), ``(VllmWorker TP1 pid=…)``, ``(Worker_TP1_EP1 pid=…)``
    r"|\(VllmWorker rank=(?P<vllm_rank>\d{1,7}) pid=[^)\s]{1,40}\)"  # the pid may be masked (``pid=xxxxxx``)
    # vLLM's own front-end and engine-core processes (``(APIServer pid=1)``, ``(EngineCore_DP0 pid=271)``): no rank
    r"|\((?:APIServer|EngineCore(?:_[A-Z]{0,2}\d{1,5})?) pid=[^)\s]{1,40}\)"
    r"|\((?:VllmWorker |Worker_)(?P<vllm_tags>(?:DP|PP|TP|EP)\d{1,5}(?:[ _](?:DP|PP|TP|EP)\d{1,5}){0,3}) pid=[^)\s]{1,40}\)"
    # Ray's own processes; ``(TorchTrainer pid=…, ip=…)``: Ray Train's trainer actor, the driver of the worker group
    r"|\((?P<ray_own>\w{1,40}Controller|raylet|gcs_server|autoscaler|\w{1,40}Cleaner|\w{1,40}Watcher|\w{1,40}Trainer) ?[^)]{0,200}\)"
    # a process whose output Ray's log monitor relays to the driver: an actor's (``(RayWorkerWrapper pid=N, ip=…)``,
    # ``(WorkerDict pid=N)``), a task's (``(train_func pid=N)``) or a nameless one's (``(pid=N)``); its pid kept (a masked one,
    # ``pid=xxxxxx``, read as no pid)
    # Not vLLM's own worker processes (``(VllmWorkerProcess pid=…)``, ``(APIServer pid=…)``: they write to the same terminal)
    # a Ray actor that names its rank in its class's repr (``(MegatronPolicyWorker[rank=107] pid=N, ip=…)``): a rank tag
    r"|\([A-Za-z_][\w.]{0,80}\[rank=(?P<actor_rank>\d{1,7})\] pid=[^,)\s]{1,40}(?:, ip=[^)\s]{1,64})?\)"
    r"|\((?!VllmWorker|EngineCore|APIServer\b)(?:[A-Za-z_][\w.]{0,80} )?pid=(?:(?P<actor_pid>\d{1,9})|(?P<pid_masked>[^,)\s\d][^,)\s]{0,39}))"
    r"(?:, ip=[^)\s]{1,64})?\)"
    r"|\((?:RayTrainWorker|TrainTrainable|\w{1,40}Worker|\w{1,40}Actor)[^)]{0,200}\)"
    r"|\[(?P<bare_pid>\d{1,9})\](?=\s)"  # pid (logging's ``[%(process)d]``)
    r"|\[[A-Za-z][\w.:-]{0,252}\](?=\s)"  # [job-master-0], [trainer-7f9c-x2k4q], [INFO]
    r"|[A-Za-z0-9][\w.-]{0,252} >>"  # worker-0 >>
    r"|\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}:"  # 192.168.1.51:
    r"|[0-9a-f]{8}(?=\s+\[rank=)"  # Determined's trial/container id before its rank tag
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s{2,}(?=\S)"  # rich's level column (HF accelerate)
    # vLLM's logger: ``ERROR 08-05 14:13:44 [multiproc_executor.py:487]`` (its bracketed source location is then peeled as a tag)
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})?(?= \[[\w./-]{1,200}\.py:\d{1,6}\])"
    r"|[IWEF]\d{4} \d\d:\d\d:\d\d(?:\.\d{1,9})? {1,8}\d{1,9} [\w./<>-]{1,300}:\d{1,6}\]"  # c10/glog: torch.distributed.elastic's logger
    r")\s*"
)
#: Decoration a terminal multiplexer, a CI runner or Python's exception-group display puts
#: before a line: indentation, ``|`` / box-drawing bars, ``>`` quotes, ``*`` bullets.
_DECORATION = re.compile(r"[ \t]*(?:(?:[|│┃>*•]|[-+](?=[ \t]))[ \t]*){1,6}(?=\S)|[ \t]+(?=\[)")
#: srun's ``--label`` and ONE separator (a space, or a tab); what the task printed keeps its own indentation
#: (``2:   File "…", line 9, in f`` reads as the unlabelled ``  File "…"`` frame, rank 2)
#: mpirun's ``--tag-output`` / horovodrun's tag of one write (``[1,19]<stderr>:``, ``[3]<stdout>:``)
_WRITE_TAG = re.compile(r"\[(?:\d{1,7},)?\d{1,7}\]<std(?:out|err)>:")
_SRUN = re.compile(r"^\s{0,4}(?P<srun>\d{1,5}):[ \t](?=[ \t]{0,16}\S)")
_LOGURU_MID = re.compile(r"^\|?\s*(?:(?:TRACE|DEBUG|INFO|SUCCESS|WARNING|WARN|ERROR|CRITICAL)\s*)?\|\s*[\w.<>-]{1,200}:[\w<>]{1,100}:\d{1,6}\s+-\s+")
_SOURCE_AT_END = re.compile(r"\s{2,}[\w./<>-]{1,200}\.py:\d{1,6}\s*$")
#: Ray's log deduplication after a forwarded line: `` [repeated 2x across cluster]`` (+ its first-time hint): the same line
#: (its digits masked: pids, ranks, addresses) printed by N more processes; its colour codes around it (a terminal's paste)
_RAY_REPEATED = re.compile(r"(?:\x1b\[[0-9;]{0,16}m)*\s*\[repeated (\d{1,9})x across cluster\](?:\x1b\[[0-9;]{0,16}m)*"
                           r"(?: \(Ray deduplicates logs by default\..{0,400}\))?(?:\x1b\[[0-9;]{0,16}m)*\s*$")
_TQDM_GLUE = re.compile(r"^[^|\n]{0,120}\d{1,3}%\|[^|]{0,400}\|?(?:\s*[\d.]+[kMG]?/[\d.]+[kMG]?\s*\[[^\]]{0,80}\])?")
#: A whole tqdm bar: ``desc: 45%|███▌ | 450/1000 [01:23<01:42, 5.36it/s, loss=0.3]``
_TQDM_WHOLE = re.compile(r"^[^|\n]{0,120}\d{1,3}%\|[^|]{0,400}\|\s*[\d.]+[kMG]?/[\d.?]+[kMG]?\s*\[[^\]]{0,200}\]\s*(?=\S)")
_GLUED_START = re.compile(r"(?:WARNING|ERROR|INFO|CRITICAL|DEBUG):[\w.]{1,200}:|\[rank\d{1,7}\]:|[EWIF]\d{4} \d\d:\d\d:\d\d|Traceback \(most recent")
#: A prefix of the user's own before torch's ``[rankN]:`` tag: torchrun's ``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``
#: (``[trainer2|0]:``, ``trainer-1> ``), any wrapper's tag; torch prints that tag at the start of its own lines, so
#: what stands before it (one or two short words) is a prefix; a runner's name of the process then its stream
#: (milabench's ``<bench>.<node>[.<tag>] [stderr] [rank14]:``) is two
_BEFORE_RANK_TAG = re.compile(r"[^\s\[][^\s]{0,63}\s?(?=\[rank\d{1,7}\]:)|\[[^\s\]]{1,62}\][^\w\s\[]{0,2}\s?(?=\[rank\d{1,7}\]:)"
                              r"|[^\s\[][^\s]{0,63} \[std(?:out|err)\] ?(?=\[rank\d{1,7}\]:)")
MAX_PREFIXES = 8
#: ANSI escape sequences (CSI colour/cursor, OSC titles, two-byte escapes, character-set designations such as
#: ``ESC ( B`` that ``tput sgr0`` writes under xterm), and the SGR colour
#: codes a web page keeps when it drops the ESC byte (``[31m``, ``[0m``, ``[1;32m``).
ANSI = re.compile(r"\x1b\[[0-?]{0,32}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x1b[ -/]{1,3}[0-~]|\x1b"
                  r"|(?<![\w\[])\[(?:[0-9]|[1-4][0-9]|9[0-7]|10[0-7])(?:;[0-9]{1,3}){0,8}m")
#: What a user writes where a PID, host, IP, port or path was (the wordings accept it there).
MASK = (r"(?:[xX]{2,}|\*{3,}|…|\.{3}|\[REDACTED\]|REDACTED|redacted|<[A-Za-z][\w .-]{0,30}>|\$\{?[A-Z][A-Z_]{1,30}\}?"
        r"|(?:\d{1,3}|[xX*]{1,3})(?:\.(?:\d{1,3}|[xX*]{1,3})){3})")
_MASKED_VALUE = re.compile(
    r"(?:^|[^A-Za-z0-9])(?:[xX]{2,}|\*{2,}|…|\.{3}|REDACTED|redacted|<[A-Za-z][\w .-]{0,30}>|\$\{?[A-Z][A-Z_]{1,30}\}?)(?:$|[^A-Za-z0-9])"
    r"|(?:^|\.)[xX*]{1,3}(?:\.|$)")


@dataclass(frozen=True)
class Normalized:
    """The message left after the prefixes, and the identity they carried."""

    text: str
    rank: int | None = None
    local_rank: int | None = None
    stripped: int = 0
    pid: int | None = None  # a Ray worker's ``(RayTrainWorker pid=…)`` (its rank from the worker group) or a bare ``[pid]``
    relayed: bool = False  # behind Ray's prefix of a process its log monitor relays (``(… pid=N)``, ``(raylet)``): not the driver's own


def strip_ansi(text: str) -> str:
    """``text`` without ANSI colour/cursor codes (see ``ANSI``)."""
    return ANSI.sub("", text) if ("\x1b" in text or "m" in text and "[" in text) else text


def is_masked(value: str | None) -> bool:
    """Whether a host, IP, port or path value was redacted by the user (``xxxx``, ``<ip>``,
    ``10.0.x.x``, ``***``, ``[REDACTED]``, ``$HOST``...): it identifies nothing."""
    return bool(value) and _MASKED_VALUE.search(value) is not None


def unglue(text: str) -> str:
    """The last redraw of a carriage-return line; a log line glued behind a progress bar."""
    if "\r" in text:
        tail = text.rstrip("\r").rsplit("\r", 1)[-1]
        text = tail if tail.strip() else text
    if "%|" in text:
        whole = _TQDM_WHOLE.match(text)
        if whole:
            return text[whole.end():]
        bar = _TQDM_GLUE.match(text)
        if bar:
            glued = _GLUED_START.search(text, bar.end() - 1 if bar.end() else 0)
            if glued:
                return text[glued.start():]
    return text


def _sglang_rank(tags: str) -> int | None:
    """The rank an SGLang process prefix names: its TP rank, when no pipeline stage (or the first) and
    no data-parallel replica of its own (``DP1 TP0`` is replica 1's TP 0; with DP attention ``DP2 TP2``)."""
    parts = {tag[:2]: int(tag[2:]) for tag in tags.split()}
    tp = parts.get("TP")
    if tp is None or parts.get("PP", 0) != 0 or parts.get("DP", tp) != tp:
        return None
    return tp


#: torch's ``[rankN]:`` tag in front of the elastic agent's own glog record (``[rank1]:E0204 … torch/distributed/elastic/…]
#: failed (exitcode: -9) local_rank: 0 …``): the agent is no worker of the job; its tag is its rank in a group of its own
#: (torchrunx's launcher and agents), so it names no rank (the record names its worker by local rank or pid)
AGENT_TAGGED = re.compile(r"\[rank(\d{1,7})\]:[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9} +\d{1,10} \S{0,300}?torch/distributed/(?:elastic/|run\.py:|launcher/)")


def agent_tag(text: str) -> int | None:
    """The rank of torch's tag on the elastic agent's own record (``AGENT_TAGGED``), else None."""
    m = AGENT_TAGGED.search(text) if "torch/distributed/" in text and "[rank" in text else None
    return int(m.group(1)) if m else None


def normalize(text: str) -> Normalized:
    """Strip known prefixes from ``text`` (see the module doc)."""
    text = unglue(strip_ansi(text))
    deco = _DECORATION.match(text)
    start = deco.end() if deco else 0
    pos, rank, local, pid, relayed = _peel(text, start)
    if pos == start:
        s = _SRUN.match(text)
        if s:  # srun's --label, then what the task printed in front: torch's [rankN]: names the same rank; a launcher's
            # local-rank tag ([default3]:) says the task was that node's launcher, so the label is no rank
            pos, rank, local, pid, relayed = _peel(text, s.end())
            rank = rank if rank is not None or local is not None else int(s.group("srun"))
    if rank is not None and agent_tag(text) is not None:
        rank = None  # the elastic agent's own record, tagged with the agent's rank (AGENT_TAGGED)
    body = text[pos:]
    if "]<std" in body:  # the line's own write tag again where a later write of it began (module doc)
        for tag in sorted(set(_WRITE_TAG.findall(text, start, pos))):
            body = body.replace(tag, "")
    if body.startswith("{"):
        record = unjson(body)  # a structured (JSON) record: its message or exception, and its rank
        if record is not None:
            body = record[0]
            rank = rank if rank is not None else record[1]
            local = local if local is not None else record[2]
    loguru = _LOGURU_MID.match(body)
    if loguru:
        body = body[loguru.end():]
    body = _SOURCE_AT_END.sub("", body)
    if "across cluster]" in body:
        body = _RAY_REPEATED.sub("", body)
    return Normalized(body, rank, local, pos, pid, relayed)


def ray_repeated(text: str) -> tuple[str, int | None]:
    """``text`` without Ray's dedup note at its end and the N of `` [repeated Nx across cluster]`` (None: no note): the
    line stands for N + 1 processes' alike lines (Ray's ``RAY_DEDUP_LOGS``), the message the same with and without it."""
    m = _RAY_REPEATED.search(text) if "across cluster]" in text else None
    return (text[:m.start()], int(m.group(1))) if m else (text, None)


def _peel(text: str, pos: int) -> tuple[int, int | None, int | None, int | None, bool]:
    """The prefixes of ``text`` from ``pos`` on: where the message starts, the rank, local rank and pid they name, and
    whether one is Ray's prefix of a process whose output its log monitor relays."""
    rank: int | None = None
    local: int | None = None
    pid: int | None = None
    relayed = False
    for _ in range(MAX_PREFIXES):
        m = _PREFIX.match(text, pos)
        if (not m or m.end() == pos) and rank is None and "[rank" in text:
            custom = _BEFORE_RANK_TAG.match(text, pos)
            m = _PREFIX.match(text, custom.end()) if custom else None
        if not m or m.end() == pos:
            break
        if m.group("rank") or m.group("rank_eq") or m.group("rank_kv") or m.group("mpi"):
            rank = int(m.group("rank") or m.group("rank_eq") or m.group("rank_kv") or m.group("mpi"))
        if m.group("local") or m.group("local_bare") or m.group("tee_local"):
            local = int(m.group("local") or m.group("local_bare") or m.group("tee_local"))
        if m.group("sgl") or m.group("vllm_tags"):
            rank = _sglang_rank((m.group("sgl") or m.group("vllm_tags")).replace("_", " "))
        if m.group("vllm_rank") or m.group("actor_rank"):
            rank = int(m.group("vllm_rank") or m.group("actor_rank"))
        if m.group("actor_pid") or m.group("bare_pid"):
            pid = int(m.group("actor_pid") or m.group("bare_pid"))
        if m.group("actor_pid") or m.group("pid_masked") or m.group("ray_own") or m.group("actor_rank"):
            relayed = True
        pos = m.end()
    return pos, rank, local, pid, relayed


__all__ = ["AGENT_TAGGED", "ANSI", "MASK", "Normalized", "TEE_HOST", "agent_tag", "is_masked", "normalize", "ray_repeated", "strip_ansi", "unglue"]
