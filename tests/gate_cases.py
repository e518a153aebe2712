"""A minimal edit of a healthy gang per branch of every gated rule (tests/test_gates.py): each
``(rule, edit)`` in ``CASES`` makes that rule fire; its gate must then be true.
"""

from __future__ import annotations

from _analyze_kit import at, samples

def _container(pod: dict, **kw) -> dict:
    return {"namespace": pod["namespace"], "pod": pod["pod"], "pod_uid": pod["pod_uid"], "container": "pytorch", "restart_count": 0, **kw}


def _log(g, rank, kind, t, **kw):
    r = g["ranks"][rank]
    return {"ts": at(t), "namespace": r["namespace"], "pod": r["pod"], "pod_uid": r["pod_uid"], "node": r["node"], "container": "pytorch",
            "kind": kind, "rank": rank, "line": f"{kind} line", **kw}


def _startup_creating(g):
    g["pods"][1].update(phase="Pending", started_at=None)
    g["containers"] = [_container(g["pods"][1], state="waiting", reason="ContainerCreating", message="failed to create shim task")]


def _startup_admission(g):
    g["pods"][1].update(phase="Failed", started_at=None, reason="UnexpectedAdmissionError", message="Allocate failed due to no healthy devices")


def _startup_slow_pull(g):
    g["events"] = [{"ts": at(-300), "namespace": "team-a", "object_kind": "Pod", "object_name": g["pods"][0]["pod"], "reason": "Pulled",
                    "type": "Normal", "message": 'Successfully pulled image "nvcr.io/x:1" in 5m3.2s (5m3.2s including waiting)'}]


def _startup_shm(g):
    g["pod_runtime"] = [{"namespace": p["namespace"], "pod": p["pod"], "pod_uid": p["pod_uid"], "spec_known": True, "shm_volume_kind": "none"}
                        for p in g["pods"]]


def _oom_log(g):
    g["log_events"] = [_log(g, 1, "cuda_oom", 60, oom_total_mib=15360.0, oom_in_use_mib=15200.0, oom_requested_mib=512.0)]


def _oom_container(g):
    g["containers"] = [_container(g["pods"][1], restart_count=1, state="running", last_reason="OOMKilled", last_exit_code=137, last_finished_at=at(120))]


def _oom_framebuffer(g):
    g["containers"] = [_container(g["pods"][1], state="terminated", exit_code=1, finished_at=at(300))]
    g["gpu_samples"] = samples(g, override=lambda r, t, row: row.update(fb_used_mib=row["fb_total_mib"] * 0.99) if r == 1 else None)


def _crash_logs(g):
    g["log_events"] = [_log(g, 1, "cuda_oom", 60), _log(g, 1, "cuda_oom", 1500)]


def _crash_deaths(g):
    g["containers"] = [_container(g["pods"][1], restart_count=1, state="terminated", exit_code=1, finished_at=at(400),
                                  last_exit_code=1, last_finished_at=at(100))]


def _pending_pod(g):
    g["pods"].append({"namespace": "team-b", "pod": "big-0", "pod_uid": "uid-big-0", "phase": "Pending", "created_at": at(-300),
                      "gpu_request": 16, "job": "big", "job_kind": "PyTorchJob", "scheduled": False})


def _pending_quota(g):
    g["kueue_workloads"] = [{"namespace": "team-c", "workload": "w-1", "queue_name": "lq", "owner_kind": "PyTorchJob", "owner_name": "big",
                             "admitted": False, "gpu_request": 64, "message": "insufficient unused quota"}]


def _startup_pasted(g):
    g["log_events"] = [{**_log(g, 0, "container_start", 900, subkind="no-nvidia-runtime", error_type="docker",
                              error_message='could not select device driver "" with capabilities: [[gpu]]'), "rank": None}]


def _pending_pasted(g):
    g["log_events"] = [{**_log(g, 0, "scheduler_pending", 900, subkind="insufficient-gpu", error_type="kube-scheduler",
                              error_message="0/4 nodes are available: 4 Insufficient nvidia.com/gpu."), "rank": None}]


def _xid_log(g):
    g["log_events"] = [{"ts": at(200), "node": "gpu-node-1", "kind": "xid", "xid": 79, "bus_id": "0000:10:00.0", "line": "NVRM: Xid (PCI:0000:10:00): 79"}]


def _xid_sample(g):
    g["gpu_samples"] = samples(g, override=lambda r, t, row: row.update(xid=48) if r == 0 and t >= 300 else None)


def _throttle(g):
    g["gpu_samples"] = samples(g, override=lambda r, t, row: row.update(throttle_reasons=8) if r == 0 else None)


def _ecc(g):
    g["gpus"][0]["ecc_dbe_volatile"] = 2


def _node_not_ready(g):
    g["nodes"][1]["ready"] = False


def _disrupted_condition(g):
    g["pods"][1].update(disruption_reason="PreemptionByScheduler", disruption_message="default-scheduler: preempting to accommodate a higher priority pod",
                        disrupted_at=at(200), phase="Failed", finished_at=at(203))


def _disrupted_status(g):
    g["pods"][1].update(reason="Terminated", message="Pod was terminated in response to imminent node shutdown.", phase="Failed",
                        finished_at=at(200))


def _disrupted_event(g):
    g["events"] = [{"ts": at(200), "namespace": "team-a", "object_kind": "Pod", "object_name": g["pods"][1]["pod"], "object_uid": "uid-gone",
                    "reason": "Preempted", "message": "Preempted by pod 5f0d on node gpu-node-1", "count": 1}]


def _network(g):
    rows = []
    for a in g["pods"]:
        for b in g["pods"]:
            bad = "llama-worker-2" in (a["pod"], b["pod"])
            rows += [{"ts": at(i * 120), "namespace": a["namespace"], "pod": a["pod"], "node": a["node"], "state": "ESTAB", "local_addr": a["pod_ip"],
                      "local_port": 40000 + i, "peer_addr": b["pod_ip"], "peer_port": 50000, "rtt_ms": 4.0 if bad else 0.3, "minrtt_ms": 0.2,
                      "retrans_total": i * (400 if bad else 0), "bytes_sent": i * 10_000_000, "bytes_retrans": i * (300_000 if bad else 0)}
                     for i in range(5) if a is not b]
    g["tcp_samples"] = rows


def _hang_watchdog(g):
    g["log_events"] = [_log(g, r, "nccl_watchdog_timeout", 900 + r, seq_num=431, op_type="ALLREDUCE", timeout_ms=600000, ran_for_ms=600100)
                       for r in (0, 1, 3)]


def _hang_gloo_wait(g):
    g["log_events"] = [_log(g, r, "python_exception", 900 + r, subkind="raised", error_type="RuntimeError",
                            error_message="[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 30000ms for recv operation to complete")
                       for r in (0, 1, 3)]


def _hang_printed_fr(g):
    g["log_events"] = [{**_log(g, 0, "flight_recorder_missing_ranks", 900, pg="0", seq_num=431, op_type="ALLREDUCE"), "rank": 2}]


CASES = [
    ("gpu-startup", _startup_creating), ("gpu-startup", _startup_admission), ("gpu-startup", _startup_slow_pull), ("gpu-startup", _startup_shm), ("gpu-startup", _startup_pasted),
    ("oom-cascade", _oom_log), ("oom-cascade", _oom_container), ("oom-cascade", _oom_framebuffer),
    ("crashloop", _crash_logs), ("crashloop", _crash_deaths),
    ("pending", _pending_pod), ("pending", _pending_quota), ("pending", _pending_pasted),
    ("gpu-health", _xid_log), ("gpu-health", _xid_sample), ("gpu-health", _throttle), ("gpu-health", _ecc), ("gpu-health", _node_not_ready),
    ("network", _network),
    ("disruption", _disrupted_condition), ("disruption", _disrupted_status), ("disruption", _disrupted_event),
    ("nccl-hang", _hang_watchdog), ("nccl-hang", _hang_gloo_wait), ("nccl-hang", _hang_printed_fr),
]
