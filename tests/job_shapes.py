"""What a user brings from a batch scheduler, a workflow engine, a node's journal or a notebook, made from one
recorded run (tests/data/torch-runs): the third family beside ``export_shapes`` (log pipelines) and
``launcher_shapes`` (launchers and platforms). ``shapes(node_texts, nproc)`` gives, per shape, the files a user
would hand to ``k10s import-logs`` (``[(relative path, text)]``). Deterministic. Formats (each from the tool's
docs or real output; searched, not copied):

* Slurm per-task output files: ``srun --ntasks-per-node=1 --output=%x-%j-%t.out torchrun …`` (srun(1),
  "filename pattern": ``%x`` job name, ``%j`` job id, ``%t`` task id, "a separate IO file per task"): one
  file per task, here per node, the lines as the task wrote them (no time, no tag);
* LSF ``bsub -o train.%J.out`` running ``blaunch torchrun …`` on two hosts: the tasks' lines interleaved
  in one file, then LSF's job report as LSF 10 appends it (``Sender: LSF System <lsfadmin@host>``,
  ``Subject: Job <id>: <name> in cluster <c> Exited``, ``Your job looked like:``, ``# LSBATCH: User
  input``, ``Exited with exit code 1.``, ``Resource usage summary:``, ``The output (if any) is above this
  job summary.``; real job files in public repositories);
* Argo Workflows ``argo logs <workflow>``: ``<pod name>: <line>`` (the CLI's LogEntry ``podName`` and
  ``content``), pods named ``<workflow>-<template>-<hash>`` (POD_NAMES v2), one step pod per node, the
  hashes in no node order;
* Kubeflow Trainer v2 (a TrainJob's JobSet): pods ``<job>-node-0-<index>-<5 chars>`` (JobSet's
  ``<jobset>-<replicated job>-<job index>-<pod index>``, then the Job controller's random suffix),
  container ``node``, saved with ``kubectl logs -l jobset.sigs.k8s.io/jobset-name=<job> --prefix``;
* Weights & Biases ``files/output.log``: the console of the process that called ``wandb.init`` (rank 0),
  as that process wrote it (no torchrun tag: the tee puts those on the agent's copy);
* a Jupyter notebook (``.ipynb``, nbformat 4, saved with ``indent=1``) whose cell ran ``!torchrun …``
  on the notebook's host, node 0: the shell's output as one ``stdout`` stream (IPython's ``!`` runs the
  command under a pty, stdout and stderr merged);
* a node's journal where torchrun ran as a systemd service (``train.service``): ``journalctl -o
  short-iso`` (``<ISO 8601 time with zone> <host> <identifier>[<pid>]: <message>``) and ``journalctl -o
  json`` (one JSON object a line, every value a string: ``__REALTIME_TIMESTAMP`` in microseconds,
  ``_HOSTNAME``, ``SYSLOG_IDENTIFIER``, ``_PID``, ``_SYSTEMD_UNIT``, ``_TRANSPORT``, ``MESSAGE``), one node
  per file.
"""

from __future__ import annotations

import hashlib
import json

from export_shapes import _dt, _ns, entries
from launcher_shapes import _cmd, _join, _processes

JOB = "train"


def _digits(text: str, n: int) -> str:
    return str(int(hashlib.sha256(text.encode()).hexdigest(), 16))[:n]


def _suffix(text: str) -> str:
    alphabet = "bcdfghjklmnpqrstvwxz2456789"  # the Job controller's random suffix alphabet (k8s utilrand)
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    return "".join(alphabet[(h >> (5 * i)) % len(alphabet)] for i in range(5))


def slurm_task_files(es, nodes: int) -> list[tuple[str, str]]:
    return [(f"{JOB}-4242-{node}.out", _join(line for _, n, line in es if n == node)) for node in range(nodes)]


def _lsf_time(t: str) -> str:
    d = _dt(t)
    return d.strftime("%a %b ") + f"{d.day:>2} " + d.strftime("%H:%M:%S %Y")


def lsf_output(es, nodes: int, nproc: int) -> str:
    first, last = (es[0][0], es[-1][0]) if es else ("2026-11-28T12:00:00.000000Z",) * 2
    hosts = [f"<{nproc}*gpu-node-{n}>" for n in range(nodes)]
    report = ["", "------------------------------------------------------------", "Sender: LSF System <lsfadmin@gpu-node-0>",
              f"Subject: Job 4242: <{JOB}> in cluster <hpc> Exited", "",
              f"Job <{JOB}> was submitted from host <login-1> by user <alice> in cluster <hpc> at {_lsf_time(first)}",
              f"Job was executed on host(s) {hosts[0]}, in queue <gpu>, as user <alice> in cluster <hpc> at {_lsf_time(first)}"]
    report += [" " * 28 + h for h in hosts[1:]]
    report += ["</home/alice> was used as the home directory.", "</home/alice/train> was used as the working directory.",
               f"Started at {_lsf_time(first)}", f"Terminated at {_lsf_time(last)}", f"Results reported at {_lsf_time(last)}", "",
               "Your job looked like:", "", "------------------------------------------------------------", "# LSBATCH: User input",
               "#!/bin/bash", f"#BSUB -J {JOB}", f"#BSUB -n {nodes * nproc}", f'#BSUB -R "span[ptile={nproc}]"', "#BSUB -o train.%J.out",
               f"blaunch {_cmd(nodes, nproc)}", "", "------------------------------------------------------------", "",
               "Exited with exit code 1.", "", "Resource usage summary:", "",
               f"    CPU time :                                   {120.0 * nodes:.2f} sec.",
               "    Max Memory :                                 2048 MB", "    Average Memory :                             1536.00 MB",
               "    Total Requested Memory :                     -", "    Delta Memory :                               -",
               "    Max Swap :                                   -", f"    Max Processes :                              {nodes * (nproc + 1)}",
               "    Max Threads :                                64", "    Run time :                                   600 sec.",
               "    Turnaround time :                            602 sec.", "", "The output (if any) is above this job summary.", ""]
    return _join(line for _, _, line in es) + _join(report)


def _argo_pod(node: int) -> str:
    return f"{JOB}-x7k2p-node-{_digits(f'node-{node}', 10)}"


def argo_logs(es) -> str:
    return _join(f"{_argo_pod(n)}: {line}" for _, n, line in es)


def jobset_pod(node: int) -> str:
    return f"{JOB}-node-0-{node}-{_suffix(f'{JOB}-node-0-{node}')}"


def jobset_prefix(es) -> str:
    return _join(f"[pod/{jobset_pod(n)}/node] {line}" for _, n, line in es)


def wandb_output(es, nproc: int) -> str:
    return _join(line for _, n, lr, line in _processes(es, nproc) if n == 0 and lr == 0)


def notebook(es, nodes: int, nproc: int) -> str:
    text = [line + "\n" for _, n, line in es if n == 0]
    cell = {"cell_type": "code", "execution_count": 3, "id": "5f1c2a9e", "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": text}] if text else [],
            "source": [f"!{_cmd(nodes, nproc)}"]}
    nb = {"cells": [{"cell_type": "markdown", "id": "0b7d33c1", "metadata": {}, "source": ["# Fine-tune, multi-node"]}, cell],
          "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                       "language_info": {"name": "python", "version": "3.11.7"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _iso(t: str) -> str:
    return _dt(t).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def journal_short_iso(es, nodes: int) -> list[tuple[str, str]]:
    return [(f"gpu-node-{node}.journal.txt", _join(f"{_iso(t)} gpu-node-{node} torchrun[{4100 + node}]: {line}" for t, n, line in es if n == node))
            for node in range(nodes)]


def _journal_json(record: dict) -> str:
    """journalctl's own JSON: ``{ "FIELD" : "value", … }``."""
    return "{ " + json.dumps(record, separators=(", ", " : "), ensure_ascii=False)[1:-1] + " }"


def journal_json(es, nodes: int) -> list[tuple[str, str]]:
    files = []
    for node in range(nodes):
        boot = hashlib.sha256(f"boot-{node}".encode()).hexdigest()[:32]
        rows = []
        for i, (t, n, line) in enumerate(e for e in es if e[1] == node):
            us = _ns(t) // 1000
            rows.append(_journal_json({"__CURSOR": f"s={boot};i={i + 1:x};b={boot};t={us:x}", "__REALTIME_TIMESTAMP": str(us),
                                    "__MONOTONIC_TIMESTAMP": str(us % 10**11), "_BOOT_ID": boot, "PRIORITY": "6",
                                    "SYSLOG_FACILITY": "3", "SYSLOG_IDENTIFIER": "torchrun", "_PID": str(4100 + node), "_UID": "1000",
                                    "_COMM": "torchrun", "_HOSTNAME": f"gpu-node-{node}", "_TRANSPORT": "stdout",
                                    "_SYSTEMD_UNIT": "train.service", "MESSAGE": line}))
        files.append((f"gpu-node-{node}.journal.json", _join(rows)))
    return files


SHAPES = ("slurm-task-files", "lsf-bsub-output", "argo-logs", "jobset-prefix", "wandb-output-log", "jupyter-notebook",
          "journalctl-short-iso", "journalctl-json")


def shapes(node_texts: list[str], nproc: int) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first) of a run of ``nproc`` processes per node."""
    es, nodes = entries(node_texts), len(node_texts)
    return {
        "slurm-task-files": slurm_task_files(es, nodes), "lsf-bsub-output": [("train.4242.out", lsf_output(es, nodes, nproc))],
        "argo-logs": [("argo-logs.txt", argo_logs(es))], "jobset-prefix": [("trainjob.log", jobset_prefix(es))],
        "wandb-output-log": [("files/output.log", wandb_output(es, nproc))],
        "jupyter-notebook": [("finetune.ipynb", notebook(es, nodes, nproc))],
        "journalctl-short-iso": journal_short_iso(es, nodes), "journalctl-json": journal_json(es, nodes),
    }


__all__ = ["SHAPES", "jobset_pod", "shapes"]
