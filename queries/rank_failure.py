"""Narrative for rank-failure findings (the decision is in _incident.sql)."""

from __future__ import annotations

import re
import signal
from typing import Any

from k10s_forensics.output import ABSENT
from k10s_forensics.queries._narrative import LOADER_LOST_WHAT, known, ranks_text
from k10s_forensics.queries._rank_failure_why import LOW_WHY, MEDIUM_WHY

WHAT = {
    "host-oom-kill": "was killed by SIGKILL (exit -9) without a SIGTERM from the launcher first: the host's OOM killer",
    "segfault": "crashed with a segmentation fault (SIGSEGV, exit -11)",
    "sigbus": "crashed with SIGBUS (exit -7): a bad memory mapping, typically /dev/shm too small or a truncated file",
    "sigfpe": "crashed with SIGFPE (exit -8)",
    "sigill": "crashed with SIGILL (exit -4): an illegal instruction, typically a binary built for another CPU",
    "sigterm": "was stopped by a SIGTERM (exit -15) that its launcher did not send: from outside the job",
    "host-oom": "ran out of host memory (a MemoryError or the CPU allocator's failure)",
    "abort": "aborted (SIGABRT, exit -6) without a watchdog timeout of its own",
    "cuda-error": "hit a CUDA error",
    "python-exception": "raised a Python exception",
    "nccl-error": "hit a NCCL error",
    "collective-mismatch": ("did not match the other ranks' collectives (DDP's model check or the collective fingerprint check "
                            "across ranks, or a collective the others were not in): a model or a collective call that differs by rank"),
    "rank-dead": "was declared dead by its peers' heartbeat monitor (HCCL's Heartbeat Lost: the process exited or its network went down)",
}
TITLE = {
    "host-oom-kill": "was killed by the host's OOM killer",
    "segfault": "crashed (segmentation fault)",
    "sigbus": "crashed (SIGBUS)",
    "sigfpe": "crashed (SIGFPE)",
    "sigill": "crashed (SIGILL)",
    "sigterm": "was stopped by an outside SIGTERM",
    "host-oom": "ran out of host memory",
    "abort": "aborted",
    "cuda-error": "hit a CUDA error",
    "python-exception": "raised an exception",
    "nccl-error": "hit a NCCL error",
    "collective-mismatch": "did not match the other ranks' collectives",
    "rank-dead": "was declared dead by its peers",
}
FIX = {
    "host-oom-kill": "Raise the pod's memory limit or the node's free memory; reduce data-loader workers, prefetch and CPU offload on that rank; check `dmesg` on the node for the OOM-killer line.",
    "host-oom": "Raise the pod's memory limit (and any ulimit -v); reduce data-loader workers, prefetch and what that rank holds in host memory.",
    "sigterm": "Find who sent it: a user's kill, a node agent, a preStop hook or a sidecar in the pod; the launcher's own SIGTERMs are logged.",
    "sigill": "Check the binaries (and wheels) against the node's CPU: an instruction set the CPU lacks (AVX-512) or a corrupt build.",
    "sigbus": "Give the pod a larger /dev/shm (an emptyDir with medium: Memory) and check the files it memory-maps.",
    "segfault": "Get a core dump or faulthandler trace of that rank (PYTHONFAULTHANDLER=1); check native extensions and the driver/CUDA versions on its node.",
    "cuda-error": "Drain the node and check the GPU (see gpu-health, dmesg Xids); restart from the last checkpoint on healthy nodes.",
    "python-exception": "Read that rank's traceback; the other ranks' errors are the teardown, not the cause.",
    "collective-mismatch": "Make that rank build the same model and call the same collectives as the others: a config, checkpoint or code path that differs by rank (a layer size, a frozen or extra module, a save or eval step one rank runs) changes its parameters or its calls.",
    "sigsys": "A system call the container's seccomp profile forbids: check the pod's securityContext.seccompProfile and the runtime's default profile against what that rank's libraries call.",
    "sigxcpu": "A CPU-time limit (ulimit -t, RLIMIT_CPU) ran out: check the limits the container or the batch system sets.",
    "sigxfsz": "A file-size limit (ulimit -f, RLIMIT_FSIZE) was hit, often by a checkpoint or log: check the container's limits.",
}

#: filelock's timeout (parsers/log_py_exceptions.FILELOCK_TIMEOUT): the rank waited on a lock file another process held
FILELOCK_FIX = ("The rank timed out waiting for a file lock another process held: find who holds it (`lsof <lock>` or "
                "`fuser <lock>` on the host that shares the directory; another job or rank preparing the same cache, e.g. "
                "a datasets map or a download, under the lock), or a stale `.lock` a killed run left behind (remove it when "
                "no process holds it); give each job its own cache directory, or let one rank prepare it before the others.")

#: NCCL's queue pair that would not come up (parsers/log_comm_lines._IB_QP_SETUP): the fabric's or the host's set-up
IB_QP_FIX = ("Check the HCA and port of the host printing it and of its peers: `ibstat` / `ibv_devinfo` (port state Active, "
             "link layer), the GID index and RoCE version (NCCL_IB_GID_INDEX, `show_gids`), which HCAs NCCL uses (NCCL_IB_HCA) "
             "and, on a rail-only fabric, NCCL_CROSS_NIC=0; `ibv_rc_pingpong` between the two hosts tests the path.")

IB_QP_LINE = re.compile(r"Call to ibv_modify_qp failed with [^,]{1,80}")

NODE_LOST_FIX = ("Find what took the node (a drain, a spot or preemptible reclaim, the autoscaler, a kubelet or hardware "
                 "failure: the node's events and the autoscaler's log) and resume from the last checkpoint on healthy nodes.")

#: a CUDA error's fix by its kind (parsers/log_patterns_cuda.py CUDA_KINDS), where it is not the GPU's: the program's or
#: the software stack's (FIX["cuda-error"] stays the GPU's own: ECC, fallen off the bus, an Xid)
CUDA_FIX = {
    "device-assert": "A kernel's assertion: an index or label out of range in that rank's batch (token ids beyond the "
                     "embedding size, class labels beyond the classes, padding ids). Rerun with CUDA_LAUNCH_BLOCKING=1 to "
                     "see the failing op, and check the data and config; the GPU is not at fault unless an Xid says so.",
    "illegal-address": "A kernel read or wrote memory it does not own (an illegal or misaligned address): a kernel's or "
                       "library's bug, or its inputs (shapes, dtypes). Rerun with CUDA_LAUNCH_BLOCKING=1 and compute-sanitizer "
                       "on that rank; drain the node only if an Xid (13, 31, 43, 79, 94/95) or ECC errors say the GPU faulted.",
    "stack-mismatch": "The build does not fit the GPU or driver: check the CUDA/NCCL/PyTorch wheels' architectures against "
                      "the GPU (torch.cuda.get_arch_list(), nvidia-smi), the driver against the CUDA runtime, and every "
                      "node's image; a newer GPU generation needs builds that include it.",
}

#: ranks failed together known only by launchers' exit tables (rank_failure.sql exit_tables_status, session 66)
JOB_WIDE = "no single culprit (a node- or job-wide cause)"
OUTPUT_ELSEWHERE = ("The ranks' own output (their exceptions and errors) is not in these logs: torchrun's `--redirects` "
                    "(or a program logging to files) keeps it elsewhere; give k10s the `--log-dir` folder beside the "
                    "consoles (import-logs takes a folder, tar or zip: docs/import.md) to name a culprit.")
#: the same, one rank named by a launcher's table alone: whether it failed on its own or on a peer's failure is not seen
OWN_OUTPUT_ELSEWHERE = ("No rank's own output is in these logs (torchrun's `--redirects`, or a program logging to files, keeps "
                        "it elsewhere): its exit status alone cannot say whether it failed on its own or on a peer's failure; "
                        "give k10s the `--log-dir` folder beside the consoles to see why.")

#: (session 71) a node's log went silent (no failure report of its own) while a rank elsewhere was reported exiting
NODE_SILENT_FIX = ("Find out how the silent node ended: its pod's status and exit code (137: killed), the node's events and "
                   "kernel log (an OOM kill of the launcher, a host crash or reboot, a spot reclaim or preemption); the "
                   "reported rank's exit is likely its lost peers' consequence. The ranks' own output, if torchrun's "
                   "`--redirects` kept it in `--log-dir` files, says how each one failed.")

#: (session 72) every failure line a victim's (waits, peers lost): the process they waited for printed nothing
VICTIMS_ONLY_FIX = ("Find the process that ended first without a line: the pods' and containers' exit codes and reasons "
                    "(137 / OOMKilled: killed), the nodes' kernel logs (`dmesg`: the OOM killer), and its own output if the "
                    "program or launcher wrote it elsewhere (torchrun's `--log-dir`, a rank-tagged log file); print each "
                    "line with its rank (a logging format or torchrun's `--tee 3`) so the next failure names its process. If "
                    "no process is missing (each printed its wait), check the network between the nodes instead.")

#: an exit read by its rank's last ERROR record just before it (queries/_failure_line.sql's said_exit, session 65)
LOGGED_ERROR = "logged error"
#: (session 67) an exit read by its rank's last own line, a message alone (an error's wording; session 68: any handler's
#: sentence), just before its exit of a status its program chose (2..125)
LOGGED_MESSAGE = "logged message"


def _signal_words(cause: str) -> str | None:
    """``sigsys`` -> "was killed by SIGSYS (exit -31)"; ``signal-40`` -> "was killed by signal 40"."""
    if cause.startswith("signal-"):
        return f"was killed by signal {cause.removeprefix('signal-')}"
    name = cause.upper()
    number = signal.Signals[name].value if name in signal.Signals.__members__ else None
    return f"was killed by {name}" + (f" (exit -{number})" if number else "") if cause.startswith("sig") else None


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    cause = finding["cause"] or "exit"
    # (session 71) a failure table's traceback field naming a DataLoader worker's kill (rank_failure.sql's column, the
    # wording's only reader: kept out of the evidence, as before it was a column)
    details = finding["evidence"][0] if finding["evidence"] and isinstance(finding["evidence"][0], dict) else {}
    table_said = details.pop("table_loader_signal", None) is not None
    what = WHAT.get(cause) or _signal_words(cause) or f"exited with status {cause.removeprefix('exit-')}"
    if cause == "host-oom-kill" and (row.get("error_message") or "").startswith("Ray reports"):
        what = "was killed from outside (no exception of its own), most often by the host's OOM killer"
    elif cause == "host-oom-kill" and "DataLoader worker" in (row.get("error_message") or ""):  # the rank raised; its worker was killed
        what = "lost a DataLoader worker to SIGKILL (the host's OOM killer, most often) and failed on it"
    elif cause in LOADER_LOST_WHAT and "DataLoader worker lost while handing" in (row.get("error_message") or ""):  # session 70
        what = LOADER_LOST_WHAT[cause]
    elif cause in LOADER_LOST_WHAT and table_said:  # session 70: the table's traceback field says it
        what = LOADER_LOST_WHAT[cause] + " (the error file's traceback in its launcher's failure table)"
    elif cause == "host-oom" and "RayOutOfMemoryError" in (row.get("error_type") or "") + (row.get("failure_line") or ""):  # Ray < 2 (session 67)
        what = "ran out of host memory: Ray's memory monitor (Ray < 2) raised RayOutOfMemoryError, its node's memory past the threshold"
    node_lost = row.get("failure_subkind") == "ray_node_died"  # Ray's report: the worker went with its node
    if node_lost:
        what = "went down with its node, by Ray's dead-actor report (the node was drained, preempted or lost)"
    if row.get("failure_subkind") == "ray_node_preempted":  # Ray Train v2's notice, ahead of the loss
        what = "is losing its node, by Ray Train's preemption notice (the node is being drained or preempted)"
    victims = row.get("victims") or 0
    if row.get("decided_by") == "build-lock":  # no failure: the processes wait on a JIT extension build's lock
        root = row.get("error_message") or "the extensions root"
        finding["title"] = "The job waits on a torch extension build; no rank failed"
        finding["summary"] = f"A build lock may be left at {root}: {known(row.get('no_culprit_reason'), 'not recorded')}."
        finding["recommendation"] = (f"If no process is compiling, remove the lock a killed build left (rm {root}/<extension>/lock, "
                                     "or the extension's folder under that root) and restart; give each job its own "
                                     "TORCH_EXTENSIONS_DIR, or prebuild the ops, so one killed build cannot block the others.")
        return finding
    if row.get("decided_by") == "rendezvous":  # no rank failed: the launcher's rendezvous did
        return _rendezvous(finding, row)
    if not finding["ranks"] and row.get("decided_by") == "signal-alike":  # every process, one signal, none first
        finding["title"] = f"Every process of the job took the same signal ({cause}); no single culprit"
        parts = [f"Every process {what.split(':')[0].split(' (')[0]}; {known(row.get('no_culprit_reason'), 'not recorded')}."]
    elif not finding["ranks"] and row.get("decided_by") == "victims-only":  # session 72: only victims' lines
        finding["title"] = "The job failed, but only its victims' waits are in the logs; no single rank"
        reason = known(row.get("no_culprit_reason"), "not recorded")
        parts = [f"{reason[:1].upper()}{reason[1:]}.", f"Culprit: {ABSENT} (not in the logs)."]
    elif not finding["ranks"] and row.get("decided_by") == "node-silent":  # session 71: a node's log went silent
        finding["title"] = "A rank's exit was reported while another node's log went silent; no single culprit"
        reason = known(row.get("no_culprit_reason"), "not recorded")
        parts = [f"{reason[:1].upper()}{reason[1:]}.", OUTPUT_ELSEWHERE]
    elif not finding["ranks"]:
        finding["title"] = (f"Ranks failed ({cause}) but no single rank brought the job down" if row.get("together_ranks")
                            else f"A process failed ({cause}) but the logs name no single rank for it")
        reason = row.get("no_culprit_reason") or "the failing rank is unknown"
        if row.get("exit_tables_status") is not None:  # launchers' exit tables alone: no exception, no cause seen
            what = f"exited with status {row['exit_tables_status']}"
            if reason.endswith(JOB_WIDE):  # nothing seen says a node- or job-wide cause: only the statuses
                reason = (f"{len(row['together_ranks'])} ranks ended within one second, each known only by its launcher's "
                          "report of its exit status: the exit statuses alone cannot tell which failed first or which one "
                          "caused it: no single culprit")
        parts = [f"{ranks_text(row.get('together_ranks') or [])} {what.split(':')[0]}; {reason}."]
        if row.get("exit_tables_status") is not None:
            parts.append(OUTPUT_ELSEWHERE)
    else:
        who = ranks_text(finding["ranks"])
        where = f" on {finding['nodes'][0]}" if finding["nodes"] else ""
        finding["title"] = f"{who} {'was lost with its node' if node_lost else TITLE.get(cause, what.split(' (')[0])} and the job was torn down"
        detail = ""
        if row.get("error_message"):
            kind = "" if row.get("error_type") in (None, "", "CUDA error", LOGGED_ERROR, LOGGED_MESSAGE) else f"{row['error_type']} "
            detail = f": {kind}{row['error_message']}"
        if row.get("exit_tables_status") is not None:  # a launcher's table alone: no exception seen (session 70)
            what = f"exited with status {row['exit_tables_status']}"
        parts = [f"{who}{where} {what}{detail}."]
        if row.get("kernel_line"):
            parts.append(f"The node's kernel log: {row['kernel_line'][:160]}.")
        if row.get("xid") is not None:
            parts.append(f"Its GPU reported Xid {row['xid']}" + (f" ({row['xid_meaning']})." if row.get("xid_meaning") else "."))
        if row.get("confidence") == "medium" and row.get("failure_subkind") == "transport_call":
            parts.append("Only a communication library's report of its own failed CUDA call says so, not how the process ended "
                         "(confidence medium).")
        elif row.get("medium_why") in MEDIUM_WHY:
            parts.append(MEDIUM_WHY[row["medium_why"]])
        elif row.get("low_why") in LOW_WHY:
            parts.append(LOW_WHY[row["low_why"]])
        elif row.get("confidence") == "medium" and row.get("error_type") == LOGGED_ERROR:
            parts.append("No traceback of it is in the logs: that is the ERROR-level record its program logged just before "
                         "it exited (its handler's message), read as its exception (confidence medium).")
        elif row.get("confidence") == "medium" and row.get("error_type") == LOGGED_MESSAGE:
            parts.append("No traceback of it is in the logs: that is the last line of its own, a message alone, before it "
                         "exited with a status its program chose (not sys.exit(msg)'s 1: its handler's message), read as its "
                         "exception (confidence medium).")
        elif row.get("confidence") == "medium" and table_said:
            parts.append("Its own lines are not in the logs: only its launcher's table and the error file it quotes (confidence medium).")
        elif row.get("confidence") == "medium":
            parts.append("Only its exit status is in the logs (confidence medium).")
            if row.get("exit_tables_status") is not None:  # a launcher's table alone, no rank's own line (session 70)
                parts.append(OWN_OUTPUT_ELSEWHERE)
        elif row.get("confidence") == "low":
            parts.append("Only its traceback, cut before its exception, is in the logs: what failed, and whether it failed "
                         "first or as a bystander, is not said; a suspect, not a culprit (confidence low).")
    if victims:
        parts.append(f"{victims} other rank(s)/processes were torn down after it" + (f", {row['watchdog_victims']} by their NCCL watchdog." if row.get("watchdog_victims") else "."))
    if finding.get("gpu_hours_lost"):
        parts.append(f"≈{finding['gpu_hours_lost']:.2f} GPU-hours lost ({known(row.get('job_gpus'), 'not recorded')} GPUs from the first failure to the abort).")
    if row.get("hang_verdict"):
        parts.append(f"The hang itself is decided by other evidence ({row['hang_verdict']}): see the nccl-hang finding.")
    finding["summary"] = " ".join(parts)
    fix = CUDA_FIX.get(row.get("failure_subkind") or "") if cause == "cuda-error" else None
    if cause == "python-exception" and (row.get("error_message") or "").startswith("The file lock '"):
        fix = FILELOCK_FIX
    qp = IB_QP_LINE.search(row.get("failure_line") or "") if cause == "nccl-error" and not finding["ranks"] else None
    if qp:  # read with no rank (tagged or not): the fabric's set-up (parsers/log_comm_lines._IB_QP_SETUP)
        finding["title"] = "NCCL could not bring up an InfiniBand/RoCE connection; no rank named"
        finding["summary"] = (f"NCCL's IB transport failed to set up a queue pair ({qp.group(0)}): "
                              "the two ends' adapters could not agree a path (a port down, a GID index or RoCE version, a "
                              "rail-only fabric), the fabric's or host's configuration, not a rank's own failure.")
        fix = IB_QP_FIX
    if row.get("decided_by") == "node-silent":
        fix = NODE_SILENT_FIX
    if row.get("decided_by") == "victims-only":
        fix = VICTIMS_ONLY_FIX
    finding["recommendation"] = (NODE_LOST_FIX if node_lost else fix or
                                 FIX.get(cause, "Inspect that rank's own log lines before the teardown; the other ranks' errors are consequences."))
    return finding


#: what each rendezvous failure means, and what to check (parsers/log_rendezvous.py)
RENDEZVOUS = {
    "timeout": ("the group did not form: not every node joined within the rendezvous' join timeout (at the start, after a "
                "restart, or after a node left), so no worker of that round started",
                "Check that every node's pod is running and reaches the rendezvous endpoint (--rdzv-endpoint, or "
                "MASTER_ADDR:MASTER_PORT), that every node passes the same --rdzv-id, --rdzv-backend and --nnodes, and raise "
                "--rdzv-conf join_timeout=<seconds> where nodes start far apart (a pending pod, a slow image pull)."),
    "connection": ("the agent could not reach its rendezvous backend (the c10d store the agent on the --rdzv-endpoint host "
                   "serves, or etcd): that agent ended (its job finished or failed, or it was killed) or cannot be reached",
                   "Read the rendezvous host's log (the node serving --rdzv-endpoint, or etcd's) for how it ended; check that "
                   "the endpoint's address and port are reachable from every node (a firewall, DNS, a NetworkPolicy)."),
    "port-in-use": ("the rendezvous store could not start: its port is already in use on the host that serves it (another "
                    "job on that host, or a process an earlier run left behind, holds it)",
                    "Give each job its own port (torchrun --master-port or --rdzv-endpoint host:port; --standalone picks a "
                    "free one), or find and stop the process holding it (ss -ltnp 'sport = :<port>' on that host)."),
    "closed": ("another node's agent closed the rendezvous: its workers failed, it was stopped, or it finished, and this "
               "log does not say which",
               "Read the other nodes' logs: the first failure is there. A node stopped on purpose (scaled down, preempted) "
               "closes the rendezvous for every node."),
}
_RENDEZVOUS_OTHER = ("the rendezvous' shared state could not be read or kept",
                     "Check the rendezvous backend (the c10d store's host, etcd) and that every node passes the same "
                     "--rdzv-id and --rdzv-backend.")


def _rendezvous(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """The launcher's rendezvous failed and no rank did: what it means, where it was said, what to check."""
    meaning, check = RENDEZVOUS.get(row.get("failure_subkind") or "", _RENDEZVOUS_OTHER)
    message = f" ({row['error_message']})" if row.get("error_message") else ""
    finding["title"] = ("The rendezvous store's port is in use; no rank failed" if row.get("failure_subkind") == "port-in-use"
                        else "The launcher's rendezvous failed; no rank failed")
    finding["summary"] = (f"{known(row.get('error_type'), 'not recorded')}{message}: {meaning}. No rank is named: {known(row.get('no_culprit_reason'), 'not recorded')}.")
    finding["recommendation"] = check
    return finding
