"""A training pod's end as users paste it beside a log: ``kubectl get pods`` rows and the
Kubeflow training operator's pod events (docs/parsers-logs.md, "Pod status in a paste").

* ``kubectl get pods`` (also ``-o wide``, ``-n ns``, piped through ``grep``): ``NAME READY
  STATUS RESTARTS AGE …``, e.g. ``llama-worker-0   0/1   Error   0   12m``. ``Error``,
  ``CrashLoopBackOff``, ``ContainerCannotRun``, ``StartError``: the container exited non-zero,
  how is unknown; ``OOMKilled``: the kernel's OOM killer (exit −9). ``Completed`` and the
  states of a live or starting pod fail nothing; their rows still say which replicas exist.
* the training operator's log: ``Error pod <pod> container <c> exitCode: N`` and
  ``Pod: <ns>.<pod> exited with code N``; ``PyTorchJob=<job>, ReplicaType=Master …`` says
  the job has a master.

A pod is a rank only through the operators' naming convention and the job's layout, so a row
names a rank (``process_exit``, subkind ``pod_status``) only when the same log body shows the
job's layout: a ``master``/``chief`` replica (PyTorchJob, TFJob: it is rank 0 and
``worker-N`` is rank N+1) or an MPIJob ``launcher`` (it runs no rank; ``worker-N`` is node N).
Such a rank holds only with one process per pod (queries/_incident.sql drops the line
otherwise). Anything else (a failed worker row alone, a Ray or Deployment pod) names no one.

A JobSet's or TrainJob's pod (``<jobset>-<replicated job>-<job index>-<pod index>-<suffix>``,
pod_names.py) is a rank by the same names the body shows: its pod index when every such pod of
the body is in one Job, its job index when every one is its Job's pod 0; any other mix names no
one (the Jobs' parallelism is not in a paste).

A pod killed from outside: one ``kubectl delete pod <pod>`` (``k``/``oc``, ``pod/<pod>``) in the
body and a later row of that pod ``Terminating`` is a ``pod_status`` exit of that pod with no
status; two deleted pods, or the row not seen, name no one (real incidents batch 131).
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

_POD = r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?"
#: a ``kubectl get pods`` row; RESTARTS may read ``3 (2m ago)``; a row wrapped at the terminal's width inside the
#: padding before RESTARTS or AGE (the line ends there) is the row still
KUBECTL_ROW = re.compile(
    r"^\s*(?:\S+\s+)??(?P<pod>" + _POD + r")\s+(?P<ready>\d{1,3})/(?P<total>\d{1,3})\s+(?P<status>[A-Za-z][\w:/-]{0,40})"
    r"(?:\s*$|\s+(?P<restarts>\d{1,6})(?:\s+\([\w ]{1,20}\))?(?:\s*$|\s+(?P<age>\d[\dsmhdy]{0,15})(?:\s|$)))"
)
OPERATOR_ERROR = re.compile(r"\bError pod (?P<pod>" + _POD + r") container \S+ exitCode: (?P<code>-?\d{1,4})\b")
OPERATOR_EXITED = re.compile(r"\bPod: (?:[a-z0-9-]{1,63}\.)?(?P<pod>" + _POD + r") exited with code (?P<code>-?\d{1,4})\b")
OPERATOR_REPLICA = re.compile(r"\b[A-Za-z]{2,20}Job=(?P<job>" + _POD + r"), ReplicaType=(?P<role>Master|Chief|Launcher)\b")
#: ``<job>-<replica type>[-<index>]`` (docs/parsers-k8s.md, pod_names.py)
REPLICA = re.compile(r"^(?P<job>" + _POD + r"?)-(?P<role>master|chief|worker|launcher|ps|evaluator)(?:-(?P<index>\d{1,6}))?$")
#: a JobSet's / TrainJob's pod (pod_names.py): ``<jobset>-<replicated job>-<job index>-<pod index>-<suffix>``
INDEXED = re.compile(r"^(?P<job>" + _POD + r"?)-(?P<jobidx>\d{1,5})-(?P<podidx>\d{1,5})-[a-z0-9]{5}$")
#: ``kubectl delete pod …`` typed at a shell (a prompt, ``k`` or ``oc`` for kubectl); the words after it
DELETE_POD = re.compile(r"(?:^|[\s$#>%])(?:kubectl|oc|k)\s(?:[^|;&]{0,80}?\s)?delete\s+(?P<rest>(?:pods?|po)(?:/|\s).*)$")
_POD_WORD = re.compile(_POD)
#: STATUS of a container that exited non-zero on its own (OOMKilled: the kernel killed it)
FAILED = {"Error": None, "CrashLoopBackOff": None, "ContainerCannotRun": None, "StartError": None, "OOMKilled": -9}


def _replica(pod: str) -> tuple[str, str, Any] | None:
    m = REPLICA.match(pod)
    if m is None:
        m = INDEXED.match(pod)
        return (m.group("job"), "indexed", (int(m.group("jobidx")), int(m.group("podidx")))) if m else None
    return m.group("job"), m.group("role"), int(m.group("index")) if m.group("index") else None


def deleted_pods(text: str) -> list[str] | None:
    """The pods a ``kubectl delete pod`` command on ``text`` names (flags and their values skipped);
    None: no such command."""
    m = DELETE_POD.search(text)
    if m is None:
        return None
    words = m.group("rest").split()
    words[0] = words[0].split("/", 1)[1] if "/" in words[0] else ""
    pods, skip = [], False
    for word in words:
        if skip or not word:
            skip = False
            continue
        if word.startswith("-"):
            skip = "=" not in word and word in ("-n", "--namespace", "-l", "--selector", "--context", "-o", "--output")
            continue
        word = word.split("/", 1)[1] if word.startswith(("pod/", "pods/", "po/")) else word
        if _POD_WORD.fullmatch(word) is None:
            break  # a redirection, a comment: the names are over
        pods.append(word)
    return pods


def pod_status(text: str) -> Event | None:
    """The pod row or operator line on ``text``: a ``pod_status`` exit (its rank resolved later by
    ``resolve_ranks``) or a ``_pod_seen`` marker for a replica that did not fail; None: neither."""
    if "/" not in text and "pod " not in text and "Pod: " not in text and "ReplicaType=" not in text and " delete " not in text:
        return None
    pods = deleted_pods(text) if " delete " in text else None
    if pods is not None:
        return {"kind": "_pod_deleted", "_pods": pods}
    m = OPERATOR_REPLICA.search(text)
    if m:
        return {"kind": "_pod_seen", "_job": m.group("job"), "_role": m.group("role").lower(), "_index": 0}
    m = OPERATOR_ERROR.search(text) or OPERATOR_EXITED.search(text)
    status, code = (f"exited with code {m.group('code')}", int(m.group("code"))) if m else (None, None)
    if m is None:
        m = KUBECTL_ROW.match(text)
        if m is None or int(m.group("ready")) > int(m.group("total")):
            return None
        status = m.group("status")
        code = FAILED.get(status)
    found = _replica(m.group("pod"))
    if found is None:
        return None
    job, role, index = found
    seen = {"_job": job, "_role": role, "_index": index}
    if status == "Terminating":
        return {"kind": "_pod_seen", "_terminating": m.group("pod"), **seen}
    if not status.startswith("exited") and status not in FAILED:
        return {"kind": "_pod_seen", **seen}
    if code == 0:
        return {"kind": "_pod_seen", **seen}
    return {"kind": "process_exit", "subkind": "pod_status", "exit_code": code, "error_message": f"pod {m.group('pod')}: {status}"[:300],
            "_no_rank": True, **seen}


def resolve_ranks(events: list[Event]) -> list[Event]:
    """``events`` of one log body without the ``_pod_seen`` markers, each ``pod_status`` exit given
    the rank its pod's name states under the layout the body shows (the module doc); an exit
    whose rank the body does not establish is dropped."""
    layout: dict[str, set[Any]] = {}
    for ev in events:
        if ev.get("_job") is not None:
            layout.setdefault(ev["_job"], set()).add(ev["_role"] if ev["_role"] != "indexed" else ev["_index"])
    out = []
    for ev in _deletions(events):
        if ev["kind"] in ("_pod_seen", "_pod_deleted"):
            continue
        if ev["kind"] == "process_exit" and ev.get("subkind") == "pod_status":
            env_rank = ev.get("_env_rank")  # the RANK the operator set, from kubectl describe (log_describe)
            ev["rank"] = env_rank if env_rank is not None else _rank(layout.get(ev["_job"], set()), ev["_role"], ev["_index"])
            if ev["rank"] is None:
                continue  # a pod whose rank the paste does not establish names no one
        out.append(ev)
    return out


def _deletions(events: list[Event]) -> list[Event]:
    """``events`` with the one pod a ``kubectl delete pod`` killed, seen ``Terminating`` after
    the command, made a ``pod_status`` exit with no status (the module doc)."""
    deleted = {pod for ev in events if ev["kind"] == "_pod_deleted" for pod in ev["_pods"]}
    if len(deleted) != 1:
        return events
    out, armed = [], False
    for ev in events:
        armed = armed or ev["kind"] == "_pod_deleted"
        if armed and ev.get("_terminating") in deleted:
            ev = {**ev, "kind": "process_exit", "subkind": "pod_status", "exit_code": None,
                  "error_message": f"pod {ev['_terminating']}: deleted (Terminating)", "_no_rank": True}
            deleted = set()
        out.append(ev)
    return out


def _rank(roles: set[Any], role: str, index: Any) -> int | None:
    if index is None:
        return None
    if role == "indexed":  # a JobSet's pod: (job index, pod index) under the names the body shows
        jobs = {i[0] for i in roles if isinstance(i, tuple)}
        pods = {i[1] for i in roles if isinstance(i, tuple)}
        return index[1] if len(jobs) == 1 else index[0] if pods == {0} else None
    head = roles & {"master", "chief"}
    if role in ("master", "chief"):
        return index if head else None
    if role != "worker":
        return None
    if head:
        return index + 1
    return index if "launcher" in roles else None


__all__ = ["deleted_pods", "pod_status", "resolve_ranks"]
