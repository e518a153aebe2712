"""What a cluster UI's log pane or log download hands a user, made from one recorded run (tests/data/torch-runs): the
eleventh family beside ``export_shapes``, ``launcher_shapes``, ``job_shapes``, ``session_shapes``, ``store_shapes``,
``platform_shapes``, ``console_shapes``, ``chat_shapes``, ``viewer_shapes`` and ``tracker_shapes``. ``shapes(node_texts,
nproc)`` gives, per shape, the files a user would hand to ``k10s import-logs`` (``[(relative path, text)]``).
Deterministic. Pods, container, namespace as ``export_shapes`` names them. Formats (each from the tool's source; searched,
not copied):

* the Kubernetes Dashboard's log view downloaded, one file per pod (the view's download button: the file named
  ``logs-from-<container>-in-<pod>.txt``, the container's whole log as the API server gives it, the kubelet's time
  only where the view's timestamp toggle is on: off, its default, in ``dashboard-log-download``; on, the API server's
  RFC 3339 nano time before each line, in ``dashboard-log-download-timestamps``);
* Lens / OpenLens's pod log pane copied with its *Show timestamps* toggle on (one pod, the master's: each line the
  kubelet's time formatted by moment's default ``format()`` in the viewer's zone — ``2026-11-28T13:05:03+01:00``, whole
  seconds, the offset — then the line as the kubelet gave it, after its space);
* the Kubeflow Pipelines UI's log pane of a v2 step that ran torchrun (the step is one pod, the job's node 0): the step's
  pod name the user pasted above, then the pane's lines (the line numbers are not selectable, so not copied): Argo's
  emissary ``time="…" level=info msg="capturing logs" argo=true``, the KFP launcher's Go glog lines (``I1128
  12:05:01.004211      27 launcher_v2.go:90] …``: the pid padded to seven columns), the step's own output, then the
  launcher's ``publish success.`` / ``failed to execute component: exit status 1`` (glog ``F``), Argo's ``sub-process
  exited`` and ``Error: exit status 1``: one pod's log only;
* Databricks' notebook cell output of ``TorchDistributor(num_processes=<nodes>, local_mode=False).run(...)`` (pyspark
  ``ml/torch/distributor.py`` and ``log_communication.py``): each Spark barrier task runs torchrun for one node and
  relays every line of its output to the driver, which prints it as is (no prefix, the nodes' lines interleaved as they
  come); then the failed task's ``RuntimeError: Command [<python>, '-m', 'pyspark.ml.torch.torch_run_process_wrapper',
  '--nnodes=<n>', '--node_rank=<i>', …] failed with return code 1. The last 100 lines of the task output are included
  below: <its last 100 lines>`` (the first on the message's line) in PySpark's ``PythonException: … An exception was
  thrown from the Python worker. Please see the stack trace below.`` (the recordings' processes per node kept: the
  distributor itself starts one per task).
"""

from __future__ import annotations

import datetime as dt

from export_shapes import CONTAINER, _dt, _hex, entries, pod_name
from launcher_shapes import _join

#: the viewer's zone (Central European Time in November: UTC+1)
VIEWER = dt.timezone(dt.timedelta(hours=1))
#: the KFP launcher's pid inside the step's container
LAUNCHER_PID = 27


def dashboard_download(es, stamped: bool = False) -> list[tuple[str, str]]:
    nodes = sorted({n for _, n, _ in es})
    return [(f"logs-from-{CONTAINER}-in-{pod_name(n)}.txt", _join((f"{t} " if stamped else "") + line for t, m, line in es if m == n))
            for n in nodes]


def lens_pane(es) -> str:
    return _join(_dt(t).astimezone(VIEWER).strftime("%Y-%m-%dT%H:%M:%S+01:00") + " " + line for t, n, line in es if n == 0)


def _glog(d: dt.datetime, level: str, where: str, text: str) -> str:
    return f"{level}{d:%m%d %H:%M:%S}.{d.microsecond:06d} {LAUNCHER_PID:7d} {where}] {text}"


def kfp_step(es) -> str:
    own = [(t, line) for t, n, line in es if n == 0]
    if not own:
        return ""
    first, last = _dt(own[0][0]), _dt(own[-1][0])
    before, after = first - dt.timedelta(seconds=2), last + dt.timedelta(milliseconds=40)
    pod = f"train-pipeline-{_hex(own[0][1], 5)}-system-container-impl-{int(_hex(own[-1][1], 8), 16) % 10**10}"
    argo = "%Y-%m-%dT%H:%M:%S.{ms:03d}Z"
    head = [pod, f'time="{before.strftime(argo).format(ms=before.microsecond // 1000)}" level=info msg="capturing logs" argo=true',
            _glog(before, "I", "launcher_v2.go:90", 'input ComponentSpec:{"executorLabel":"exec-train","inputDefinitions":{"parameters":{"epochs":{"parameterType":"NUMBER_INTEGER"}}}}'),
            _glog(before, "I", "cache.go:139", "Cannot detect ml-pipeline in the same namespace, default to ml-pipeline.kubeflow:8887 as KFP endpoint."),
            _glog(before, "I", "cache.go:116", "Connecting to cache endpoint ml-pipeline.kubeflow:8887")]
    tail = [_glog(after, "I", "launcher_v2.go:181", "publish success."),
            _glog(after, "I", "client.go:738", "Attempting to update DAG state"),
            _glog(after, "F", "main.go:53", "failed to execute component: exit status 1"),
            f'time="{after.strftime(argo).format(ms=after.microsecond // 1000)}" level=info msg="sub-process exited" argo=true error="<nil>"',
            "Error: exit status 1"]
    return _join(head + [line for _, line in own] + tail)


_WORKER = "/databricks/spark/python/pyspark"


def databricks_driver(es, nproc: int, codes: list[int] | None = None) -> str:
    nodes = sorted({n for _, n, _ in es})
    out = [line for _, _, line in es]
    failed = [n for n in nodes if codes is None or (n < len(codes) and codes[n] != 0)]
    if not failed:
        return _join(out)
    node = min(failed, key=lambda n: max(_dt(t) for t, m, _ in es if m == n))
    cmd = ["/databricks/python3/bin/python", "-m", "pyspark.ml.torch.torch_run_process_wrapper", f"--nnodes={len(nodes)}",
           f"--node_rank={node}", "--rdzv_endpoint=10.139.64.4:46423", "--rdzv_id=0", f"--nproc_per_node={nproc}",
           "/Workspace/Users/dana@team-a.example/train.py"]
    tail = [line for _, m, line in es if m == node][-100:]
    last_n = "last 100 lines of the task output are" if len(tail) == 100 else "task output is"
    out += ["", "PythonException: ", "  An exception was thrown from the Python worker. Please see the stack trace below.",
            "Traceback (most recent call last):", f'  File "{_WORKER}/ml/torch/distributor.py", line 736, in wrapped_train_fn',
            f'  File "{_WORKER}/ml/torch/distributor.py", line 585, in _run_training_on_pytorch_file',
            f'  File "{_WORKER}/ml/torch/distributor.py", line 547, in _execute_command', "    raise RuntimeError(",
            f"RuntimeError: Command {cmd} failed with return code 1. The {last_n} included below: {tail[0] if tail else ''}",
            *tail[1:]]
    return _join(out)


SHAPES = ("dashboard-log-download", "dashboard-log-download-timestamps", "lens-pane-timestamps", "kfp-step-log", "databricks-driver")


def shapes(node_texts: list[str], nproc: int = 1, codes: list[int] | None = None) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first); ``codes``: each node's torchrun exit
    status (the failed Spark task's; None: every node failed)."""
    es = entries(node_texts)
    return {"dashboard-log-download": dashboard_download(es), "dashboard-log-download-timestamps": dashboard_download(es, stamped=True),
            "lens-pane-timestamps": [("lens-copy.txt", lens_pane(es))],
            "kfp-step-log": [("kfp-step.log", kfp_step(es))], "databricks-driver": [("driver-cell-output.txt", databricks_driver(es, nproc, codes))]}


__all__ = ["SHAPES", "shapes"]
