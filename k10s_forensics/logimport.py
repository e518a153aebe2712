"""``k10s import-logs``: console logs that were not captured from a cluster, as a bundle.

Logs reach an incident review in many ways a capture never saw: a Slurm job's output file,
``kubectl logs`` saved before the pods were deleted, a log shipper's export, a paste in a
support ticket or an issue thread. ``import_logs`` turns them into an ordinary bundle (raw
layer + manifest, then rebuilt), so every rule, the report and the views read them as they
read a capture:

* one **node** per log source when several are given (the order given is the node rank, unless the sources' own
  tagged lines place each at a node of its own: ``parsers.log_rank_order``),
  or, for one source holding many ranks' lines, lines **routed** to the node of the global
  rank their prefix names (``[rank12]:``, ``[rank=12]``, mpirun ``[1,12]<stderr>:``, srun
  ``12:``); a NCCL ``host:pid:tid [dev]`` line goes to the node of its host (placed by a
  ``comm … rank N nRanks M`` line it printed); a line with neither stays with the line
  before it (a traceback continues where it began);
* a training job (a PyTorchJob, ``k10s.io/imported: "true"``) with one pod per node whose
  environment says the node rank, the processes per node and the world size, so local ranks
  (torchrun's ``local_rank: 3``, ``[default3]:``) resolve to global ranks;
* the lines as the program wrote them: what pasting did is undone (``log_paste``, listed in
  the manifest's ``logs`` entry), nothing else; no clock is invented for a line without one.

Processes per node and world size: the options, else the lines' hints (``infer_layout``).
"""

from __future__ import annotations

import datetime as dt
import gzip
import os
from pathlib import Path
from typing import Any

from k10s_forensics.store.bundle import Bundle, BundleWriter, iso, new_manifest, utcnow
from k10s_forensics.errors import InputError
from k10s_forensics.parsers.log_airflow import airflow_text
from k10s_forensics.parsers.log_ci import ci_text
from k10s_forensics.parsers.log_encoding import decode_log
from k10s_forensics.parsers.log_archive import PER_PROCESS, is_archive, members, process_files
from k10s_forensics.parsers.log_layout import Layout, LogSource, infer_layout, route_lines, tagged_rank
from k10s_forensics.parsers.log_launcher_prefix import split_launcher
from k10s_forensics.parsers.log_lines import fallback_ts
from k10s_forensics.parsers.log_time import dated_ts
from k10s_forensics.parsers.log_torchrun_dir import merge_tree, read_tree
from k10s_forensics.parsers.log_notebook import notebook_text
from k10s_forensics.parsers.log_node_unknown import add_unknown, file_label, split_unknown
from k10s_forensics.parsers.log_unplaced import UNPLACED, node_of, route_named, unplaced_layout
from k10s_forensics.parsers.log_newest_first import ORDER_UNKNOWN as LINE_ORDER_UNKNOWN
from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_paths import path_names, source_name
from k10s_forensics.parsers.log_exports import split_export
from k10s_forensics.parsers.log_pod_prefix import split_files, split_source
from k10s_forensics.parsers.log_rank_order import BY_RANK_LINES, rank_order
from k10s_forensics.parsers.k8s_runtime import (ASSUMED, IMPORTED_ANNOTATION, LAYOUT_LABEL,  # the parser reads what the importer writes
                                                 BASE_UNKNOWN, FILE_LABEL, NPROC_LABEL, NPROC_GUESSED, ORDER_LABEL, ORDER_UNKNOWN)
from k10s_forensics.parsers.log_nproc_guess import layout_assumed, nproc_guessed
from k10s_forensics.parsers.log_node_nproc import node_nproc

MAX_SOURCE_BYTES = 256 << 20
#: More processes than this on one node is never a guess the importer makes on its own
MAX_GUESSED_NPROC = 1024

def read_source(path: str) -> LogSource:
    """A log file (gzip is recognised by its magic), or ``-`` for standard input."""
    sources = read_sources(path)
    if len(sources) != 1:
        raise InputError(f"{path}: an archive of {len(sources)} logs")
    return sources[0]


def read_sources(path: str) -> list[LogSource]:
    """The logs of one path: a log file (gzip is recognised by its magic), ``-`` for standard input, or
    an archive (tar, compressed or not, or zip: ``parsers.log_archive``), one log per text file in it."""
    import sys

    if path == "-":
        raw = sys.stdin.buffer.read(MAX_SOURCE_BYTES + 1)
        if len(raw) > MAX_SOURCE_BYTES:
            raise InputError(f"stdin: larger than {MAX_SOURCE_BYTES >> 20} MiB; split it or capture from the cluster")
        stdin_text = decode_log(raw)
        if stdin_text is None:
            raise InputError("stdin: binary data, not a text log")
        return [LogSource("stdin", stdin_text)]
    p = Path(path)
    if p.is_dir():  # torchrun's --log-dir tree (parsers.log_torchrun_dir)
        return [LogSource(name, text) for name, text in read_tree(path, MAX_SOURCE_BYTES)]
    if not p.is_file():
        raise InputError(f"{path}: no such log file")
    if p.stat().st_size > MAX_SOURCE_BYTES:
        raise InputError(f"{path}: larger than {MAX_SOURCE_BYTES >> 20} MiB; split it or capture from the cluster")
    data = p.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(f"{path}: not a readable gzip file ({exc})") from exc
    if is_archive(data):
        return [LogSource(f"{p.name}/{member}", text) for member, text in members(path, data, MAX_SOURCE_BYTES)]
    text = decode_log(data)
    if text is None:
        raise InputError(f"{path}: binary data, not a text log")
    # kubelet's trees name the pod in the path, not the file (``/var/log/pods/<ns>_<pod>_<uid>/<container>/0.log``)
    name = source_name(path) or source_name(os.path.realpath(path)) or p.name
    return [LogSource(name, text)]


def _clock(lines: list[str], now: dt.datetime) -> tuple[dt.datetime | None, dt.datetime | None]:
    """The first and last clock of the lines. A yearless clock (glog's ``W0401 00:26:06``) is placed in the year of
    the paste's own dated lines (an ISO stamp, torchrun's failure table) when it has any, not in the year it is imported
    in: the last of them is the capture the parsers place yearless lines against (real incidents batch 31)."""
    dated = [t for t in (dated_ts(line) for line in lines[:200000]) if t is not None]
    ref = min(now, max(dated) + dt.timedelta(days=1)) if dated else now
    stamps = [t for t in (fallback_ts(line, ref) for line in lines[:200000]) if t is not None]
    return (min(stamps), max(stamps)) if stamps else (None, None)


def _pod_name(job: str, node_rank: int) -> str:
    return f"{job}-master-0" if node_rank == 0 else f"{job}-worker-{node_rank - 1}"


def _objects(namespace: str, job: str, layout: Layout, started: dt.datetime, sources: list[str],
             assumed: bool = False, unordered: bool = False, files: str | None = None) -> list[dict[str, Any]]:
    """The PyTorchJob and one running pod per node, as the API would list them."""
    gpus = str(layout.nproc_per_node)
    annotations = {IMPORTED_ANNOTATION: "true"}

    def template() -> dict[str, Any]:
        return {"spec": {"containers": [{"name": "pytorch", "resources": {"limits": {"nvidia.com/gpu": gpus}}}]}}

    specs: dict[str, Any] = {"Master": {"replicas": 1, "template": template()}}
    if max(layout.nodes, layout.world_size if layout.placed else 0) > 1:  # unplaced: the world's pods, the named ones listed
        specs["Worker"] = {"replicas": max(layout.nodes, layout.world_size if layout.placed else 0) - 1, "template": template()}
    job_uid = f"imported-{namespace}-{job}"
    bodies: list[dict[str, Any]] = [{
        "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
        "metadata": {"name": job, "namespace": namespace, "uid": job_uid, "creationTimestamp": iso(started), "annotations": annotations},
        "spec": {"pytorchReplicaSpecs": specs, "nprocPerNode": gpus},
        "status": {"startTime": iso(started), "conditions": [{"type": "Running", "status": "True"}]},
    }]
    for i, node_rank in enumerate(layout.placed or range(layout.nodes)):
        name, rtype = _pod_name(job, node_rank), ("master" if node_rank == 0 else "worker")
        own = layout.node_nproc[node_rank] if layout.node_nproc and node_rank < len(layout.node_nproc) else layout.nproc_per_node
        env = {"PET_NODE_RANK": node_rank, "PET_NPROC_PER_NODE": own or layout.nproc_per_node, "PET_NNODES": layout.world_size // layout.nproc_per_node if layout.placed else layout.nodes,
               "WORLD_SIZE": layout.world_size}
        pod_ip = f"10.{200 + node_rank // 62500}.{node_rank // 250 % 250}.{node_rank % 250 + 2}"
        labels = {"training.kubeflow.org/job-name": job, "training.kubeflow.org/replica-type": rtype,
                  "training.kubeflow.org/replica-index": str(0 if node_rank == 0 else node_rank - 1),
                  **({LAYOUT_LABEL: ASSUMED} if assumed else {LAYOUT_LABEL: UNPLACED} if layout.placed else {LAYOUT_LABEL: BASE_UNKNOWN} if own is None else {}), **({ORDER_LABEL: ORDER_UNKNOWN} if unordered else {}), **({FILE_LABEL: f"{files}{i}"} if files is not None and i < len(sources) else {}),
                  **({NPROC_LABEL: NPROC_GUESSED} if nproc_guessed(layout.hints) else {})}
        source = sources[i] if i < len(sources) else None
        pod_ann = dict(annotations, **({"k10s.io/imported-from": source} if source else {}))
        bodies.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"imported-{name}", "labels": labels, "annotations": pod_ann,
                         "creationTimestamp": iso(started),
                         "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": job, "uid": job_uid, "controller": True}]},
            "spec": {**({} if layout.placed and node_rank not in layout.hosts else {"nodeName": node_of(layout, node_rank)}), "containers": [{
                "name": "pytorch", "resources": {"limits": {"nvidia.com/gpu": gpus}},
                "env": [{"name": k, "value": str(v)} for k, v in env.items()]}]},
            "status": {"phase": "Running", "podIP": pod_ip, "podIPs": [{"ip": pod_ip}], "startTime": iso(started),
                       "containerStatuses": [{"name": "pytorch", "ready": True, "restartCount": 0, "state": {"running": {"startedAt": iso(started)}}}]},
        })
    return bodies


def _kubelet_files(sources: list[LogSource], namespace: str) -> tuple[list[LogSource], str]:
    """A container's file read twice (kubelet's ``/var/log/pods`` file and its ``/var/log/containers`` link, both given
    or both in an archive) read once; the namespace their paths name, when they name one and none was given."""
    seen, kept = set(), []
    for s in sources:
        names = path_names(s.name)
        if names is None or (names, s.text) not in seen:
            kept.append(s)
        seen.add((names, s.text))
    spaces = {names[0] for s in kept if (names := path_names(s.name))}
    return kept, spaces.pop() if namespace == "imported" and len(spaces) == 1 else namespace


def _by_launcher(source: LogSource, job: str) -> tuple[list[tuple[str, str]], str, str] | None:
    """srun/mpirun/pdsh tags that name the node (``parsers.log_launcher_prefix``): one log per node."""
    split = split_launcher(source.name, source.text)
    if split and len(split[0]) == 1:  # one task's tag taken off: what is behind it may be a --prefix or torchx log
        return split_source(source.name, split[0][0][1], job) or (split[0], job, split[1])
    return (split[0], job, split[1]) if split else None


def _by_pod(sources: list[LogSource], job: str, exported=None) -> tuple[list[LogSource], str, str | None]:
    """One ``kubectl logs --prefix`` log split back into one log per pod (``parsers.log_pod_prefix``),
    several files named after their pods put in the operator's node order, or a log store's export,
    already split (``parsers.log_exports``); files one per process, one log (``parsers.log_archive``)."""
    per_process = None if exported or len(sources) < 2 else process_files([(s.name, s.text) for s in sources])
    if per_process:
        return [LogSource(name, text) for name, text in per_process[0]], job, per_process[1]
    split = exported or (split_source(sources[0].name, sources[0].text, job) or _by_launcher(sources[0], job) if len(sources) == 1
                         else split_files([(s.name, s.text) for s in sources], job))
    if split is None:
        return sources, job, None
    logs, job, how = split
    return [LogSource(name, text) for name, text in logs], job, how


def import_logs(sources: list[LogSource], out: str | Path, *, nproc_per_node: int | None = None, world_size: int | None = None,
                nodes: int | None = None, job: str = "imported", namespace: str = "imported", split: bool = True,
                now: dt.datetime | None = None, derive: bool = True, run_id: str | None = None) -> tuple[Bundle, Layout]:
    """Write a bundle at ``out`` from ``sources`` (see the module doc) and rebuild its tables.

    ``split=False`` keeps one source whole in the first node's pod (a paste of several nodes'
    output whose lines carry no rank prefix to route them by). ``derive=False`` writes the raw
    layer only, no tables: for a caller that merges raw layers and rebuilds them once.
    """
    import json
    from k10s_forensics.rebuild.run import rebuild

    if not sources:
        raise InputError("no log given")
    sources, namespace = _kubelet_files(sources, namespace)
    # a Jupyter notebook: the outputs its cells saved, not its JSON (parsers.log_notebook)
    sources = [LogSource(s.name, nb) if (nb := notebook_text(s.text)) is not None else s for s in sources]
    # a GitLab job log: the runner's stream marks and section markers taken off (parsers.log_ci)
    sources = [LogSource(s.name, ci) if (ci := ci_text(s.text)) is not None else s for s in sources]
    # an Airflow KubernetesPodOperator task log: the pod's lines, not the operator's (parsers.log_airflow)
    sources = [LogSource(s.name, af) if (af := airflow_text(s.text)) is not None else s for s in sources]
    sources, tree_how, tree_nproc = merge_tree(sources, LogSource, run_id)  # --log-dir files back to their nodes (run_id: of several runs)
    sources, lost, files = split_unknown(sources)  # lost: --log-dir folders on no node; files: several (FILE_LABEL)
    empty = [s.name for s in sources if not s.text.strip()]
    if len(empty) == len(sources):  # one empty file among others is a node (a process) that wrote nothing
        raise InputError(f"{empty[0]}: no log lines (empty)")
    now = now or utcnow()
    exported = split_export([(s.name, s.text) for s in sources], job, now=now)  # a log store's export: nothing pasted to repair
    # launcher tags first: a tag in front of every line hides where a terminal cut one (parsers.log_launcher_prefix);
    # tags only a repair brings to light (a quoted or coloured paste) are split after it
    launched = None if exported or len(sources) != 1 else _by_launcher(sources[0], job)
    if launched:
        sources, job = [LogSource(name, text) for name, text in launched[0]], launched[1]
    repaired = [] if exported else [(s, repair_paste(s.text)) for s in sources]
    sources = [LogSource(s.name, r.text) if r.notes else s for s, r in repaired] or sources
    sources, job, by_pod = (sources, job, launched[2]) if launched else _by_pod(sources, job, exported)
    by_pod, tree_nproc = by_pod or tree_how, None if nproc_per_node else tree_nproc
    nproc_per_node = nproc_per_node or tree_nproc
    if by_pod and by_pod.startswith(PER_PROCESS) and not nproc_per_node:
        nproc_per_node = 1  # one process per node: each file's rank is its node's
    layout = infer_layout(sources, nproc_per_node, world_size, nodes)
    if tree_nproc:
        layout.hints["nproc_per_node"] = "the --log-dir tree's local-rank folders"
    if by_pod and by_pod.startswith(PER_PROCESS) and layout.hints.get("nproc_per_node") == "option" and nproc_per_node == 1:
        layout.hints["nproc_per_node"] = "one file per process"
    layout.repairs = {s.name: r.notes for s, r in repaired if r.notes}
    layout.job, layout.namespace = job, namespace
    if by_pod:
        layout.hints["nodes"] = by_pod
    # logs in the order a tool numbered them (srun's %t): each at the node its lines' global ranks name (log_rank_order)
    elif order := rank_order(sources, layout.nproc_per_node):
        sources, layout.hints["nodes"] = [sources[i] for i in order], BY_RANK_LINES
    if len(sources) > 1 and not layout.placed and not (by_pod and by_pod.startswith(PER_PROCESS)):  # nodes of their own counts
        layout.node_nproc = node_nproc([s.text for s in sources], layout.nproc_per_node)  # (parsers/log_node_nproc.py)
    if layout.nproc_per_node > MAX_GUESSED_NPROC and not nproc_per_node:  # each named rank a pod, node unknown
        if len(sources) != 1 or not (layout := unplaced_layout(layout, sources)).placed:
            raise InputError(f"{layout.world_size} ranks, no rank named to import on its own, and not how many processes "
                             "each node ran: pass --nproc-per-node (and --world-size)")
    if layout.nodes > 4096:
        raise InputError(f"{layout.nodes} nodes inferred; pass --nproc-per-node to say how many processes each node ran")
    if len(sources) == 1 and not split:
        bodies = [sources[0].text] + [""] * (layout.nodes - 1)
    elif len(sources) == 1:
        src = sources[0]
        routed = (route_named(src.lines, src.line_ranks, layout.placed, layout.hosts) if layout.placed
                  else route_lines(src.lines, layout.nproc_per_node, layout.nodes, src.line_ranks))
        bodies = ["\n".join(src.lines[i] for i in idx) for idx in routed]
    else:
        bodies = [s.text for s in sources] + [""] * (layout.nodes - len(sources))
    first, last = _clock([ln for s in sources for ln in s.lines], now)
    started = (first or now) - dt.timedelta(minutes=1)
    ended = last or now
    manifest = new_manifest(scope={"namespaces": [namespace], "jobs": [f"{namespace}/{job}"]},
                            window_start=started, window_end=ended, created_at=now)
    manifest["cluster"] = {"context": None, "server": None, "kubernetes_version": None, "imported": True}
    writer = BundleWriter(out, manifest)
    names = [s.name for s in sources] if len(sources) > 1 else [sources[0].name] * layout.nodes
    layout.rank_unknown = layout_assumed(layout, sources)
    unordered = any(n.startswith(LINE_ORDER_UNKNOWN) for notes in layout.repairs.values() for n in notes)
    for body in _objects(namespace, job, layout, started, names, layout.rank_unknown, unordered, file_label(files, by_pod, len(sources))):
        meta = body["metadata"]
        writer.add("objects", {"captured_at": ended, "api_version": body["apiVersion"], "kind": body["kind"],
                               "namespace": meta.get("namespace"), "name": meta["name"], "uid": meta["uid"], "body": json.dumps(body)})
    for node_rank, body in zip(layout.placed or range(layout.nodes), bodies):
        name = _pod_name(job, node_rank)
        writer.add("logs", {"captured_at": ended, "node": node_of(layout, node_rank), "namespace": namespace, "pod": name,
                            "pod_uid": f"imported-{name}", "container": "pytorch", "previous": False, "body": body, "error": None})
    add_unknown(writer, lost, namespace, job, started, ended)
    stamp = iso(now)
    writer.record_collector({"name": "logs", "status": "ok", "started_at": stamp, "finished_at": stamp, "rows": len(bodies),
                             "errors": [], "imported_from": [s.name for s in sources], "layout": layout.hints,
                             **({"paste_repairs": layout.repairs} if layout.repairs else {})})
    bundle = writer.close(complete=True)
    if derive:
        rebuild(bundle)
    return Bundle.open(bundle.path), layout


__all__ = ["IMPORTED_ANNOTATION", "Layout", "LogSource", "import_logs", "infer_layout", "read_source", "read_sources", "route_lines", "tagged_rank"]
