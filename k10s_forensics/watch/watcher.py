"""``k10s watch``: watch the scope, turn changes into triggers, run incidents, serve HTTP.

Read-only: it lists and watches pods, events, the training-job kinds and Kueue Workloads,
reads pod logs, and (through capture) execs the allow-listed commands. Its only write is an
Event on the job, with ``--events``.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

from k10s_forensics.watch import alerts, httpd, notify, page, store
from k10s_forensics.watch.config import WatchConfig, listen_address
from k10s_forensics.watch.incidents import Incident, Incidents
from k10s_forensics.watch.informer import Informer
from k10s_forensics.watch.kubeapi import ApiError, KubeApi
from k10s_forensics.watch.logfollow import Follower, container_running, training_container
from k10s_forensics.watch.metrics import Metrics
from k10s_forensics.watch.triggers import Trigger, job_of_pod, job_triggers, pod_triggers, workload_triggers

#: kind -> (group, versions to try, plural)
KIND_APIS = {
    "PyTorchJob": ("kubeflow.org", ("v1",), "pytorchjobs"),
    "MPIJob": ("kubeflow.org", ("v2beta1", "v1"), "mpijobs"),
    "TrainJob": ("trainer.kubeflow.org", ("v1alpha1",), "trainjobs"),
    "JobSet": ("jobset.x-k8s.io", ("v1alpha2",), "jobsets"),
    "RayJob": ("ray.io", ("v1", "v1alpha1"), "rayjobs"),
}
WORKLOADS = ("kueue.x-k8s.io", ("v1beta1", "v1beta2"), "workloads")
_ALERT_NAME = re.compile(r"[^A-Za-z0-9_.:-]+")


class Watcher:
    def __init__(self, cfg: WatchConfig, connection: Any, log: Any = None):
        self.cfg, self.connection = cfg, connection
        self.out = Path(cfg.out)
        self.log = log or sys.stderr
        self.api = KubeApi(connection.configuration)
        self.metrics = Metrics()
        self.stop_event = threading.Event()
        self.incidents = Incidents(cfg, connection, self.metrics, after=self._after, log=self.log)
        self.informers: dict[str, list[Informer]] = {}
        self.followers: dict[tuple[str, str, str], Follower] = {}
        self.first_done = threading.Event()
        self.http: Any = None
        self._lock = threading.Lock()

    # ---- start / stop -------------------------------------------------------------------
    def start(self, serve_http: bool = True) -> "Watcher":
        self.out.mkdir(parents=True, exist_ok=True)
        stale = [p.name for p in store.entries(self.out) if p.name.endswith(store.PARTIAL)]
        if stale:
            self.incidents.say(f"{len(stale)} incomplete incident folder(s) from before (.partial): {', '.join(stale[:5])}")
        page.write_index(self.out)
        self.metrics.gauges["k10s_watch_bytes_kept"] = lambda: store.used_bytes(self.out)
        self.metrics.gauges["k10s_watch_stream_reconnects_total"] = lambda: self._informer_stat("reconnects")
        self.metrics.gauges["k10s_watch_relists_total"] = lambda: self._informer_stat("lists")
        if serve_http:
            host, port = listen_address(self.cfg.listen)
            self.http = httpd.start(self, host, port)
        for name, path in self._paths():
            self._informer(name, path)
        return self

    @property
    def url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self, wait_s: float = 30.0) -> None:
        self.stop_event.set()
        self.api.close_all()
        self.incidents.stop(wait_s)
        if self.http is not None:
            self.http.shutdown()
            self.http.server_close()

    def _paths(self) -> list[tuple[str, str]]:
        scopes = [f"/namespaces/{ns}" for ns in self.cfg.namespaces] or [""]
        out = []
        for prefix in scopes:
            out += [("pods", f"/api/v1{prefix}/pods"), ("events", f"/api/v1{prefix}/events")]
        served = self._served_groups()
        for kind in self.cfg.kinds:
            group, versions, plural = KIND_APIS[kind]
            version = next((v for v in versions if v in served.get(group, ())), None)
            if version:
                out += [(kind, f"/apis/{group}/{version}{p}/{plural}") for p in scopes]
        group, versions, plural = WORKLOADS
        version = next((v for v in versions if v in served.get(group, ())), None)
        if version:
            out += [("workloads", f"/apis/{group}/{version}{p}/{plural}") for p in scopes]
        return out

    def _served_groups(self) -> dict[str, set[str]]:
        for attempt in range(5):
            try:
                doc = self.api.get("/apis", timeout_s=10)
                return {g.get("name"): {v.get("version") for v in g.get("versions") or []} for g in doc.get("groups") or []}
            except ApiError as exc:
                self.incidents.say(f"API discovery failed ({exc}); retrying")
                if self.stop_event.wait(min(2 ** attempt, 10)):
                    break
        return {}

    def _informer(self, name: str, path: str) -> None:
        handler = {"pods": self._on_pod, "events": self._on_event, "workloads": self._on_workload}.get(name, self._on_job)
        selector = self.cfg.selector if name not in ("events", "workloads") else ""
        fields = "involvedObject.kind=Workload" if name == "events" else ""  # only Kueue's events are used: keep few
        inf = Informer(self.api, path, handler, self.stop_event, selector=selector, field_selector=fields,
                       timeout_s=self.cfg.watch_timeout_s, backoff_max_s=self.cfg.backoff_max_s, name=name)
        self.informers.setdefault(name, []).append(inf)
        threading.Thread(target=inf.run, name=f"watch-{path}", daemon=True).start()

    # ---- changes -> triggers ------------------------------------------------------------
    def _submit(self, triggers: list[Trigger]) -> None:
        for trigger in triggers:
            self.incidents.submit(trigger)

    def _on_pod(self, kind: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if kind == "SYNCED":
            for inf in self.informers.get("pods", []):
                for obj in list(inf.objects.values()):
                    self._follow(obj)
            return
        self._submit(pod_triggers(old, new))
        if new is not None:
            self._follow(new)

    def _on_job(self, kind: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if kind != "SYNCED":
            self._submit(job_triggers(old, new))

    def _on_workload(self, kind: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if kind != "SYNCED":
            self._submit(workload_triggers(old, new))

    def _on_event(self, kind: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """Kueue's eviction/preemption Events on a Workload (the condition may already be gone)."""
        if kind != "ADDED" or new is None:
            return
        obj = new.get("involvedObject") or {}
        if obj.get("kind") == "Workload" and new.get("reason") in ("Evicted", "Preempted"):
            ns, name = obj.get("namespace") or "", obj.get("name") or ""
            for inf in self.informers.get("workloads", []):
                wl = inf.objects.get((ns, name))
                owner = next(iter(((wl or {}).get("metadata") or {}).get("ownerReferences") or []), None)
                if owner:
                    self._submit([Trigger(f"{ns}/{owner.get('name')}", f"kueue-{new['reason'].lower()}",
                                          f"Event on Workload {name}: {str(new.get('message', ''))[:200]}", "", owner.get("kind", ""))])

    # ---- logs ---------------------------------------------------------------------------
    def _follow(self, pod: dict[str, Any]) -> None:
        if not self.cfg.log_follow or job_of_pod(pod) is None:
            return
        meta = pod.get("metadata") or {}
        container = training_container(pod)
        if not container or not container_running(pod, container):
            return
        key = (meta.get("namespace") or "", meta.get("name") or "", container)
        with self._lock:
            if key in self.followers and self.followers[key].thread.is_alive():
                return
            job, kind = job_of_pod(pod)
            pod_ref = f"{key[0]}/{key[1]}"

            def on_line(reason: str, text: str) -> None:
                self._submit([Trigger(job, f"log-{reason}", f"{pod_ref}: {text[:240]}", pod_ref, kind)])

            follower = Follower(self.api, key[0], key[1], container, self.cfg.log_follow_bytes_per_pod, on_line,
                                lambda: self._pod_running(key), self.stop_event, self.cfg.log_retry_s, self.metrics)
            self.followers[key] = follower
        follower.thread.start()

    def _pod_running(self, key: tuple[str, str, str]) -> bool:
        for inf in self.informers.get("pods", []):
            pod = inf.objects.get(key[:2])
            if pod is not None:
                return container_running(pod, key[2])
        return False

    # ---- HTTP triggers ------------------------------------------------------------------
    def pod_job(self, namespace: str, pod: str) -> str | None:
        for inf in self.informers.get("pods", []):
            obj = inf.objects.get((namespace, pod))
            if obj is not None:
                owner = job_of_pod(obj)
                return owner[0] if owner else None
        return None

    def node_jobs(self, node: str) -> list[str]:
        jobs = []
        for inf in self.informers.get("pods", []):
            for obj in list(inf.objects.values()):
                owner = job_of_pod(obj)
                if owner and (obj.get("spec") or {}).get("nodeName") == node:
                    jobs.append(owner[0])
        return jobs

    def known_jobs(self) -> set[str]:
        """Jobs the watcher sees: its training pods' jobs and the job objects it watches."""
        jobs = {owner[0] for inf in self.informers.get("pods", []) for obj in list(inf.objects.values())
                if (owner := job_of_pod(obj))}
        for kind in KIND_APIS:
            for inf in self.informers.get(kind, []):
                jobs.update(f"{ns}/{name}" for ns, name in list(inf.objects))
        return jobs

    def on_alertmanager(self, doc: Any) -> dict[str, Any]:
        firing = alerts.firing_alerts(doc)
        matched, outcomes = [], []
        for labels in firing:
            name = _ALERT_NAME.sub("-", labels.get("alertname", "alert"))[:100]
            known = self.known_jobs()
            for job in [j for j in alerts.match(labels, self.pod_job, self.node_jobs) if j in known]:
                detail = " ".join(f"{k}={v[:60]}" for k, v in sorted(labels.items())[:8])
                outcomes.append(self.incidents.submit(Trigger(job, f"alert-{name}", detail)))
                matched.append(job)
        return {"firing": len(firing), "matched": matched, "outcomes": outcomes}

    def on_manual(self, doc: Any) -> dict[str, Any]:
        job = alerts.manual_job(doc)
        if job not in self.known_jobs():  # a trigger for anything else would only spend the rate limits
            raise alerts.BadBody(f"{job}: not a training job this watcher sees")
        return {"job": job, "outcome": self.incidents.submit(Trigger(job, "manual", "asked for (POST /trigger)"))}

    # ---- after an incident --------------------------------------------------------------
    def _after(self, incident: Incident, result: dict[str, Any]) -> None:
        page.write_index(self.out)
        if self.cfg.notify_url:
            outcome = notify.send_webhook(self.cfg.notify_url, notify.message(incident, result))
            self.metrics.inc("k10s_watch_notifications_total", outcome="ok" if outcome == "ok" else "failed")
            if outcome != "ok":
                self.incidents.say(f"notification for {incident.id} failed: {outcome}")
        if self.cfg.events:
            self._event(incident, result)
        self.first_done.set()

    def _event(self, incident: Incident, result: dict[str, Any]) -> None:
        ns, name = incident.job.split("/", 1)
        job_obj = next((inf.objects.get((ns, name)) for k, infs in self.informers.items() if k in KIND_APIS
                        for inf in infs if inf.objects.get((ns, name))), None)
        try:
            self.api.post(f"/api/v1/namespaces/{ns}/events", notify.job_event(incident, result, job_obj))
        except ApiError as exc:
            self.incidents.say(f"event for {incident.id} not created: {exc}")

    def _informer_stat(self, name: str) -> int:
        return sum(i.stats[name] for infs in list(self.informers.values()) for i in infs)

    def health(self) -> tuple[bool, str]:
        waiting = [n for n, infs in self.informers.items() for i in infs if not i.synced.is_set()]
        if waiting:
            return False, "not synced yet: " + ", ".join(sorted(set(waiting)))
        denied = sorted({n for n, infs in self.informers.items() for i in infs if i.absent and "403" in i.last_error})
        return True, "ok" + (f" (forbidden, not watched: {', '.join(denied)})" if denied else "")

    def wait_synced(self, timeout_s: float) -> bool:
        end = time.time() + timeout_s
        return all(i.synced.wait(max(0.0, end - time.time())) for infs in self.informers.values() for i in infs)


__all__ = ["KIND_APIS", "Watcher"]
