"""Score every recorded run (tests/data/torch-runs) in every export shape of tests/export_shapes.py
(``--family launcher``: every launcher/platform shape of tests/launcher_shapes.py; ``--family job``: the scheduler,
workflow, journal and notebook shapes of tests/job_shapes.py; ``--family session``: the terminal recordings, CI log,
Datadog CSV and LeaderWorkerSet shapes of tests/session_shapes.py; ``--family store``: a node's rotated pod log
folder, collectors' consoles and log stores' exports of tests/store_shapes.py; ``--family platform``: kubectl logs
without --prefix, --previous above the current attempt, --all-containers with an Istio sidecar, SkyPilot, Vertex AI,
Azure Monitor's CSV and a Slack paste of tests/platform_shapes.py; ``--family console``: newest-first consoles,
Determined, Run:ai and ``oc adm inspect`` of tests/console_shapes.py; ``--family chat``: docker compose logs,
an Airflow KubernetesPodOperator task log and a Discord paste of tests/chat_shapes.py; ``--family viewer``: k9s's
saved log view, Graylog's CSV export with and without its source column and a Microsoft Teams paste of
tests/viewer_shapes.py; ``--family tracker``: ClearML's console, OpenSearch Dashboards' CSV report and a Vertex AI
console copy of tests/tracker_shapes.py; ``--family pane``: the Kubernetes Dashboard's log download, Lens's pod log pane
copied with its timestamps, a Kubeflow Pipelines step's log pane, a Databricks TorchDistributor driver's output of tests/pane_shapes.py); ``--family follow``: kubetail coloured and plain, Grafana Explore's Logs panel copied with its unique
labels, a Katib trial's metrics-logger-and-collector sidecar of tests/follow_shapes.py; ``--family tail``: stern's
``--output json`` and ``ppextjson``, Rancher's pod log download, srun's ``%N-%t`` files of tests/tail_shapes.py;
``--family download``: Headlamp's pod log download, its default 100 lines and all of them, of tests/download_shapes.py).

Each shape's files go through ``k10s import-logs`` with no option (``import_logs`` as the CLI calls
it) and are scored with torch_runs_kit.score against the run's truth, beside the run's plain pod
logs (``import_run``). A reading is right, falsely named (a critical/warning finding names only
ranks outside the truth, or any rank in a control), nothing named, the cause missed (the rank
named, another cause), or an error (the import raised where it should read or say one line). Two bundles whose pods hold the same lines are analysed once (a cache keyed
by what the importer wrote), so the whole sweep takes minutes, not hours.

    .venv/bin/python tests/tools/score_export_shapes.py [--family export|launcher|job|session|store|platform] [-k NAME] [-j 2] [--every N] [--json out.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chat_shapes  # noqa: E402
import download_shapes  # noqa: E402
import console_shapes  # noqa: E402
import export_shapes  # noqa: E402
import job_shapes  # noqa: E402
import launcher_shapes  # noqa: E402
import platform_shapes  # noqa: E402
import session_shapes  # noqa: E402
import store_shapes  # noqa: E402
import pane_shapes  # noqa: E402
import follow_shapes  # noqa: E402
import tail_shapes  # noqa: E402
import tracker_shapes  # noqa: E402
import viewer_shapes  # noqa: E402
import k10s_forensics.logimport as logimport  # noqa: E402
from incident_kit import misses, naming_findings  # noqa: E402
from k10s_forensics.analyze.runner import analyze  # noqa: E402
from k10s_forensics.errors import InputError  # noqa: E402
from torch_runs_kit import CAPTURED, import_run, load_runs  # noqa: E402

_CACHE: dict[str, str] = {}
_FAMILIES = {"export": lambda run: export_shapes.shapes(run.stamped()),
             "launcher": lambda run: launcher_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "job": lambda run: job_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "session": lambda run: session_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "store": lambda run: store_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "platform": lambda run: platform_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "console": lambda run: console_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "chat": lambda run: chat_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "viewer": lambda run: viewer_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "tracker": lambda run: tracker_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "pane": lambda run: pane_shapes.shapes(run.stamped(), run.truth["nproc_per_node"], run.truth["exit_codes"]),
             "follow": lambda run: follow_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "tail": lambda run: tail_shapes.shapes(run.stamped(), run.truth["nproc_per_node"]),
             "download": lambda run: download_shapes.shapes(run.stamped(), run.truth["nproc_per_node"])}
_FAMILY = _FAMILIES["export"]


class _Hit(Exception):
    def __init__(self, key: str):
        self.key = key


class _KeyedWriter(logimport.BundleWriter):
    """The importer's writer, keyed by the rows it was given: a bundle seen before is not rebuilt."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self._digest = hashlib.sha256()

    def add(self, table, row):
        self._digest.update(json.dumps([table, row], sort_keys=True, default=str).encode())
        return super().add(table, row)

    def close(self, *a, **kw):
        key = self._digest.hexdigest()
        if key in _CACHE:
            raise _Hit(key)
        self.key = key
        return super().close(*a, **kw)


def classify(run, findings) -> str:
    if misses(run.case(), findings) is None:
        return "right"
    named = naming_findings(findings)
    want = set(run.truth["culprit_ranks"])
    if any(not want or not set(f["ranks"]) & want for f in named):
        return "false"
    return "cause" if named else "none"


def _read(run, bring) -> str:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        try:
            bundle = bring(tmp)
        except _Hit as hit:
            return _CACHE[hit.key]
        except InputError:
            return "none"
        except Exception as exc:  # noqa: BLE001 - a traceback where a one-line error belongs is a reading too
            return f"error: {type(exc).__name__}"
        key = hashlib.sha256(str(sorted(p.name for p in bundle.path.iterdir())).encode()).hexdigest()
        verdict = classify(run, analyze(bundle)["findings"])
        _CACHE[getattr(_last_writer, "key", key)] = verdict
        return verdict


_last_writer = None


def _import_files(files, tmp: Path):
    global _last_writer
    sources = []
    for rel, text in files:
        p = tmp / "in" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        sources += logimport.read_sources(str(p)) if hasattr(logimport, "read_sources") else [logimport.read_source(str(p))]
    bundle, _ = logimport.import_logs(sources, tmp / "bundle", now=CAPTURED)
    return bundle


def score_run(run_and_names):
    run, names = run_and_names
    out = {"run": run.id, "nodes": run.truth["nodes"], "control": bool(run.truth["control"])}
    out["plain"] = _read(run, lambda tmp: import_run(run, tmp))
    made = _FAMILY(run)
    for name in names:
        out[name] = _read(run, lambda tmp, f=made[name]: _import_files(f, tmp))
    return out


class _Tracking(_KeyedWriter):
    def close(self, *a, **kw):
        global _last_writer
        _last_writer = self
        return super().close(*a, **kw)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--family", choices=sorted(_FAMILIES), default="export",
                    help="export: log pipelines (tests/export_shapes.py); launcher: launchers and platforms (tests/launcher_shapes.py); "
                         "job: schedulers, workflow engines, journals, notebooks (tests/job_shapes.py); "
                         "session: terminal recordings, a CI job log, a Datadog CSV, LeaderWorkerSet pods (tests/session_shapes.py); "
                         "store: rotated CRI files, Fluent Bit / Vector consoles, Elasticsearch, Splunk, aws logs tail, gcloud (tests/store_shapes.py); "
                         "platform: kubectl logs without --prefix / --previous / --all-containers, SkyPilot, Vertex AI, Azure Monitor, "
                         "a Slack paste (tests/platform_shapes.py); console: newest-first consoles, Determined, Run:ai, "
                         "oc adm inspect (tests/console_shapes.py); chat: docker compose logs, an Airflow task log, a Discord paste (tests/chat_shapes.py); "
                         "viewer: k9s's saved log view, Graylog's CSV export, a Teams paste (tests/viewer_shapes.py); "
                         "tracker: ClearML's console, OpenSearch Dashboards' CSV report, a Vertex AI console copy (tests/tracker_shapes.py); "
                         "pane: the Kubernetes Dashboard's log download, Lens's log pane with timestamps, a Kubeflow Pipelines step log, a Databricks TorchDistributor driver (tests/pane_shapes.py); "
                         "follow: kubetail, a Grafana Explore panel copied with its labels, a Katib trial's metrics collector (tests/follow_shapes.py); "
                         "tail: stern --output json / ppextjson, Rancher's pod log download, srun's %%N-%%t files (tests/tail_shapes.py); "
                         "download: Headlamp's pod log download, 100 lines and all (tests/download_shapes.py)")
    ap.add_argument("--shapes", default=None)
    ap.add_argument("--json", help="write each run's readings here as they come (JSON lines)")
    ap.add_argument("--every", type=int, default=1, help="only every N-th run (a sample, in load order)")
    args = ap.parse_args()
    global _FAMILY
    logimport.BundleWriter = _Tracking
    _FAMILY = _FAMILIES[args.family]
    module = {"export": export_shapes, "launcher": launcher_shapes, "job": job_shapes, "session": session_shapes, "store": store_shapes,
              "platform": platform_shapes, "console": console_shapes, "chat": chat_shapes,
              "viewer": viewer_shapes, "tracker": tracker_shapes, "pane": pane_shapes, "follow": follow_shapes,
              "tail": tail_shapes, "download": download_shapes}[args.family]
    names = [s for s in (args.shapes or ",".join(module.SHAPES)).split(",") if s]
    runs = [r for r in load_runs() if args.k in r.id][::args.every]
    rows = []
    sink = open(args.json, "w", encoding="utf-8") if args.json else None  # noqa: SIM115
    with Pool(args.j) as pool:
        for row in pool.imap(score_run, [(r, names) for r in runs]):
            rows.append(row)
            if sink:
                sink.write(json.dumps(row, sort_keys=True) + "\n")
                sink.flush()
    if sink:
        sink.close()
    print(f"{len(rows)} runs")
    print("| shape | right | falsely named | nothing named | cause missed | crashed | worse than plain | better than plain |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ["plain", *names]:
        c = Counter(r[name] for r in rows)
        worse = sum(1 for r in rows if r["plain"] == "right" and r[name] != "right" or r["plain"] != "false" and r[name] == "false")
        better = sum(1 for r in rows if r["plain"] != "right" and r[name] == "right")
        crashed = sum(n for k, n in c.items() if k.startswith("error"))
        print(f"| {name} | {c['right']} | {c['false']} | {c['none']} | {c['cause']} | {crashed} | {worse} | {better} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
