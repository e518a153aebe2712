"""Exec rows of the hang-evidence collectors in a simulated bundle: Flight Recorder dump
reads (``source=flight-recorder``) and ``ncclras`` answers (``source=ncclras``), written the
way the capture writes them, so ``k10s serve`` replays them to a real capture.

ncclras: NCCL < 2.24 ships no client (the exec fails as a missing binary does); 2.24 to
2.28.6 refuses ``-f json`` and answers in text; >= 2.28.7 answers JSON.
"""

from __future__ import annotations

import datetime as dt

from k10s_forensics.capture.dump_commands import FR_COMMAND, RAS_JSON, RAS_TEXT
from k10s_forensics.simulate.fr_dumps import envelope, ras_text

MS = dt.timedelta(milliseconds=1)
OCI_NO_NCCLRAS = ('OCI runtime exec failed: exec failed: unable to start container process: exec: "ncclras": executable file '
                  'not found in $PATH: unknown')
BAD_OPTION = "ncclras: invalid option -- 'f'\nUsage: ncclras [-h host] [-p port] [-t timeout] [-v]\n"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(".")[:3] if x.isdigit())


def _row(sim, pod, ts, source: str, argv: tuple[str, ...], **what) -> dict:
    job = sim.job
    row = {"captured_at": ts, "duration_ms": 30 + sim.rng.randrange(0, 200), "source": source, "node": pod.node.name,
           "namespace": job.namespace, "pod": pod.name, "container": job.container, "command": " ".join(argv),
           "exit_code": 0, "stdout": "", "stderr": "", "error": None}
    row.update(what)
    return row


def ras_rows(sim, pod, ts) -> tuple[list[dict], str | None]:
    """(exec rows of the ncclras collector in ``pod``, collector error or None)."""
    job = sim.job
    version = _version(job.nccl_version)
    if version < (2, 24):
        return ([_row(sim, pod, ts, "ncclras", RAS_JSON, exit_code=126, stderr=OCI_NO_NCCLRAS)],
                f"ncclras not in image (pod {job.namespace}/{pod.name}): NCCL RAS not consulted")
    if version >= (2, 28, 7):
        from k10s_forensics.simulate.scenarios.hang_dumps import ras_json

        answer = sim.ras_answer or ras_json(sim, job.latest(), dead_rank=None, dead_pid=None)
        return [_row(sim, pod, ts, "ncclras", RAS_JSON, stdout=answer + "\n")], None
    answer = sim.ras_answer or ras_text(job.replicas, job.nproc, version=job.nccl_version)
    return [_row(sim, pod, ts, "ncclras", RAS_JSON, exit_code=1, stderr=BAD_OPTION),
            _row(sim, pod, ts + MS * 200, "ncclras", RAS_TEXT, stdout=answer + "\n")], None


def write_hang_dumps(sim, bw, cnt, running) -> None:
    """FR dump reads in Flight-Recorder-enabled running pods; ncclras in one running pod of the job."""
    job = sim.job
    if job is None:
        return
    t = sim.end - MS * 1200
    alive = sorted((p for p in job.pods_at(t) if p.node is not None and running(p, t)), key=lambda p: p.name)
    if job.flight_recorder:
        for pod in alive:
            bw.add("exec", _row(sim, pod, t, "flight-recorder", FR_COMMAND, stdout=envelope(sim.fr_dumps.get(pod.uid, {}), job.fr_prefix) + "\n"))
            cnt.add("flight-recorder")
    if alive:
        rows, error = ras_rows(sim, alive[0], t + MS * 300)
        for row in rows:
            bw.add("exec", row)
            cnt.add("ncclras")
        if error:
            cnt.error("ncclras", error)


__all__ = ["write_hang_dumps", "ras_rows"]
