"""``kubectl logs --prefix``: one saved log holding several pods' lines, each behind its pod's name.

``kubectl logs -l training.kubeflow.org/job-name=llama --prefix [--all-containers]`` writes every
line as ``[pod/<pod>/<container>] <line>``; that is how many users save a whole job's output
before the pods are gone. Each pod is a node of the job (one pod per replica), so the lines are
split back into one log per pod, in the order the training operators number their pods:

* Kubeflow (PyTorchJob and the other training-operator kinds, MPIJob): ``<job>-master-0`` (or
  ``chief``) first, then ``<job>-worker-<i>`` by ``i``; an MPIJob's ``<job>-launcher`` runs no
  rank and goes last;
* JobSet / TrainJob: ``<jobset>-<replicated job>-<job index>-<pod index>[-<suffix>]`` by job
  index, then pod index;
* LeaderWorkerSet: a group's leader ``<lws>-<group>`` first (worker index 0), then its workers
  ``<lws>-<group>-<worker index>`` by index (a leader is known by its workers' names);
* any other naming: by name (the ranks then come only from the lines' own prefixes).

torchx's ``<role>/<replica id> <line>`` (its local scheduler, ``torchx log``: one stream of every
replica of one role) is split the same way, one node per replica id.

The job's name is read from the pods' names when they follow the Kubeflow convention, so the
imported pods keep the names the user knows. A source that is not such a log is left whole.

Without ``-f`` kubectl reads the pods one after another (``sequentialConsumeRequest``, over a Go map: in no
set order), so such a log holds each pod's lines in one block, and which block comes first says nothing of
which pod failed first. ``place`` says so (``POD_AFTER_POD``): the importer then labels each pod as a file of
its own (``k8s_runtime.FILE_LABEL``), whose failures only their clocks order (session 70). Lines of the pods
interleaved (``-f``, stern, a log store's records in time order) are one stream, in the order written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from k10s_forensics.parsers.log_pods import REPLICA

#: ``[pod/<pod>/<container>] `` (kubectl 1.20+ ``--prefix``); the space after it is kubectl's
_PREFIX = re.compile(r"^\[pod/([a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?)/([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)\] ?")
KUBEFLOW_POD = REPLICA  # <job>-<replica type>[-<index>], as log_pods reads a pasted pod row
#: a LeaderWorkerSet group's leader, ``<lws>-<group>``, whose workers are ``<lws>-<group>-<worker index>``
_LWS_LEADER = re.compile(r"^(?P<job>[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)-(?P<group>\d{1,6})$")
JOBSET_POD = re.compile(r"^(?P<job>[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)-(?P<jidx>\d{1,6})-(?P<pidx>\d{1,6})(?:-[a-z0-9]{5})?$")
#: a saved pod log's file name after the pod's: ``.log`` / ``.txt`` / ``.out``, then ``.gz``
_FILE_SUFFIX = re.compile(r"(?:\.(?:log|txt|out))?(?:\.gz)?$")
#: Cloud ML Engine / AI Platform Training's tasks (``master-replica-0``, ``worker-replica-3``, ``ps-replica-1``): the
#: replica type and its index (TF_CONFIG's ``task``), laid out as a Kubeflow job's pods of those roles are
CMLE_TASK = re.compile(r"^(?P<role>master|chief|worker|ps|evaluator)-replica-(?P<index>\d{1,6})$")
#: torchx's ``<role>/<replica id> `` before each replica's line
_REPLICA = re.compile(r"^([A-Za-z_][\w-]{0,62})/(\d{1,5}) ")
#: at least this share of a source's non-blank lines carry the prefix for it to be split
_MIN_SHARE = 0.5
#: ``place``'s words for pods whose lines came pod after pod, each pod's in one block (the order a tool read them in)
POD_AFTER_POD = "pod after pod"


@dataclass
class PodLog:
    """One pod's lines from a prefixed log."""

    pod: str
    container: str
    lines: list[str]
    block: bool = False  # the source held every pod's lines in one block each (``in_blocks``)


def split_prefixed(text: str) -> list[PodLog] | None:
    """The pods' logs in node order, or None when ``text`` is not a ``--prefix`` log of 2+ pods.

    A line without the prefix (a wrapped line, a note the user added) stays with the pod before
    it; a blank one is dropped.
    """
    lines = text.split("\n")
    nonblank = [ln for ln in lines if ln.strip()]
    matches = [_PREFIX.match(ln) for ln in lines]
    if not nonblank or sum(m is not None for m in matches) < _MIN_SHARE * len(nonblank):
        return None
    return split_lines([(m.group(1), m.group(2), line[m.end():]) if m else (None, None, line) for line, m in zip(lines, matches)])


def _one_pod(text: str) -> PodLog | None:
    """The one pod's log of a ``--prefix`` log that names a single pod (a one-node job), prefixes taken off."""
    lines = text.split("\n")
    nonblank = sum(1 for ln in lines if ln.strip())
    matches = [_PREFIX.match(ln) for ln in lines]
    pods = {m.group(1) for m in matches if m}
    if len(pods) != 1 or sum(m is not None for m in matches) < _MIN_SHARE * nonblank:
        return None
    first = next(m for m in matches if m)
    return PodLog(first.group(1), first.group(2), [ln[m.end():] if m else ln for ln, m in zip(lines, matches) if m or ln.strip()])


def split_replicas(text: str) -> list[PodLog] | None:
    """torchx's one stream of a role's replicas as one log per replica, by replica id; None when
    ``text`` is not such a stream of 2+ replicas of one role (lines without the prefix: torchx's own)."""
    lines = text.split("\n")
    nonblank = sum(1 for ln in lines if ln.strip())
    matches = [_REPLICA.match(ln) for ln in lines]
    if not nonblank or sum(m is not None for m in matches) < _MIN_SHARE * nonblank or len({m.group(1) for m in matches if m}) != 1:
        return None
    pods = split_lines([(m.group(0).strip(), "", line[m.end():]) if m else (None, None, line) for line, m in zip(lines, matches)])
    for pod in pods or ():  # one process's stream of its replicas, written as they printed: its order is theirs
        pod.block = False
    return sorted(pods, key=lambda p: int(p.pod.rsplit("/", 1)[1])) if pods else None


def split_lines(entries: list[tuple[str | None, str | None, str]]) -> list[PodLog] | None:
    """``(pod, container, line)`` in the order written (pod None: the line goes with the pod before
    it; a blank one is dropped) as the pods' logs in node order; None for fewer than 2 pods."""
    by_pod: dict[str, PodLog] = {}  # --all-containers: a pod's containers are one node's output
    current: PodLog | None = None
    for pod, container, line in entries:
        if pod is not None:
            current = by_pod.setdefault(pod, PodLog(pod, container or "", []))
            current.lines.append(line)
        elif current is not None and line.strip():
            current.lines.append(line)
    if len(by_pod) < 2:
        return None
    blocked = in_blocks(entries)
    for log in by_pod.values():
        log.block = blocked
    launchers = [p for p in by_pod if (m := KUBEFLOW_POD.match(p)) and m.group("role") == "launcher"]
    if launchers:
        # an MPIJob: its launcher's mpirun prints every rank's lines behind their own tags
        # (``[1,3]<stdout>:``); the workers run sshd. One log, in the order it was written.
        merged = [line for pod, _, line in entries if pod is not None or line.strip()]
        return [PodLog(launchers[0], by_pod[launchers[0]].container, merged)]
    return sorted(by_pod.values(), key=lambda p: _node_order(p.pod, by_pod))


def in_blocks(entries: list[tuple[str | None, str | None, str]]) -> bool:
    """Whether the pods' lines (``split_lines``' entries) come pod after pod: no pod's lines resume after another's began,
    and two pods or more have two lines or more (a pod of one line shows no order either way)."""
    seen: dict[str, int] = {}
    last = None
    for pod, _, _ in entries:
        if pod is not None and pod != last and pod in seen:
            return False
        if pod is not None:
            seen[pod] = seen.get(pod, 0) + 1
            last = pod
    return sum(n > 1 for n in seen.values()) > 1


def node_ranks(pods: list[str]) -> list[int]:
    """Each pod's node rank: Kubeflow's ``master-0`` 0 and ``worker-<i>`` i + 1 (i without a
    master or chief), so a pod missing from the log leaves its node empty; otherwise the order."""
    found = [KUBEFLOW_POD.match(p) or CMLE_TASK.match(p) for p in pods]
    if not all(m and m.group("role") in ("master", "chief", "worker") for m in found):
        return list(range(len(pods)))
    head = any(m.group("role") in ("master", "chief") for m in found)
    ranks = [0 if m.group("role") in ("master", "chief") else int(m.group("index") or 0) + head for m in found]
    return ranks if len(set(ranks)) == len(ranks) else list(range(len(pods)))


def split_files(files: list[tuple[str, str]], job: str, default_job: str = "imported") -> tuple[list[tuple[str, str]], str, str] | None:
    """Several saved logs, each file named after its pod by Kubeflow's convention (``kubectl logs
    train-worker-3 > train-worker-3.log``; ``.log``, ``.txt``, ``.out``, ``.gz`` after the name):
    ``(name, text)`` per node at the node rank the pod's name gives (not in the order given: a
    shell's glob puts ``worker-10`` before ``worker-2``, and ``master-0`` is node 0 wherever it is
    listed), empty for a node whose file is absent; the job (the pods' own name unless ``job`` was
    given); how. None: fewer than two files, or not every file so named (the order given stands)."""
    pods = [_FILE_SUFFIX.sub("", name, count=1) for name, _ in files]
    found = [KUBEFLOW_POD.match(p) for p in pods]
    if len(files) < 2 or len(set(pods)) < len(pods) or not all(m and m.group("role") in ("master", "chief", "worker") for m in found):
        return None
    order = sorted(range(len(files)), key=lambda i: _node_order(pods[i]))
    return _at_nodes([pods[i] for i in order], [files[i] for i in order], job, default_job,
                     "pod log files named after their pods", lambda n: f"(no pod log file of node {n})")


def _node_order(pod: str, pods=()) -> tuple:
    """``pod``'s place in node order among ``pods`` (a LeaderWorkerSet leader is known by its workers' names)."""
    m = KUBEFLOW_POD.match(pod) or CMLE_TASK.match(pod)
    if m:
        role, index = m.group("role"), int(m.group("index") or 0)
        return (0, m.groupdict().get("job") or "", {"master": 0, "chief": 0, "worker": 1}.get(role, 2), index, pod)
    m = JOBSET_POD.match(pod)
    if m:
        return (1, m.group("job"), int(m.group("jidx")), int(m.group("pidx")), pod)
    m = _LWS_LEADER.match(pod)
    if m and any(q.startswith(pod + "-") and JOBSET_POD.match(q) for q in pods):
        return (1, m.group("job"), int(m.group("group")), 0, pod)
    return (2, pod)


def job_name(pods: list[str]) -> str | None:
    """The Kubeflow job name every pod's name states (``llama`` of ``llama-worker-3``), else None."""
    jobs = {m.group("job") for m in map(KUBEFLOW_POD.match, pods) if m}
    named = all(KUBEFLOW_POD.match(p) for p in pods)
    return jobs.pop() if named and len(jobs) == 1 else None


def split_source(name: str, text: str, job: str, default_job: str = "imported") -> tuple[list[tuple[str, str]], str, str] | None:
    """``text`` (one log named ``name``) as ``(name, text)`` per node in node order, empty for a node
    whose pod is not in it; the job (the pods' own name unless ``job`` was given); how it was split.
    None: not a ``--prefix`` log of several pods."""
    pods = split_prefixed(text)
    if pods:
        return place(name, pods, job, default_job, "kubectl logs --prefix")
    one = _one_pod(text)
    if one:  # ``kubectl logs train-master-0 --prefix``: the prefix taken off, or it hides every line's own start
        text = "\n".join(one.lines)
        if not split_replicas(text):
            return [(name, text)], (job_name([one.pod]) or job) if job == default_job else job, f"kubectl logs --prefix (1 pod: {one.pod})"
    replicas = split_replicas(text)
    return place(name, replicas, job, default_job, "torchx's <role>/<replica> prefix") if replicas else None


def place(name: str, pods: list[PodLog], job: str, default_job: str, what: str) -> tuple[list[tuple[str, str]], str, str]:
    """``pods`` (from ``split_lines``) as ``split_source`` returns them; ``what`` names the source."""
    if len(pods) == 1:  # an MPIJob's launcher: every rank's lines, behind their mpirun tags
        return [(name, "\n".join(pods[0].lines))], job, f"the launcher pod {pods[0].pod} ({what})"
    what += f", {POD_AFTER_POD}" if all(p.block for p in pods) else ""
    return _at_nodes([p.pod for p in pods], [(f"{name}: pod/{p.pod}", "\n".join(p.lines)) for p in pods], job, default_job,
                     what, lambda n: f"{name} (no pod of node {n} in it)")


def _at_nodes(pods: list[str], logs: list[tuple[str, str]], job: str, default_job: str, what: str,
              absent: Callable[[int], str]) -> tuple[list[tuple[str, str]], str, str]:
    """``logs`` (one per pod of ``pods``, in node order) at the node rank each pod's name gives, an empty
    log named ``absent(node)`` where no pod is; the job (the pods' own name unless ``job`` was given); how."""
    if job == default_job:
        job = job_name(pods) or job
    ranks = node_ranks(pods)
    placed = [(absent(n), "") for n in range(max(ranks) + 1)]
    for log, n in zip(logs, ranks):
        placed[n] = log
    shown = ", ".join(pods[:4]) + (", ..." if len(pods) > 4 else "")
    return placed, job, f"{what} ({len(pods)} pods: {shown})"


__all__ = ["CMLE_TASK", "JOBSET_POD", "KUBEFLOW_POD", "POD_AFTER_POD", "PodLog", "in_blocks", "job_name", "node_ranks", "place", "split_files", "split_lines", "split_prefixed", "split_replicas", "split_source"]
