"""What a user pastes from a multi-node launcher or platform, made from one recorded run (tests/data/torch-runs).

The companion of ``export_shapes`` (log pipelines): here every line carries what the launcher or
platform put in front of it, or the files it wrote. ``shapes(run)`` gives, per shape, the files a
user would hand to ``k10s import-logs`` (``[(relative path, bytes or text)]``). Deterministic.

A recording is torchrun agents, one per node; a launcher that starts one task per node (``srun``,
``mpirun``, ``pdsh``) therefore tags every line with the **node's** task id or host, not the global
rank, exactly as ``srun -l torchrun …`` with ``--ntasks-per-node=1`` does. Formats (each from the
tool's own docs or real output; searched, not copied):

* Slurm ``srun --label`` (``-l``: "Prepend task number to lines of stdout/err", srun(1)):
  ``<task>: <line>``, the task number right-aligned to the width of the highest one
  (``slurm-<jobid>.out``, every task's lines as they arrive);
* Open MPI 4 ``mpirun --tag-output``: ``[<jobid>,<rank>]<stderr>:<line>``; with
  ``--timestamp-output`` the ctime before it, ``Thu May  7 10:39:20 2020[1,1]<stdout>:…``
  (open-mpi/ompi#7710, as v4.0.2 printed it); ``--output-filename DIR``: one folder per rank,
  ``DIR/1/rank.<rank>/stdout`` and ``stderr`` (ompi#7133, #11032: what 4.1 writes);
* pdsh, as DeepSpeed's multinode runner uses it (``deepspeed --hostfile``, hosts ``worker-1``,
  ``worker-2`` as in DeepSpeed's hostfile example): ``<host>: <line>``;
* Ray Train workers (Ray starts them itself: no torchrun agent's lines, no torchrun tags):
  ``(RayTrainWorker pid=<pid>, ip=<ip>) <line>`` (real pastes in public
  threads, e.g. ``(RayTrainWorker pid=4797, ip=10.0.6.130) Copying checkpoint files …``), after
  the worker group the trainer prints first (``Started distributed worker processes:`` then ``- (ip=…,
  pid=…) world_rank=R, local_rank=L, node_rank=N``);
* SageMaker: one CloudWatch stream per host, ``<training job>/algo-<i+1>-<epoch s>``, each saved
  on its own (``algo-1-….log``), and ``aws logs filter-log-events --log-group-name
  /aws/sagemaker/TrainingJobs --output json`` (``{"events": [{"logStreamName", "timestamp" (ms),
  "message", "ingestionTime", "eventId"}], "searchedLogStreams": […]}``);
* Azure ML ``user_logs/std_log_process_<N>.txt``, one file per process (rank N; the docs of
  AzureML's distributed examples: "one log per MPI process, in the form std_log_process_xx.txt"):
  Azure ML starts the processes itself (as Ray does: no agent's lines, no torchrun tags; a line no
  tag gives a process is the launcher's, ``user_logs/std_log.txt``, Ray's driver's); and torchrun run by Azure ML once per
  node (``process_count_per_instance: 1``), one node's log per file;
* a folder of node logs attached as ``logs.tar.gz`` / ``logs.zip`` (``logs/node-<i>.log``);
* a CI console: GitHub Actions' raw log (``<RFC 3339, 7 digits>Z <line>``, ``##[group]Run …`` /
  ``##[endgroup]``, ``##[error]Process completed with exit code 1.``) and Jenkins' console text
  with the Timestamper plugin (``[<ISO time>] <line>``, ``[Pipeline] sh``, ``+ <command>``,
  ``ERROR: script returned exit code 1``, ``Finished: FAILURE``): the two agents of the step on
  one runner, their lines interleaved with no node named.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import tarfile
import zipfile

from export_shapes import _dt, _ns, entries

_GLOBAL = re.compile(r"^\[rank(\d+)\]:")
_LOCAL = re.compile(r"^\[default(\d+)\]:")
#: the torchrun agent's own lines (torch's glog prefix on torch.distributed.elastic / run.py)
_AGENT = re.compile(r"^\S{0,80}?\s?[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S*torch/distributed/(?:elastic|run\.py|launcher)")
_TORCHRUN_TAGS = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]: ?)?")
_EPOCH = dt.datetime(2026, 11, 28, tzinfo=dt.timezone.utc)


def _cmd(nodes: int, nproc: int) -> str:
    return f"torchrun --nnodes {nodes} --nproc-per-node {nproc} --rdzv-backend c10d --rdzv-endpoint 10.0.0.2:29500 train.py"


def _join(lines) -> str:
    return "".join(line + "\n" for line in lines)


def srun_label(es, nodes: int) -> str:
    width = len(str(nodes - 1))
    return _join(f"{n:>{width}}: {line}" for _, n, line in es)


def mpirun_tag(es, stamped: bool = False) -> str:
    def ctime(t: str) -> str:
        d = _dt(t)
        return d.strftime("%a %b ") + f"{d.day:>2} " + d.strftime("%H:%M:%S %Y")
    return _join((ctime(t) if stamped else "") + f"[1,{n}]<stderr>:{line}" for t, n, line in es)


def mpirun_files(es, nodes: int) -> list[tuple[str, str]]:
    out = []
    for node in range(nodes):
        out.append((f"out/1/rank.{node}/stdout", ""))
        out.append((f"out/1/rank.{node}/stderr", _join(line for _, n, line in es if n == node)))
    return [(p, t) for p, t in out if t]


def pdsh(es) -> str:
    return _join(f"worker-{n + 1}: {line}" for _, n, line in es)


def _local(line: str, nproc: int) -> int | None:
    m = _LOCAL.match(line)
    if m:
        return int(m.group(1))
    m = _GLOBAL.match(line)
    return int(m.group(1)) % nproc if m else None


def _processes(es, nproc: int):
    """(time, node, local rank or None, line) as a launcher that starts the processes itself (Ray, Azure ML: no
    torchrun agent) keeps them: the agent's own lines are not there, nor torchrun's ``[default<N>]:`` /
    ``[rank<N>]:`` tags; a line no tag gives a process (None) is the launcher's own, its driver's."""
    for t, n, line in es:
        if not _AGENT.match(line):
            yield t, n, _local(line, nproc), _TORCHRUN_TAGS.sub("", line)


def ray(es, nproc: int, nodes: int) -> str:
    driver = "(TorchTrainer pid=3900, ip=10.0.0.2)"
    rows = [f"{driver} Started distributed worker processes: "]
    rows += [f"{driver} - (ip=10.0.0.{n + 2}, pid={5000 + 100 * n + lr}) world_rank={n * nproc + lr}, local_rank={lr}, node_rank={n}"
             for n in range(nodes) for lr in range(nproc)]
    rows += [(f"(RayTrainWorker pid={5000 + 100 * n + lr}, ip=10.0.0.{n + 2}) " if lr is not None else f"{driver} ") + line
             for _, n, lr, line in _processes(es, nproc)]
    return _join(rows)


def _stream(node: int) -> str:
    return f"train-2026-11-28-08-00-00-000/algo-{node + 1}-1764316800"


def sagemaker_streams(es, nodes: int) -> list[tuple[str, str]]:
    return [(f"{_stream(node).split('/')[1]}.log", _join(line for _, n, line in es if n == node)) for node in range(nodes)]


def sagemaker_filter_json(es, nodes: int) -> str:
    events = [{"logStreamName": _stream(n), "timestamp": _ns(t) // 1_000_000, "message": line,
               "ingestionTime": _ns(t) // 1_000_000 + 700, "eventId": f"{_ns(t):037d}{i:019d}"[:56]} for i, (t, n, line) in enumerate(es)]
    return json.dumps({"events": events, "searchedLogStreams": [{"logStreamName": _stream(n), "searchedCompletely": True}
                                                                for n in range(nodes)]}, indent=4)


def azureml(es, nproc: int, nodes: int) -> list[tuple[str, str]]:
    """Azure ML's own launch (``distribution: pytorch``): one file per process, the launcher's own lines in ``std_log.txt``."""
    per: dict[int, list[str]] = {r: [] for r in range(nodes * nproc)}  # Azure ML writes a file for every process
    for _, n, lr, line in _processes(es, nproc):
        per.setdefault(-1 if lr is None else n * nproc + lr, []).append(line)
    return [(f"user_logs/std_log_process_{r}.txt" if r >= 0 else "user_logs/std_log.txt", _join(per[r])) for r in sorted(per)]


def azureml_nodes(es, nodes: int) -> list[tuple[str, str]]:
    """torchrun under Azure ML, one process per node (``process_count_per_instance: 1``): a node's log per file."""
    return [(f"user_logs/std_log_process_{node}.txt", _join(line for _, n, line in es if n == node)) for node in range(nodes)]


def _node_files(node_texts: list[str], es) -> list[tuple[str, str]]:
    return [(f"logs/node-{node}.log", _join(line for _, n, line in es if n == node)) for node in range(len(node_texts))]


def tarball(files: list[tuple[str, str]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for path, text in files:
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), int(_EPOCH.timestamp()), 0o644
            tar.addfile(info, io.BytesIO(data))
    return _fixed_gzip(buf.getvalue())


def _fixed_gzip(data: bytes) -> bytes:
    return data[:4] + b"\0\0\0\0" + data[8:]  # the gzip header's mtime: deterministic bytes


def zipball(files: list[tuple[str, str]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, text in files:
            z.writestr(zipfile.ZipInfo(path, date_time=(2026, 11, 28, 12, 0, 0)), text)
    return buf.getvalue()


def github_actions(es, cmd: str) -> str:
    first, last = (es[0][0], es[-1][0]) if es else ("2026-11-28T12:00:00.000000Z",) * 2
    def gh(t: str) -> str:
        return _dt(t).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_ns(t) % 1_000_000_000 // 100:07d}Z"
    rows = [f"{gh(first)} ##[group]Run {cmd}", f"{gh(first)} \u001b[36;1m{cmd}\u001b[0m", f"{gh(first)} ##[endgroup]"]
    rows += [f"{gh(t)} {line}" for t, _, line in es]
    rows.append(f"{gh(last)} ##[error]Process completed with exit code 1.")
    return _join(rows)


def jenkins(es, cmd: str) -> str:
    def ts(t: str) -> str:
        return "[" + _dt(t).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_dt(t).microsecond // 1000:03d}Z]"
    first = es[0][0] if es else "2026-11-28T12:00:00.000000Z"
    rows = ["Started by user admin", "[Pipeline] Start of Pipeline", "[Pipeline] node", "[Pipeline] {", "[Pipeline] sh",
            f"{ts(first)} + {cmd}"] + [f"{ts(t)} {line}" for t, _, line in es]
    rows += ["[Pipeline] }", "[Pipeline] // node", "[Pipeline] End of Pipeline", "ERROR: script returned exit code 1", "Finished: FAILURE"]
    return _join(rows)


SHAPES = ("srun-label", "mpirun-tag-output", "mpirun-timestamp-output", "mpirun-output-filename", "pdsh-deepspeed", "ray-train",
          "sagemaker-streams", "sagemaker-filter-json", "azureml-process-files", "azureml-node-files", "logs-tar-gz", "logs-zip", "github-actions",
          "jenkins-console")


def shapes(node_texts: list[str], nproc: int) -> dict[str, list[tuple[str, str | bytes]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first) of a run of ``nproc`` processes per node."""
    es, nodes = entries(node_texts), len(node_texts)
    nf = _node_files(node_texts, es)
    return {
        "srun-label": [("slurm-4242.out", srun_label(es, nodes))], "mpirun-tag-output": [("mpirun.log", mpirun_tag(es))],
        "mpirun-timestamp-output": [("mpirun.log", mpirun_tag(es, stamped=True))], "mpirun-output-filename": mpirun_files(es, nodes),
        "pdsh-deepspeed": [("deepspeed.log", pdsh(es))], "ray-train": [("ray-job.log", ray(es, nproc, nodes))],
        "sagemaker-streams": sagemaker_streams(es, nodes), "sagemaker-filter-json": [("events.json", sagemaker_filter_json(es, nodes))],
        "azureml-process-files": azureml(es, nproc, nodes),
        "azureml-node-files": azureml_nodes(es, nodes), "logs-tar-gz": [("logs.tar.gz", tarball(nf))],
        "logs-zip": [("logs.zip", zipball(nf))], "github-actions": [("logs_42.txt", github_actions(es, _cmd(nodes, nproc)))],
        "jenkins-console": [("consoleText", jenkins(es, _cmd(nodes, nproc)))],
    }


__all__ = ["SHAPES", "shapes"]
