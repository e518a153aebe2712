"""Real PyTorch launcher runs (tests/data/torch-runs, recorded by tests/tools/record_torch.py)
turned into bundles as a user would bring them, and scored like the real incidents.

* ``import_run``: the node logs as ``kubectl logs`` gave them (no timestamps), one file per
  node, node rank 0 first, through ``k10s import-logs`` with no option.
* ``import_paste``: one file holding every pod's log as real ``kubectl logs -l … --prefix --timestamps``
  printed it (``kubectl-prefix.log``, tests/tools/kubectl_paste.py), through ``k10s import-logs``.
* ``podlog_run``: a PyTorchJob bundle whose pods (Kubeflow labels, one per node) hold the node
  logs as the logs collector stores them (``timestamps=true``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bundle_batch import findings_of, merge, renamed
from incident_kit import Case, misses, naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from k10s_forensics.logimport import LogSource, import_logs, read_source
from k10s_forensics.rebuild.run import rebuild

RUNS = Path(__file__).resolve().parent / "data" / "torch-runs"
UTC = dt.timezone.utc
CAPTURED = dt.datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z) ", re.M)


@dataclass
class Run:
    version: str
    name: str
    folder: Path
    truth: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.version}/{self.name}"

    def case(self) -> Case:
        t = self.truth
        return Case(self.name, t["cause"] or "", list(t["culprit_ranks"]), [], t["nproc_per_node"], t["world_size"])

    def stamped(self) -> list[str]:
        return [(self.folder / n).read_text(encoding="utf-8") for n in self.truth["node_logs"]]

    def previous(self) -> list[str]:
        """Each node's previous container's log (``kubectl logs --previous``) where the kubelet restarted it, else none."""
        return [(self.folder / n).read_text(encoding="utf-8") for n in self.truth.get("previous_logs", [])]


#: the agent's first line after its workers' failure (a recording cut there keeps only what the workers printed)
AGENT_FIRST = "torch/distributed/elastic/multiprocessing/api.py"


def until(text: str, marker: str) -> str:
    """The lines of ``text`` before the first holding ``marker``."""
    out = []
    for line in text.splitlines():
        if marker in line:
            break
        out.append(line + "\n")
    return "".join(out)


def load_runs() -> list[Run]:
    out = []
    for truth in sorted(RUNS.glob("*/*/truth.json")):
        out.append(Run(truth.parent.parent.name, truth.parent.name, truth.parent, json.loads(truth.read_text(encoding="utf-8"))))
    return out


def plain(text: str) -> str:
    """A node log as ``kubectl logs`` (no --timestamps) shows it."""
    return _STAMP.sub("", text)


def _clock(texts: list[str]) -> tuple[dt.datetime, dt.datetime]:
    stamps = [m.group(1) for t in texts for m in _STAMP.finditer(t)]
    if not stamps:
        return CAPTURED - dt.timedelta(minutes=5), CAPTURED
    parse = lambda s: dt.datetime.strptime(s[:26], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)  # noqa: E731
    return min(map(parse, stamps)) - dt.timedelta(minutes=1), max(map(parse, stamps)) + dt.timedelta(seconds=30)


def import_run(run: Run, tmp: Path, derive: bool = True) -> Bundle:
    """``k10s import-logs node0.log node1.log -o …`` on the plain node logs (``derive=False``: the raw layer only,
    for ``bundle_batch.merge``). A container the kubelet restarted: its file holds ``kubectl logs --previous`` then
    ``kubectl logs``, as a user pastes both into one file per pod."""
    files = []
    before = run.previous() or [""] * len(run.truth["node_logs"])
    for name, text, prev in zip(run.truth["node_logs"], run.stamped(), before):
        p = tmp / name
        p.write_text(plain(prev) + plain(text), encoding="utf-8")
        files.append(read_source(str(p)))
    bundle, _ = import_logs(files, tmp / "bundle", job="train", namespace="team-a", now=CAPTURED, derive=derive)
    return bundle


def import_batch(runs: list[Run], tmp: Path) -> tuple[list[Run], list[Bundle], dict[str, Exception]]:
    """Each run through :func:`import_run` (raw layer only) in ``tmp/<k>``: the runs imported, their bundles, and each
    refused run's own ``InputError`` by id (a real log import-logs refuses is that run's failure, not its batch's)."""
    from k10s_forensics.errors import InputError

    done, bundles, refused = [], [], {}
    for k, run in enumerate(runs):
        (tmp / str(k)).mkdir()
        try:
            bundles.append(import_run(run, tmp / str(k), derive=False))
            done.append(run)
        except InputError as e:
            refused[run.id] = e
    return done, bundles, refused


def import_paste(path: Path, tmp: Path) -> Bundle:
    """``k10s import-logs PASTE -o …``: one file holding every pod's log (``kubectl logs -l … --prefix``)."""
    bundle, _ = import_logs([read_source(str(path))], tmp / "bundle", job="train", namespace="team-a", now=CAPTURED)
    return bundle


def podlog_run(run: Run, tmp: Path) -> Bundle:
    """A captured PyTorchJob: one pod per node, the node logs with the API's timestamps."""
    objects, logs = _job_rows(run, net="10.1.0.{}")
    return _captured(objects, logs, [_clock(run.stamped() + run.previous())], tmp)


def podlog_bundle(runs: list[Run], tmp: Path) -> Bundle:
    """A captured cluster of PyTorchJobs, one per run, as a capture of a busy cluster holds them: each run's
    objects and logs as ``podlog_run`` makes them, renamed apart as ``bundle_batch.merge`` does
    (``bundle_batch.findings_of`` picks a run's findings out); run i's pods get addresses ``10.<i+1>.0.<n+5>``."""
    objects: list[dict[str, Any]] = []
    logs: list[dict[str, Any]] = []
    for i, run in enumerate(runs):
        job_objects, job_logs = _job_rows(run, net=f"10.{i + 1}.0.{{}}")
        objects += renamed(i, "objects", job_objects)
        logs += renamed(i, "logs", job_logs)
    return _captured(objects, logs, [_clock(run.stamped() + run.previous()) for run in runs], tmp)


def _captured(objects: list[dict[str, Any]], logs: list[dict[str, Any]], clocks: list[tuple[dt.datetime, dt.datetime]],
              tmp: Path) -> Bundle:
    """A bundle at ``tmp/bundle`` of these raw objects and logs, its window spanning the clocks, rebuilt."""
    start, end = min(c[0] for c in clocks), max(c[1] for c in clocks)
    path = tmp / "bundle"
    path.mkdir(parents=True)
    write_json_atomic(path / "manifest.json", new_manifest(window_start=start, window_end=end, created_at=end))
    write_raw_table(path, "objects", objects)
    write_raw_table(path, "logs", logs)
    bundle = Bundle.open(path)
    rebuild(bundle)
    return Bundle.open(path)


def _job_rows(run: Run, net: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The run's PyTorchJob ``train`` and its pods (raw objects), and the node logs as its pods' logs (raw logs)."""
    job, node_name, objects, logs = "train", "gpu-node-{}", [], []
    texts, before, t = run.stamped(), run.previous(), run.truth
    start, end = _clock(texts + before)
    nproc, nodes = t["nproc_per_node"], t["nodes"]
    per_node = t.get("nproc_by_node") or [nproc] * nodes  # heterogeneous nodes: each pod its own count, the job none
    iso = lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    shared = [{"name": "PET_NPROC_PER_NODE", "value": str(nproc)}] if nproc else []
    template = {"spec": {"containers": [{"name": "pytorch", "env": shared}]}}
    specs = {"Master": {"replicas": 1, "template": template}}
    if nodes > 1:
        specs["Worker"] = {"replicas": nodes - 1, "template": template}
    body = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": job, "namespace": "team-a", "uid": f"uid-{job}", "creationTimestamp": iso(start)},
            "spec": {"pytorchReplicaSpecs": specs, **({"nprocPerNode": str(nproc)} if nproc else {})},
            "status": {"startTime": iso(start), "conditions": [{"type": "Running", "status": "True"}]}}
    objects.append(_obj(body, end))
    for node in range(nodes):
        rtype, idx = ("master", 0) if node == 0 else ("worker", node - 1)
        name = f"{job}-{rtype}-{idx}"
        env = [{"name": "PET_NPROC_PER_NODE", "value": str(per_node[node])}, {"name": "PET_NNODES", "value": str(nodes)},
               {"name": "PET_NODE_RANK", "value": str(node)}, {"name": "WORLD_SIZE", "value": str(t["world_size"])}]
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "team-a", "uid": f"uid-{name}", "creationTimestamp": iso(start),
                            "labels": {"training.kubeflow.org/job-name": job, "training.kubeflow.org/replica-type": rtype,
                                       "training.kubeflow.org/replica-index": str(idx)},
                            "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": job,
                                                 "uid": f"uid-{job}", "controller": True}]},
               "spec": {"nodeName": node_name.format(node), "containers": [{"name": "pytorch", "env": env}]},
               "status": {"phase": "Running", "podIP": net.format(node + 5), "startTime": iso(start),
                          "containerStatuses": [{"name": "pytorch", "ready": True, "restartCount": 0,
                                                 "state": {"running": {"startedAt": iso(start)}}}]}}
        if before:  # restarted by the kubelet (OnFailure): the previous container's exit and log
            status = pod["status"]["containerStatuses"][0]
            status.update(restartCount=1, lastState={"terminated": {"exitCode": _exit_code(t["previous_exit_codes"][node]),
                                                                    "reason": "Error", "startedAt": iso(start)}})
        objects.append(_obj(pod, end))
        text = texts[node] if node < len(texts) else ""
        logs.append({"captured_at": end, "node": node_name.format(node), "namespace": "team-a", "pod": name,
                     "pod_uid": f"uid-{name}", "container": "pytorch", "previous": False, "body": text, "error": None})
        if before:
            logs.append({"captured_at": end, "node": node_name.format(node), "namespace": "team-a", "pod": name,
                         "pod_uid": f"uid-{name}", "container": "pytorch", "previous": True, "body": before[node], "error": None})
    return objects, logs


def _exit_code(returncode: int) -> int:
    """A container's exit code as the kubelet reports it (a signal: 128 + its number)."""
    return returncode if returncode >= 0 else 128 - returncode


def _obj(body: dict[str, Any], captured: dt.datetime) -> dict[str, Any]:
    m = body["metadata"]
    return {"captured_at": captured, "api_version": body["apiVersion"], "kind": body["kind"], "namespace": m.get("namespace"),
            "name": m["name"], "uid": m["uid"], "body": json.dumps(body)}


def findings_of_texts(tmp: Path, texts: list[str]) -> list[dict[str, Any]]:
    """The findings of node logs given as text (``node0.log``, ``node1.log``, …) through ``k10s import-logs``."""
    sources = [LogSource(f"node{i}.log", t) for i, t in enumerate(texts)]
    bundle, _ = import_logs(sources, tmp / "b", job="train", namespace="team-a", now=CAPTURED)
    return analyze(bundle)["findings"]


def named(findings: list[dict[str, Any]]) -> list[tuple]:
    """(cause, ranks) of each finding that names a culprit."""
    return [(f["cause"], f["ranks"]) for f in naming_findings(findings)]


def score(run: Run, bundle: Bundle) -> str | None:
    """Why analyze misses the run's truth (None: right)."""
    return score_findings(run, analyze(bundle)["findings"])


def score_findings(run: Run, findings: list[dict[str, Any]]) -> str | None:
    """Why ``findings`` (the run's, from ``bundle_batch.findings_of``) miss the run's truth (None: right)."""
    return misses(run.case(), findings)


def missed_shapes(make_shapes, sample: dict[str, str], tmp: Path) -> dict[str, str]:
    """Each ``shape: run id`` of ``sample``, made by ``make_shapes(stamped lines, nproc_per_node)``, written to its files,
    imported as a user would (``k10s import-logs`` on the paths) and read in one analysis (``bundle_batch.merge``): the
    shapes whose run's truth is missed, with why (empty: every shape reads right)."""
    from bundle_batch import findings_of, merge
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.logimport import read_sources

    runs = {r.id: r for r in load_runs() if r.id in sample.values()}
    bundles = []
    for i, (shape, rid) in enumerate(sample.items()):
        sources = []
        for rel, text in make_shapes(runs[rid].stamped(), runs[rid].truth["nproc_per_node"])[shape]:
            p = tmp / f"in{i}" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
            sources += read_sources(str(p))
        bundles.append(import_logs(sources, tmp / f"b{i}", now=CAPTURED, derive=False)[0])
    findings = analyze(merge(bundles, tmp / "all"))["findings"]
    return {shape: why for i, (shape, rid) in enumerate(sample.items()) if (why := score_findings(runs[rid], findings_of(findings, i)))}


def assert_reading(findings: list[dict[str, Any]], want: list[int], cause: str | None) -> None:
    """One set's findings as a wording test reads them: with no ``want``, no critical/warning finding names a rank; else
    one names exactly ``want`` with ``cause`` and none names only other ranks."""
    found = naming_findings(findings)
    got = [(f["rule"], f["ranks"], f["cause"]) for f in found]
    if not want:
        assert not found, got
        return
    assert any(f["ranks"] == want and f["cause"] == cause for f in found), got
    assert all(set(f["ranks"]) & set(want) for f in found), got


__all__ = ["RUNS", "Run", "assert_reading", "findings_of_texts", "import_paste", "import_run", "load_runs", "missed_shapes", "named", "plain",
           "podlog_bundle", "podlog_run", "score", "score_findings"]


def findings_both_ways(runs: list[Run], tmp: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Each run's findings both ways, each way one analysis (tests/test_torch_runs.py's batching): ``import`` (the
    consoles through import-logs) and ``podlog`` (a captured PyTorchJob's pod logs), by run id."""
    (tmp / "import").mkdir(parents=True)
    done, bundles, refused = import_batch(runs, tmp / "import")
    assert not refused, refused
    imported = analyze(merge(bundles, tmp / "merged"))["findings"]
    pods = analyze(podlog_bundle(runs, tmp / "pods"))["findings"]
    return {"import": {r.id: findings_of(imported, i) for i, r in enumerate(done)},
            "podlog": {r.id: findings_of(pods, i) for i, r in enumerate(runs)}}
