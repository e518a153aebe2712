"""More launchers' reports of how a process ended, and of a launch that never started a process.

Called by ``log_failures.launcher_exit`` for a line none of its own wordings matched:

* MosaicML Composer's launcher (``composer train.py …``) names the **global** rank of the process
  that ended: ``ERROR:composer.cli.launcher:Rank 2 crashed with exit code -7.`` (Composer < 0.17)
  and ``Global rank 0 (PID 208865) exited with code -11`` (later); it then tears the others down
  (``Waiting up to 30 seconds for all training processes to terminate``);
* Ray's memory monitor, in the raylet's summary (``1 Workers (tasks / actors) killed due to memory pressure (OOM), … at
  node (ID: …, IP: …)``): workers killed for the node's host memory, which ones not said (a SIGKILL of no rank);
* vLLM V1's multiprocess executor on a worker that died without raising: ``Worker proc
  VllmWorker-1 died unexpectedly, shutting down executor.`` (the worker's index is its rank in the
  executor; the others then log ``Parent process exited, terminating worker``);
* a launch that never started any process: Slurm's ``slurmstepd: error: execve(): torchrun: No such
  file or directory``, a container runtime's ``exec: "torchrun": executable file not found in
  $PATH`` and a shell's ``torchrun: command not found`` (``launch_failed``): srun's ``task N`` that
  ends right after is the launcher that could not be run, not rank N (queries/_incident.sql); and a worker
  whose interpreter could not open its script (``python3: can't open file 'train.py': [Errno 2] …``,
  ``cant_open``, called by ``log_classify``): every process's, as the command line is (common mode);
* torch elastic's ``@record`` wrapper around the launcher, on the first failure of a worker that
  wrote no error file: ``local_rank 1 FAILED with no error file. Decorate your entrypoint fn with
  @record …`` (PyTorch 1.x) and, from 2.x on, the same message logged as an unformatted tuple,
  ``('local_rank %s FAILED with no error file. …', 2)``. Despite its wording the number is the
  failure's **global** rank (the key of ``ChildFailedError.failures``, the failure table's
  ``rank``); how the process ended is not said (the agent's ``failed (exitcode: …)`` line, when
  it is in the log, says it, and then this line is dropped: queries/_incident.sql). PyTorch 1.9's
  wrapper instead warns with a box (real incidents batch 35): ``CHILD PROCESS FAILED WITH NO ERROR_FILE``,
  then ``Child process 71952 (local_rank 0) FAILED (exitcode 1)``: the same global rank (mislabelled
  ``local_rank`` alike), the worker's pid, and its exit status (negative for a signal);
* PaddlePaddle's launchers (real incidents batch 19): ``python -m paddle.distributed.launch`` on the
  first failed worker of its node, ``Container rank 0 status failed cmd ['/usr/bin/python3', …] code 1
  log log/workerlog.0`` (a container's rank is its index in the node's pod: the **local** rank; the code
  is the process's exit status, negative for a signal), and the legacy ``paddle.distributed.launch`` /
  fleet launcher's ``ABORT!!! Out of all 8 trainers, the trainer process with rank=[3] was aborted``
  (the **global** ranks it found ended with a non-zero status at one poll, one event each from
  ``paddle_aborted``; how they ended is not said; ``N`` is the world: a strict subset of it is those
  ranks' own failure, the whole world no single culprit, queries/_incident.sql);
* PyTorch Lightning / Fabric's launcher (real incidents batch 25): its main process (local rank 0) starts the
  node's other processes as children and watches them; on the first child that ended with a non-zero status
  it logs ``[rank: 3] Child process with PID 11479 terminated with code 1. Forcefully terminating all other
  processes to avoid zombies 🧟`` and kills the rest. The ``[rank: N]`` prefix is the child's **local** rank
  (children are local ranks 1 … n-1, numbered from 1), not the printing process's; the code is the child's
  exit status (Popen's: negative for a signal). A line without that prefix names no process.
* Huawei HCCL (Ascend NPUs, real incidents batch 26) on a rank whose heartbeat its peers lost (its
  process exited, or its network went down): the error every surviving rank logs, ``Cluster Exception
  Location[IP/ID]:[90.90.92.240/1], Arrival Time:[…], Discoverer:[90.90.92.240/0], ExceptionType:[Heartbeat
  Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected``, and its trace line
  ``rank [127.10.0.1/1]: rank [127.10.0.1/9] status[LOST] by rank [127.10.0.1/1]``: the number after the
  slash is the lost process's rank; how it ended is not said. HCCL's other exception types (``Stuck
  Occurred``: a hang, ``Error cqe Occurred``: the network) name no dead process and are not read.
* MindSpore's ``msrun`` (Ascend, real incidents batch 50): its scheduler on a worker whose heartbeat it lost, ``The
  node: 3 is timed out. It may exit with exception, please check this node's log.``, and msrun's own analysis after
  a failed job, ``Time out nodes are ['3']`` (the list of those lines' node ids). A node id is the worker's **global**
  rank (msrun exports it as ``RANK_ID``); how the process ended is not said. Two or more nodes in one list timed out
  together: no one rank is named; a node id that is not a number (MindSpore's own, when msrun assigns none) is no rank.

* ``kubectl exec``'s own line when the command it ran in a pod ends non-zero, ``command terminated with exit code
  137`` (real incidents batch 56): read only where the line carries a launcher's rank tag (horovodrun's
  ``[0]<stderr>:``, mpirun's ``--tag-output`` ``[1,0]<stderr>:``), i.e. a launcher that starts each rank through
  ``kubectl exec`` (Horovod's elastic runner on Kubernetes) and relays that rank's stream: the exit status of that
  rank's process (128 + N: killed by signal N). Untagged, the line is a launcher's own ``kubectl exec`` of a daemon
  (MPIJob's ``kubexec.sh`` starting ``orted`` in a worker pod), which holds ranks the line does not list: no rank.

* HPE Cray PALS' ``mpiexec`` (Aurora, Polaris, Sunspot; real incidents batch 34) on each process of the job that
  ended, in the order it saw them: ``x4512c5s2b0n0: rank 6 exited with code 1`` (an exit status) and ``rank 0 died
  from signal 11 and dumped core`` / ``rank 11 died from signal 15`` (a signal, with a core file or not). The number
  is the process's **global** (MPI) rank; the host prefix is optional (a paste may drop it). The first such line
  is the first process to end; the rest (SIGTERM, SIGKILL) are usually the launcher tearing the job down.

* Slurm ending a job or its step (real incidents batch 31; ``log_slurm``).
* A scheduler's word that the job's pods cannot be placed (``log_sched_pending``), a GPU container runtime's that they
  cannot start (``log_container_start``).

The "first process to do so was" report (``FIRST_PROCESS``, read by ``log_failures.launcher_exit``) names
the rank whose exit made the launcher end the job: Open MPI 4 ``Process name: [[job,1],rank]``, PRRTE /
Open MPI 5 ``Process name: [prterun-host-pid@job,rank]``, Horovod's and Gloo's runners ``Process name: rank``
(a bare number); its ``Exit code: N`` line (``FIRST_PROCESS_EXIT``) follows it, or, in a log collector that
sorts the lines of one second (Determined's), comes just before it.
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import MASK, normalize
from k10s_forensics.parsers.log_container_start import container_start
from k10s_forensics.parsers.log_sched_pending import scheduler_pending
from k10s_forensics.parsers.log_slurm import slurm_stop

Event = dict[str, Any]

#: kubectl exec on the command it ran in a pod (the line's whole text once a launcher's rank tag is taken off)
KUBECTL_EXEC_EXIT = re.compile(r"^command terminated with exit code (\d{1,3})\s*$")
#: Composer's launcher: ``Rank 2 crashed with exit code -7.`` / ``Global rank 0 (PID 208865) exited with code -11``
COMPOSER_EXIT = re.compile(r"\b(?:Global rank|Rank) (\d{1,7}) (?:\(PID (\d{1,10})\) exited|crashed) with (?:exit )?code (-?\d{1,3})\b")
FIRST_PROCESS = re.compile(r"Process name: (?:\[\[\d+,\d+\],(\d+)\]|\[[^\]\s@]{1,300}@\d+,(\d+)\]|(\d{1,7})\s*$)")
FIRST_PROCESS_EXIT = re.compile(r"\bExit code:\s*-?\d+\s*$")
#: Cray PALS' mpiexec: ``host: rank 6 exited with code 1``, ``rank 0 died from signal 11 and dumped core``
PALS_EXIT = re.compile(r"(?:^|[\s:])rank (\d{1,7}) (?:exited with code (-?\d{1,3})|died from signal (\d{1,2}))\b(?: and (dumped core))?")
#: Ray's memory monitor (the raylet's summary): ``1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers
#: crashed due to other reasons at node (ID: …, IP: 10.76.236.66) over the last time period.``
RAY_MEMORY_KILLED = re.compile(r"\b(\d{1,6}) Workers \(tasks / actors\) killed due to memory pressure \(OOM\)(?:.{0,400}?\bIP: ([^)\s]{1,64})\))?")
#: vLLM V1's executor: ``Worker proc VllmWorker-1 died unexpectedly, shutting down executor.``; its client of a
#: data-parallel deployment: ``Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.`` (the engine's
#: data-parallel index, ms-swift#7933)
VLLM_WORKER_DIED = re.compile(r"\b(Worker proc VllmWorker-|Engine core proc EngineCore_DP)(\d{1,5}) died unexpectedly\b")
#: the program could not be executed at all: Slurm's step daemon, a container runtime (OCI), a shell
LAUNCH_FAILED = (
    ("execve", re.compile(r"\bslurmstepd(?:-[\w.-]{1,100})?: error: execve\(\): ([^:\s]{1,200}): (.{1,200}?)\s*$")),
    ("oci_exec", re.compile(r"\bexec: \"([^\"]{1,200})\": (executable file not found in \$PATH)")),
    ("command_not_found", re.compile(r"(?:^|\s|:)([\w.+-]{1,100}): (command not found)\s*$")),
)

#: torch elastic's ``@record`` on a failure without an error file: ``local_rank 1 FAILED with no error file``,
#: or (PyTorch 2.x) the logged tuple ``('local_rank %s FAILED with no error file. … errors.html', 2)``
NO_ERROR_FILE = re.compile(r"\blocal_rank (\d{1,7}|%s) FAILED with no error file\b(?:.{0,400}?['\"]\s*,\s*(\d{1,7})\s*\))?")
#: PyTorch 1.9's box of the same: ``Child process 71952 (local_rank 0) FAILED (exitcode 1)`` (global rank, pid, status)
NO_ERROR_FILE_BOX = re.compile(r"\bChild process (\d{1,10}|" + MASK + r") \(local_rank (\d{1,7})\) FAILED \(exitcode (-?\d{1,3})\)")
#: Lightning's child-process observer: ``[rank: 3] Child process with PID 11479 terminated with code 1. …``
LIGHTNING_CHILD = re.compile(r"(?:\[rank: (\d{1,5})\] )?Child process with PID (\d{1,10}|" + MASK + r") terminated with code (-?\d{1,3})\b")
#: Paddle's launcher on its node's first failed worker: ``Container rank 0 status failed cmd [...] code 1 log log/workerlog.0``
PADDLE_CONTAINER = re.compile(r"\bContainer rank (\d{1,5}) status failed cmd .{0,4000}? code (-?\d{1,3}) log \S")
#: HCCL on a rank whose heartbeat was lost: its cluster exception report, and its heartbeat trace line
HCCL_LOST = (re.compile(r"Cluster Exception Location\[IP/ID\]:\[[^\]/\s]{1,253}/(\d{1,7})\][^\n]{0,400}?ExceptionType:\[Heartbeat Lost Occurred\]"),
             re.compile(r"\brank \[[^\]/\s]{1,253}/(\d{1,7})\] status\[LOST\]"))
#: CANN's older wording of the same verdict, under ``there are(is) 1 abnormal device(s):``: ``serverId[10.*.*.*],
#: deviceId[0], Heartbeat Lost Occurred, Possible Reason: 1. Process has exited, 2. Network Disconnected`` (the device on
#: that server: a local rank, not a rank; batch 343)
HCCL_LOST_DEVICE = re.compile(r"\bserverId\[[^\]\s]{1,253}\], deviceId\[(\d{1,4})\], Heartbeat Lost Occurred\b")
#: MindSpore's scheduler / msrun on a lost worker: ``The node: 3 is timed out.``, ``Time out nodes are ['3']`` (or ``[‘3’]``:
#: a chat's editor made the one quoted id typographic, too few quotes for log_quotes to straighten)
MSRUN_TIMED_OUT = (re.compile(r"\bThe node: (\d{1,7}) is timed out\b"),
                   re.compile(r"\bTime out nodes are \[((?:['\u2018\u2019][^'\u2018\u2019\]]{0,100}['\u2018\u2019](?:, )?){0,64})\]"))
#: Paddle's legacy launcher: ``ABORT!!! Out of all 8 trainers, the trainer process with rank=[3] was aborted.``
PADDLE_ABORT = re.compile(r"\bthe trainer process with rank=\[([\d, ]{1,200})\] was aborted\b")


def launcher_report(text: str) -> Event | None:
    """The event of one line of the launchers above (None: not theirs)."""
    m = COMPOSER_EXIT.search(text) if "with" in text and "ank " in text else None
    if m:
        return {"kind": "process_exit", "subkind": "composer", "rank": int(m.group(1)),
                "pid": int(m.group(2)) if m.group(2) else None, "exit_code": int(m.group(3))}
    pals = _pals(text) if "rank " in text and (" exited with code " in text or " died from signal " in text) else None
    if pals:
        return pals
    m = RAY_MEMORY_KILLED.search(text) if "killed due to memory pressure" in text else None
    if m and int(m.group(1)) > 0:  # which worker (rank) it killed the summary does not say: a host OOM kill of no rank
        where = f" on node {m.group(2)}" if m.group(2) else ""
        return {"kind": "process_exit", "subkind": "ray_memory_monitor", "exit_code": -9,
                "error_message": f"Ray's memory monitor killed {m.group(1)} worker(s){where} for the node's host memory"}
    m = VLLM_WORKER_DIED.search(text) if "died unexpectedly" in text else None
    if m:  # how it died is not said (no exit status)
        who = "executor: worker process VllmWorker-" if m.group(1).startswith("Worker") else "client: engine core process EngineCore_DP"
        return {"kind": "process_exit", "subkind": "vllm_worker_died", "rank": int(m.group(2)), "exit_code": None,
                "error_message": f"vLLM's {who}{m.group(2)} died unexpectedly"}
    m = NO_ERROR_FILE.search(text) if "FAILED with no error file" in text else None
    if m and (m.group(1) != "%s" or m.group(2)):
        rank = int(m.group(2) or m.group(1))  # the failure's global rank, whatever the wording says
        return {"kind": "process_exit", "subkind": "elastic_no_error_file", "rank": rank, "exit_code": None,
                "error_message": f"torch elastic: rank {rank} failed without an error file (exit status not in this line)"}
    m = NO_ERROR_FILE_BOX.search(text) if ") FAILED (exitcode" in text else None
    if m:  # the failure's global rank, its pid (a pasted log may mask it) and exit status
        return {"kind": "process_exit", "subkind": "elastic_no_error_file", "rank": int(m.group(2)),
                "pid": int(m.group(1)) if m.group(1).isdigit() else None, "exit_code": int(m.group(3))}
    m = LIGHTNING_CHILD.search(text) if "Child process with PID" in text else None
    if m and m.group(1) is not None:  # the child's local rank (the prefix), its pid and exit status
        pid = int(m.group(2)) if m.group(2).isdigit() else None  # a pasted log may mask it
        return {"kind": "process_exit", "subkind": "lightning_child", "local_rank": int(m.group(1)), "pid": pid,
                "exit_code": int(m.group(3))}
    lost = _hccl_lost(text) if "Heartbeat Lost" in text or "status[LOST]" in text else None
    if lost:
        return lost
    lost = _msrun_timed_out(text) if "timed out" in text or "Time out nodes" in text else None
    if lost:
        return lost
    paddle = _paddle(text) if "Container rank" in text else None
    if paddle:
        return paddle
    kexec = _kubectl_exec(text) if "command terminated with exit code " in text else None
    if kexec:
        return kexec
    slurm = slurm_stop(text)  # each of its wordings checked by a substring first
    if slurm:
        return slurm
    pending = scheduler_pending(text) or container_start(text)  # a scheduler's word the pods cannot be placed, a runtime's they cannot start
    if pending:
        return pending
    for sub, rx in LAUNCH_FAILED if ("execve" in text or "exec: " in text or "command not found" in text) else ():
        m = rx.search(text)
        if m:
            return {"kind": "launch_failed", "subkind": sub, "error_message": f"{m.group(1)}: {m.group(2)}"[:300], "_no_rank": True}
    return None


#: the interpreter that could not open the script it was given (``/usr/bin/python3: can't open file 'train.py': [Errno 2] No
#: such file or directory``, exit status 2): every process of the launch runs that command line (IDiff-Face#6, batch 270)
CANT_OPEN = re.compile(r"^(?:[A-Za-z]:)?[^\s:]{0,400}python[\w.]{0,12}: can't open file ['\"]?([^\n]{1,400}?)['\"]?: \[Errno (\d{1,4})\] ([^\n]{1,200}?)\s*$")
#: the interpreter that could not find the module ``-m`` named (``/usr/bin/python3: No module named run``, the command line
#: run outside the package's directory; clvrai/skill-chaining#4, batch 406): the same for every process, as a script it cannot
#: open; searched, not anchored: the interpreter writes it after whatever unterminated output came first (an X11 warning)
NO_MODULE = re.compile(r"(?:[A-Za-z]:)?[^\s:]{0,400}python[\w.]{0,12}: No module named ([\w.]{1,200})\s*$")


def cant_open(message: str) -> Event | None:
    """Python's report of a script it could not open (or of the module ``-m`` named that it could not find), as a Python
    failure of its own (``queries/_incident_common_mode.sql`` reads it as every process's, as an argparse usage error is);
    None for any other line."""
    m = CANT_OPEN.match(message) if "can't open file" in message else None
    if m is None:
        m = NO_MODULE.search(message) if ": No module named " in message else None
        return {"kind": "python_exception", "subkind": "raised", "error_type": "python -m module not found",
                "error_message": f"No module named {m.group(1)}"[:300]} if m else None
    return {"kind": "python_exception", "subkind": "raised", "error_type": "python can't open file",
            "error_message": f"{m.group(1)}: [Errno {m.group(2)}] {m.group(3)}"[:300]}


def _kubectl_exec(text: str) -> Event | None:
    """kubectl exec's exit status of a rank's command, on a line a launcher tagged with that rank (None untagged)."""
    norm = normalize(text)
    m = KUBECTL_EXEC_EXIT.match(norm.text) if norm.rank is not None else None
    return {"kind": "process_exit", "subkind": "kubectl_exec", "exit_code": int(m.group(1))} if m else None


def _pals(text: str) -> Event | None:
    """PALS' mpiexec on a process that ended: its global rank and exit status (a signal as its negative number)."""
    m = PALS_EXIT.search(text)
    if m is None:
        return None
    code = int(m.group(2)) if m.group(2) is not None else -int(m.group(3))
    if code == 0:  # a clean exit says nothing
        return None
    event: Event = {"kind": "process_exit", "subkind": "pals_mpiexec", "rank": int(m.group(1)), "exit_code": code}
    if m.group(4):
        event["error_message"] = f"mpiexec: rank {m.group(1)} died from signal {m.group(3)} and dumped core"
    return event


def _hccl_lost(text: str) -> Event | None:
    """HCCL's report of a rank whose heartbeat was lost: that rank's process ended (how is not said)."""
    for rx in HCCL_LOST:
        m = rx.search(text)
        if m:
            rank = int(m.group(1))
            return {"kind": "process_exit", "subkind": "hccl_heartbeat_lost", "rank": rank, "exit_code": None,
                    "error_message": f"HCCL: rank {rank}'s heartbeat was lost (its process exited or its network went down)"}
    m = HCCL_LOST_DEVICE.search(text) if "deviceId[" in text else None
    if m:
        device = int(m.group(1))
        # (a surviving process prints it: its own rank tag is not the device's)
        return {"kind": "process_exit", "subkind": "hccl_heartbeat_lost", "local_rank": device, "exit_code": None, "_no_rank": True,
                "error_message": f"HCCL: device {device}'s heartbeat was lost (its process exited or its network went down)"}
    return None


def _msrun_timed_out(text: str) -> Event | None:
    """MindSpore's scheduler / msrun on the one worker whose heartbeat was lost: that rank ended (how is not said)."""
    m = MSRUN_TIMED_OUT[0].search(text)
    ids = [m.group(1)] if m else []
    m = MSRUN_TIMED_OUT[1].search(text) if not ids else None
    ids = re.findall(r"['\u2018\u2019]([^'\u2018\u2019]*)['\u2018\u2019]", m.group(1)) if m else ids  # an editor's quotes too
    if len(ids) != 1 or not ids[0].isdigit():  # several timed out together, or no rank
        return None
    rank = int(ids[0])
    return {"kind": "process_exit", "subkind": "msrun_timed_out", "rank": rank, "exit_code": None,
            "error_message": f"MindSpore's scheduler timed out node {rank} (its process exited or hung)"}


def _paddle(text: str) -> Event | None:
    """Paddle's new launcher's failed container: its local rank, its exit status (the legacy one's aborted
    trainers: ``paddle_aborted``, several events from one line)."""
    m = PADDLE_CONTAINER.search(text)
    if m:
        return {"kind": "process_exit", "subkind": "paddle_container", "local_rank": int(m.group(1)), "exit_code": int(m.group(2))}
    return None


def paddle_aborted(text: str) -> list[Event]:
    """Paddle's legacy launcher's ``ABORT!!! Out of all 4 trainers, the trainer process with rank=[1, 2, 3] was
    aborted.``: one event per global rank it found ended with a non-zero status at one poll (how is not said). The
    line's ``Out of all N trainers`` (the world) stays in the line: queries/_incident.sql reads a strict subset of it
    as those ranks' own failure and the whole world as no single culprit."""
    m = PADDLE_ABORT.search(text) if "was aborted" in text else None
    ranks = sorted({int(r) for r in m.group(1).replace(" ", "").split(",") if r}) if m else []
    which = f"trainer process rank {ranks[0]} was" if len(ranks) == 1 else f"trainer processes of ranks {', '.join(map(str, ranks))} were"
    return [{"kind": "process_exit", "subkind": "paddle_abort", "rank": r, "exit_code": None,
             "error_message": f"Paddle's launcher: {which} aborted (exit status not in this line)"} for r in ranks]


__all__ = ["COMPOSER_EXIT", "FIRST_PROCESS", "FIRST_PROCESS_EXIT", "HCCL_LOST", "HCCL_LOST_DEVICE", "LAUNCH_FAILED", "LIGHTNING_CHILD", "MSRUN_TIMED_OUT", "NO_ERROR_FILE", "NO_ERROR_FILE_BOX", "PADDLE_ABORT",
           "PADDLE_CONTAINER", "PALS_EXIT",
           "VLLM_WORKER_DIED", "launcher_report", "paddle_aborted"]
