"""The thirty-second launcher set's bundles (tests/data/torch-runs ``t32-*``: gloo runs with PyTorch's flight recorder,
each node's dumps kept in ``fr-dumps/node<N>/``, ``torchfrtrace``'s output in ``fr_trace.txt``), as a user brings them:

* captured: the runs' PyTorchJobs as torch_runs_kit.podlog_bundle makes them, plus each pod's flight-recorder reader
  output (the capture's ``exec`` row of source ``flight-recorder``: the dump files its pod holds, at the prefix the
  pod's ``TORCH_FR_DUMP_TEMP_FILE`` names), optionally without the pod logs (the dumps alone);
* imported: ``k10s import-logs`` on the node logs and ``fr_trace.txt`` (the text a user pastes beside them).

Every run of a bundle shares one analysis (bundle_batch.findings_of picks a run's findings out)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bundle_batch import merge, renamed
from k10s_forensics.logimport import import_logs, read_source
from k10s_forensics.simulate.fr_dumps import envelope
from k10s_forensics.rebuild.run import rebuild
from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from torch_runs_kit import CAPTURED, Run, _clock, _job_rows, load_runs, plain

PREFIX = "/tmp/nccl_trace_rank_"


def runs() -> list[Run]:
    return [r for r in load_runs() if "/t32-" in r.id]


def _exec_rows(run: Run, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One flight-recorder reader row per pod (node N's pod holds ``fr-dumps/node<N>/*``; none: an empty answer)."""
    rows = []
    for node, pod in enumerate(pods):
        files = {PREFIX + f.name[len("nccl_trace_rank_"):]: f.read_bytes()
                 for f in sorted((run.folder / "fr-dumps" / f"node{node}").glob("nccl_trace_rank_*"))}
        rows.append({"captured_at": pod["captured_at"], "duration_ms": 12, "source": "flight-recorder", "node": pod["node"],
                     "namespace": pod["namespace"], "pod": pod["pod"], "container": pod["container"], "command": "python3 -c …",
                     "exit_code": 0, "stdout": envelope(files, prefix=PREFIX), "stderr": "", "error": None})
    return rows


def captured_bundle(batch: list[Run], tmp: Path, with_logs: bool = True) -> Bundle:
    """The runs' PyTorchJobs with every pod's dumps (and, ``with_logs``, its log) in one captured bundle."""
    objects: list[dict[str, Any]] = []
    logs: list[dict[str, Any]] = []
    execs: list[dict[str, Any]] = []
    for i, run in enumerate(batch):
        job_objects, job_logs = _job_rows(run, net=f"10.{i + 1}.0.{{}}")
        objects += renamed(i, "objects", job_objects)
        logs += renamed(i, "logs", job_logs if with_logs else [{**r, "body": ""} for r in job_logs])
        execs += renamed(i, "exec", _exec_rows(run, [r for r in job_logs if not r["previous"]]))
    clocks = [_clock(run.stamped()) for run in batch]
    path = tmp / "bundle"
    path.mkdir(parents=True)
    end = max(c[1] for c in clocks)
    write_json_atomic(path / "manifest.json", new_manifest(window_start=min(c[0] for c in clocks), window_end=end, created_at=end))
    for name, rows in (("objects", objects), ("logs", logs), ("exec", execs)):
        write_raw_table(path, name, rows)
    rebuild(Bundle.open(path))
    return Bundle.open(path)


def imported_bundle(batch: list[Run], tmp: Path, fr_trace: bool = True) -> Bundle:
    """``k10s import-logs node0.log node1.log fr_trace.txt`` per run, the runs' bundles merged."""
    bundles = []
    for i, run in enumerate(batch):
        d = tmp / str(i)
        d.mkdir()
        files = []
        for name, text in zip(run.truth["node_logs"], run.stamped()):
            (d / name).write_text(plain(text), encoding="utf-8")
            files.append(read_source(str(d / name)))
        if fr_trace:
            files.append(read_source(str(run.folder / "fr_trace.txt")))
        bundles.append(import_logs(files, d / "bundle", job="train", namespace="team-a", now=CAPTURED, derive=False)[0])
    return merge(bundles, tmp / "merged")


__all__ = ["captured_bundle", "imported_bundle", "runs"]
