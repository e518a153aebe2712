"""Writes a simulated bundle: objects, rounds of scrapes/execs, logs, manifest, truth."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from k10s_forensics.store.bundle import BundleWriter, iso, new_manifest
from k10s_forensics.simulate import constants as C
from k10s_forensics.simulate import dmesg as dmesg_text
from k10s_forensics.simulate.activity import Physics
from k10s_forensics.simulate.dcgm_text import DcgmRenderer
from k10s_forensics.simulate.hang_writer import write_hang_dumps
from k10s_forensics.simulate.job import Pod
from k10s_forensics.simulate.job_objects import IMAGE, job_objects, pod_owner
from k10s_forensics.simulate.k8s_objects import Versions, event_body, namespace_body, node_body, operator_pod, pod_body, tenant_pod_body
from k10s_forensics.simulate.logs import rfc3339nano
from k10s_forensics.simulate.node_down import dead_exec, dial_error, exec_error, logs_error, marked, pod_not_ready, stopped
from k10s_forensics.simulate.nvidia_smi_xml import render_node
from k10s_forensics.simulate.sim import Sim
from k10s_forensics.simulate.ss_text import SsModel
from k10s_forensics.simulate.training import EPOCH, US, StepBlock, render_block

MS = dt.timedelta(milliseconds=1)
OCI_NO_SS = ('OCI runtime exec failed: exec failed: unable to start container process: exec: "ss": executable file not '
             "found in $PATH: unknown\r\n")


class Counter:
    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        self.errors: dict[str, list[str]] = {}

    def add(self, name: str, n: int = 1) -> None:
        self.rows[name] = self.rows.get(name, 0) + n

    def error(self, name: str, text: str) -> None:
        errs = self.errors.setdefault(name, [])
        if text not in errs and len(errs) < 20:
            errs.append(text)


def _obj(bw: BundleWriter, cnt: Counter, collector: str, t: dt.datetime, api: str, body: dict) -> None:
    md = body["metadata"]
    bw.add("objects", {"captured_at": t, "api_version": api, "kind": body["kind"], "namespace": md.get("namespace"),
                       "name": md["name"], "uid": md["uid"], "body": json.dumps(body, separators=(",", ":"))})
    cnt.add(collector)


def pod_running(pod: Pod, t: dt.datetime) -> bool:
    runs = [r for r in pod.runs if r.started <= t]
    return bool(runs) and (runs[-1].finished is None or runs[-1].finished > t)


def write_objects(sim: Sim, bw: BundleWriter, cnt: Counter, t: dt.datetime, final: bool) -> None:
    cl, job, rv = sim.cluster, sim.job, Versions(4_200_000 + int((t - sim.start).total_seconds()) * 1000)
    ns_created = cl.base_time - dt.timedelta(days=40)
    namespaces = ["default", "kube-system", C.GPU_OPERATOR_NAMESPACE] + ([job.namespace] if job else [])
    namespaces += sorted({p["namespace"] for p in sim.tenant_pods} - set(namespaces))
    for name in namespaces:
        _obj(bw, cnt, "namespaces", t, "v1", namespace_body(name, sim.ns_uids[name], ns_created, rv))
    for node in cl.nodes:
        lost_at = sim.lost.get(node.name)
        lost = 1 if lost_at is not None and lost_at <= t else 0
        _obj(bw, cnt, "nodes", t, "v1", node_body(cl, node, rv, lost, marked(sim, node.name, t)))
    op_created = cl.base_time - dt.timedelta(days=2, hours=3)
    for node in cl.nodes:
        _obj(bw, cnt, "gpu-operator", t, "v1", operator_pod(node, C.DCGM_EXPORTER_APP, node.exporter_pod, node.exporter_uid, op_created, rv, t))
        _obj(bw, cnt, "gpu-operator", t, "v1", operator_pod(node, C.DRIVER_APP, node.driver_pod, node.driver_uid, op_created, rv, t))
    if job is not None and job.created <= t:
        for api, body in job_objects(job, rv, t, sim.job_state_at(t), sim.job_started, sim.restarts_at(t)):
            _obj(bw, cnt, "training-jobs", t, api, body)
        owner = pod_owner(job)
        for pod in job.pods_at(t):
            body, down = pod_body(cl, job, pod, rv, t, owner, IMAGE), pod.node and marked(sim, pod.node.name, t)
            _obj(bw, cnt, "pods", t, "v1", pod_not_ready(body, down[1]) if down else body)
    for tp in sim.tenant_pods:
        _obj(bw, cnt, "pods", t, "v1", tenant_pod_body(tp, rv, cl.node(tp["node"])))
    for api, body in sim.extra_objects:
        _obj(bw, cnt, {"RuntimeClass": "runtime-classes", "Pod": "gpu-operator"}.get(body.get("kind"), "kueue"), t, api, body)
    for e in sim.events:
        if e["first"] > t:
            continue
        last = min(e["last"], t)
        count = e["count"] if final else max(1, int(e["count"] * ((t - e["first"]) / max(e["last"] - e["first"], MS))))
        body = event_body(e["ns"], e["kind"], e["name"], e["obj_uid"], e["reason"], e["etype"], e["message"], e["first"], last,
                          min(count, e["count"]), e["component"], e["uid"], rv, e["host"])
        _obj(bw, cnt, "events", t, "v1", body)


def _alloc_labels(sim: Sim, t: dt.datetime) -> list[str]:
    empty = 'container="",namespace="",pod=""'
    labels = [empty] * len(sim.cluster.gpus)
    for tp in sim.tenant_pods:
        for g in tp["gpus"]:
            labels[g] = f'container="{tp["container"]}",namespace="{tp["namespace"]}",pod="{tp["name"]}"'
    job = sim.job
    if job is None:
        return labels
    for pod in job.pods:
        if pod.node is None or pod.created > t or (pod.deleted is not None and pod.deleted <= t):
            continue
        last = pod.runs[-1] if pod.runs else None
        if last is not None and last.finished is not None and last.finished <= t and sim.released(pod):
            continue
        text = f'container="{job.container}",namespace="{job.namespace}",pod="{pod.name}"'
        for g in pod.gpu_ids:
            labels[g] = text
    return labels


def write_rounds(sim: Sim, bw: BundleWriter, cnt: Counter) -> None:
    cl, job = sim.cluster, sim.job
    physics = Physics(cl, sim.nrng, sim.tensor_level, sim.train_power)
    dcgm = DcgmRenderer(cl)
    xml_every = max(1, round(60.0 / sim.interval_s))
    ss_models: dict[tuple, SsModel] = {}
    seen_visible: set[str] = set()
    for k, t in enumerate(sim.rounds):
        frame = physics.frame(sim.activity.state(t), sim.interval_s)
        bodies = dcgm.render_all(frame, _alloc_labels(sim, t))
        for node, body in zip(cl.nodes, bodies):
            ts = t + MS * (120 + sim.rng.randrange(0, 900))
            if stopped(sim, node.name, ts):
                bw.add("scrapes", {"captured_at": ts + dt.timedelta(seconds=10), "source": C.SOURCE_DCGM, "node": node.name,
                                   "url": C.scrape_url(node.exporter_pod), "status": 503, "body": "",
                                   "error": f"error trying to reach service: {dial_error(node.ip, 9400)}"})
                cnt.error("dcgm", f"scrape of {node.exporter_pod}: node {node.name} unreachable")
            elif sim.rng.random() < sim.scrape_fail_p:
                bw.add("scrapes", {"captured_at": ts + dt.timedelta(seconds=10), "source": C.SOURCE_DCGM, "node": node.name,
                                   "url": C.scrape_url(node.exporter_pod), "status": 503, "body": "",
                                   "error": "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"})
                cnt.error("dcgm", f"scrape of {node.exporter_pod} timed out")
            else:
                bw.add("scrapes", {"captured_at": ts, "source": C.SOURCE_DCGM, "node": node.name, "url": C.scrape_url(node.exporter_pod),
                                   "status": 200, "body": body, "error": None})
            cnt.add("dcgm")
        if k % xml_every == 0:
            for node in cl.nodes:
                ts = t + MS * (1500 + sim.rng.randrange(0, 500))
                if stopped(sim, node.name, ts):
                    bw.add("exec", dead_exec(ts, node, C.SOURCE_NVIDIA_SMI_XML, C.GPU_OPERATOR_NAMESPACE, node.driver_pod, C.DRIVER_CONTAINER, C.NVIDIA_SMI_XML_CMD))
                    cnt.error("nvidia-smi", f"{node.name}: {exec_error(node.ip)}")
                    continue
                bw.add("exec", {"captured_at": ts, "duration_ms": 600 + sim.rng.randrange(0, 900), "source": C.SOURCE_NVIDIA_SMI_XML,
                                "node": node.name, "namespace": C.GPU_OPERATOR_NAMESPACE, "pod": node.driver_pod,
                                "container": C.DRIVER_CONTAINER, "command": C.NVIDIA_SMI_XML_CMD, "exit_code": 0,
                                "stdout": render_node(cl, node, frame, ts), "stderr": "", "error": None})
                cnt.add("nvidia-smi")
        if job is None:
            continue
        alive = [p for p in job.pods_at(t) if p.node is not None and p.runs and p.runs[0].started <= t]
        if not alive:
            continue
        key = tuple(p.ip for p in sorted(alive, key=lambda p: p.node_rank))
        if key not in ss_models:
            ordered = sorted(alive, key=lambda p: p.node_rank)
            ss_models[key] = SsModel([(p.ip, job.nproc) for p in ordered], job.master_port, sim.rng, sim.nrng, sim.nsocks)
        model = ss_models[key]
        ordered = sorted(alive, key=lambda p: p.node_rank)
        active = [bool(pod_running(p, t) and (frame["util"][p.gpu_ids[0]] > 5)) for p in ordered]
        bad = {ip: f for ip, (since, f) in sim.net_bad.items() if since <= t}
        rtt = model.advance(sim.interval_s, active, bad)
        for i, pod in enumerate(ordered):
            ts = t + MS * (2500 + sim.rng.randrange(0, 1500))
            row = {"captured_at": ts, "duration_ms": 20 + sim.rng.randrange(0, 60), "source": C.SOURCE_SS, "node": pod.node.name,
                   "namespace": job.namespace, "pod": pod.name, "container": job.container, "command": C.SS_CMD,
                   "exit_code": 0, "stdout": "", "stderr": "", "error": None}
            if not pod_running(pod, ts) and not any(r.started > ts for r in pod.runs):
                continue  # the container ended for good: capture only execs into running containers
            if stopped(sim, pod.node.name, ts):
                row.update(exit_code=None, error=exec_error(pod.node.ip), duration_ms=30000)
                cnt.error("ss", f"{job.namespace}/{pod.name}: {exec_error(pod.node.ip)}")
            elif not pod_running(pod, ts):
                row.update(exit_code=None, error="container not running (between restarts)", duration_ms=0)
                cnt.error("ss", f"{job.namespace}/{pod.name}: container not running")
            elif pod.name in sim.lacks_ss:
                row.update(exit_code=126, stderr=OCI_NO_SS)
                cnt.error("ss", f"ss not in image {IMAGE}-slim (pod {job.namespace}/{pod.name})")
            else:
                row["stdout"] = model.render(i, rtt)
            bw.add("exec", row)
            cnt.add("ss")
            if pod.uid not in seen_visible and pod_running(pod, ts) and not stopped(sim, pod.node.name, ts):
                seen_visible.add(pod.uid)
                uuids = ",".join(cl.gpus[g].uuid for g in pod.gpu_ids)
                bw.add("exec", {"captured_at": ts + MS * 300, "duration_ms": 15, "source": C.SOURCE_VISIBLE_DEVICES, "node": pod.node.name,
                                "namespace": job.namespace, "pod": pod.name, "container": job.container,
                                "command": C.VISIBLE_DEVICES_CMD, "exit_code": 0, "stdout": uuids + "\n", "stderr": "", "error": None})
                cnt.add("visible-devices")
        if k % 20 == 19:
            bw.checkpoint()


def _prefixed(style: str | None, pod: Pod, ts: dt.datetime, text: str) -> str:
    """A log shipper's prefix in front of the line (``job.log_prefix``)."""
    if style == "pod":
        return f"[{pod.name}] {text}"
    if style == "host":
        return f"{pod.hostname} >> {text}"
    if style == "clock":
        return f"{ts.strftime('%H:%M:%S')}.{ts.microsecond // 1000:03d} {text}"
    return text


def _log_body(sim: Sim, pod: Pod, run) -> str:
    until = (sim.end - EPOCH) // US
    lines: list[tuple[int, str]] = []
    style = sim.job.log_prefix if sim.job is not None else None
    for ts, item in run.lines:
        if isinstance(item, StepBlock):
            lines.extend(render_block(sim, pod, item, until))
        else:
            key = (ts - EPOCH) // US
            if key <= until:
                lines.append((key, f"{rfc3339nano(ts)} {_prefixed(style, pod, ts, item)}"))
    lines.sort(key=lambda x: x[0])
    return "".join(text + "\n" for _, text in lines)


def write_logs(sim: Sim, bw: BundleWriter, cnt: Counter) -> None:
    for row in sim.extra_logs:
        bw.add("logs", row)
        cnt.add("gpu-operator-logs")
    job = sim.job
    if job is None:
        return
    t = sim.end - MS * 800
    for pod in job.pods_at(t):
        if pod.node is None or not pod.runs:
            continue
        started = [r for r in pod.runs if r.started <= t]
        if not started:
            continue
        pairs = [(started[-1], False)] + ([(started[-2], True)] if len(started) >= 2 else [])
        gone = logs_error(pod.node.ip, job.namespace, pod.name, job.container) if stopped(sim, pod.node.name, t) else None
        for run, previous in pairs[:1] if gone else pairs:
            bw.add("logs", {"captured_at": t, "node": pod.node.name, "namespace": job.namespace, "pod": pod.name, "pod_uid": pod.uid,
                            "container": job.container, "previous": previous, "body": "" if gone else _log_body(sim, pod, run), "error": gone})
            cnt.add("logs") if not gone else cnt.error("logs", f"{job.namespace}/{pod.name}: {gone}")


def write_dmesg(sim: Sim, bw: BundleWriter, cnt: Counter) -> None:
    for node in sim.cluster.nodes:
        ts = sim.end - MS * 1500
        if stopped(sim, node.name, ts):
            bw.add("exec", dead_exec(ts, node, C.SOURCE_DMESG, C.GPU_OPERATOR_NAMESPACE, node.driver_pod, C.DRIVER_CONTAINER, C.DMESG_CMD))
            cnt.error("dmesg", f"{node.name}: {exec_error(node.ip)}")
            continue
        text = dmesg_text.render(sim, node, sim.dmesg.get(node.name, []))
        bw.add("exec", {"captured_at": ts, "duration_ms": 40, "source": C.SOURCE_DMESG, "node": node.name,
                        "namespace": C.GPU_OPERATOR_NAMESPACE, "pod": node.driver_pod, "container": C.DRIVER_CONTAINER,
                        "command": C.DMESG_CMD, "exit_code": 0, "stdout": text, "stderr": "", "error": None})
        cnt.add("dmesg")


def write_bundle(sim: Sim, out_dir: Path) -> None:
    job = sim.job
    manifest = new_manifest(
        cluster={"context": f"sim-{sim.scenario}", "server": f"https://sim-{sim.scenario}.k10s.invalid:6443", "kubernetes_version": sim.cluster.k8s_version},
        scope={"namespaces": [job.namespace] if job else [], "jobs": [f"{job.namespace}/{job.name}"] if job else []},
        window_start=sim.start, window_end=sim.end, created_at=sim.end + dt.timedelta(seconds=4),
    )
    manifest["simulated"] = {"scenario": sim.scenario, "seed": sim.seed}
    bw = BundleWriter(out_dir, manifest)
    cnt = Counter()
    if job is not None and job.pods and sim.scenario != "straggler-network" and sim.rng.random() < 0.3:
        sim.lacks_ss.add(job.latest()[0].name)  # e.g. a master pod built from a slim image without iproute2
    write_objects(sim, bw, cnt, sim.start + MS * 500, final=False)
    write_rounds(sim, bw, cnt)
    write_objects(sim, bw, cnt, sim.end - MS * 1000, final=True)
    write_dmesg(sim, bw, cnt)
    write_hang_dumps(sim, bw, cnt, pod_running)
    write_logs(sim, bw, cnt)
    extra = [n for n in ("runtime-classes", "gpu-operator-logs") if cnt.rows.get(n)]  # only startup-* scenarios write these
    for name in ("namespaces", "nodes", "gpu-operator", "pods", "events", "training-jobs", "kueue", "dcgm", "nvidia-smi", "ss",
                 "visible-devices", "dmesg", "flight-recorder", "ncclras", "logs", "prometheus", *extra):
        rows = cnt.rows.get(name, 0)
        errors = cnt.errors.get(name, [])
        run: dict[str, Any] = {"name": name, "started_at": iso(sim.start), "finished_at": iso(sim.end), "rows": rows, "errors": errors}
        if name == "prometheus":
            run.update(status="skipped", errors=["no --prometheus URL given"])
        elif name == "kueue" and not rows:
            run.update(status="skipped", errors=["kueue.x-k8s.io not served by this cluster"])
        elif name in ("pods", "training-jobs", "logs", "ss", "visible-devices", "flight-recorder", "ncclras") and not rows:
            run.update(status="skipped", errors=["no training pods running"] if name != "pods" else [])
            if name == "flight-recorder":
                run["errors"] = ["no training container sets TORCH_NCCL_TRACE_BUFFER_SIZE / TORCH_NCCL_DUMP_ON_TIMEOUT"]
            if name == "pods":
                run["status"] = "ok"
        else:
            run["status"] = "partial" if errors else "ok"
        bw.record_collector(run)
    bw.close(complete=True)
