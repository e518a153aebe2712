"""Narrative for crashloop findings."""

from __future__ import annotations

from typing import Any

from k10s_forensics.queries._narrative import known, ranks_text

WHAT = {"cuda-oom": "ran out of GPU memory", "host-oom": "was OOMKilled",
        # a signal the process raised itself (torchrun's exitcode -11, -6, -7, -8, -4)
        "segfault": "crashed (SIGSEGV)", "abort": "aborted (SIGABRT)", "sigbus": "died of SIGBUS", "sigfpe": "died of SIGFPE",
        "sigill": "died of SIGILL"}


def narrate(finding: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    who = ranks_text(finding["ranks"]) if finding["ranks"] else (", ".join(finding["pods"]) or "A pod")
    cause = finding["cause"] or "failure"
    what = WHAT.get(cause, f"failed with Xid {cause[4:]}" if cause.startswith("xid-") else f"exited ({cause})")
    loops = row.get("loops") or 1
    times = "twice" if loops == 2 else f"{loops} times"
    finding["title"] = f"{who} {what} {times}: the job is crash-looping" if loops >= 2 else f"{who} {what} and the job restarted"
    parts = [f"{who} {what} {times} ({known(row.get('failures'), 'not counted')} failures in all); the job restarted {known(row.get('restarts'), 'not counted')} times."]
    counters = []
    if row.get("container_restarts"):
        counters.append(f"container restartCount {row['container_restarts']}")
    if row.get("pod_incarnations") and row["pod_incarnations"] > 1:
        counters.append(f"{row['pod_incarnations']} incarnations of one pod name")
    if row.get("restart_attempts"):
        counters.append(f"restart attempts {row['restart_attempts']}")
    if row.get("worker_group_restarts"):
        counters.append(f"torchrun worker-group restarts {row['worker_group_restarts']}"
                        + (f" ({row['attempts_left']}/{row['attempts_max']} attempts left)" if row.get("attempts_max") else ""))
    if counters:
        parts.append("Counters: " + ", ".join(counters) + ".")
    finding["summary"] = " ".join(parts)
    if cause == "cuda-oom":
        finding["recommendation"] = "Restarting will not help: the same rank runs out of memory each time. Reduce its batch size or enable gradient checkpointing before resubmitting."
    elif cause.startswith("xid-"):
        finding["recommendation"] = "The same GPU fails each time: exclude its node (cordon) and resubmit."
    elif cause in WHAT:
        finding["recommendation"] = ("Restarting will not help: the same rank's process dies of the same signal each time. Read its "
                                     "native stack (faulthandler, core dump) in the previous container's log and fix the crash "
                                     "before the job uses up its restarts.")
    else:
        finding["recommendation"] = "Read the previous container's log of the culprit (kubectl logs --previous) and fix the failure before the job uses up its restarts."
    return finding
