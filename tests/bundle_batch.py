"""Several one-job bundles as one captured bundle, for tests that analyse many small inputs.

An analysis has a fixed cost (~0.15 CPU s on these machines, most of a pasted incident's reading);
a bundle holding many jobs costs little more than one: ``PER_ANALYSIS`` inputs share one analysis. ``merge`` copies the raw layers of bundles
made by ``k10s import-logs`` (or a test kit) into one bundle, each source's objects and rows renamed
apart: namespace ``b<i>-<ns>``, nodes ``b<i>-<node>``, uids ``<uid>-b<i>``. Nothing else changes,
so each job reads as it did alone — which the tests using it check on samples
(``findings_of`` picks a source's findings out) and which is what a capture of a busy cluster
needs anyway: nothing of one job may leak into another's findings.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Callable

import pyarrow.parquet as pq
import pytest

from k10s_forensics.rebuild.run import rebuild
from k10s_forensics.store.bundle import RAW_NAMES, Bundle, new_manifest, write_json_atomic, write_raw_table

#: Inputs per analysis in every batched test (the corpus, the launcher recordings, the paste damages, the shapes).
#: 8 until session 21; 32 takes ~45 % of those modules' CPU off (benchmarks/results/test-suite.md, "Session 21"),
#: every input's findings the same at 8 and 32 (tests/tools/compare_batch_sizes.py).
PER_ANALYSIS = 32


def _node(i: int, node: str | None) -> str | None:
    return None if node is None else f"b{i}-{node}"


def _namespace(i: int, ns: str | None) -> str | None:
    return None if ns is None else f"b{i}-{ns}"


def _uid(i: int, uid: str | None) -> str | None:
    return None if uid is None else f"{uid}-b{i}"


def _object(i: int, row: dict[str, Any]) -> dict[str, Any]:
    body = json.loads(row["body"])
    meta = body.get("metadata") or {}
    if meta.get("namespace") is not None:
        meta["namespace"] = _namespace(i, meta["namespace"])
    if meta.get("uid") is not None:
        meta["uid"] = _uid(i, meta["uid"])
    for owner in meta.get("ownerReferences") or []:
        owner["uid"] = _uid(i, owner.get("uid"))
    if body.get("kind") == "Node":
        meta["name"] = _node(i, meta.get("name"))
    spec = body.get("spec") or {}
    if spec.get("nodeName"):
        spec["nodeName"] = _node(i, spec["nodeName"])
    name = meta.get("name") if body.get("kind") == "Node" else row["name"]
    return {**row, "namespace": _namespace(i, row["namespace"]), "uid": _uid(i, row["uid"]), "name": name, "body": json.dumps(body)}


def _row(i: int, row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for key, rename in (("namespace", _namespace), ("node", _node), ("pod_uid", _uid)):
        if key in out:
            out[key] = rename(i, out[key])
    return out


def renamed(i: int, table: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Raw ``table``'s rows of source ``i``, renamed apart from every other source's."""
    return [_object(i, r) if table == "objects" else _row(i, r) for r in rows]


def _window(bundle: Bundle) -> tuple[dt.datetime, dt.datetime]:
    w = bundle.manifest["window"]
    parse = lambda s: dt.datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return parse(w["start"]), parse(w["end"])


def merge(bundles: list[Bundle], path: Path) -> Bundle:
    """One bundle at ``path`` holding every bundle's raw layer, renamed apart, rebuilt."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for i, bundle in enumerate(bundles):
        for name in RAW_NAMES:
            raw = bundle.raw_path(name)
            if not raw.is_file():
                continue
            tables.setdefault(name, []).extend(renamed(i, name, pq.read_table(raw).to_pylist()))
    windows = [_window(b) for b in bundles]
    path.mkdir(parents=True)
    end = max(w[1] for w in windows)
    write_json_atomic(path / "manifest.json", new_manifest(window_start=min(w[0] for w in windows), window_end=end, created_at=end))
    for name, rows in tables.items():
        write_raw_table(path, name, rows)
    merged = Bundle.open(path)
    rebuild(merged)
    return Bundle.open(path)


def findings_of(findings: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """Source ``index``'s findings in a merged bundle's: its jobs', and those of no job on its nodes or none."""
    prefix = f"b{index}-"
    return [f for f in findings if (f["job"] or "").startswith(prefix)
            or (f["job"] is None and (not f["nodes"] or any(n.startswith(prefix) for n in f["nodes"])))]


def assert_names(findings: list[dict[str, Any]], index: int, want: list[int], cause: str | None = None) -> None:
    """Source ``index``'s findings that name a rank name exactly the ranks ``want`` (none: a control), one of
    them with ``cause`` when one is given."""
    from incident_kit import naming_findings

    named = naming_findings(findings_of(findings, index))
    got = [(f["rule"], f["severity"], f["ranks"], f.get("cause")) for f in named]
    assert sorted({r for f in named for r in f["ranks"]}) == want, got
    if cause:
        assert cause in {f.get("cause") for f in named if f["ranks"]}, got


def shape_params(shapes: list[tuple], not_yet: dict[str, str] | None = None) -> list:
    """``(index, want, cause)`` parameters of cut launcher shapes ``(name, node_logs, want, cause)``, each id'd by its
    name; a name in ``not_yet`` is a strict xfail with its reason."""
    not_yet = not_yet or {}
    return [pytest.param(i, w, c, id=name, marks=[pytest.mark.xfail(strict=True, reason=not_yet[name])]
                         if name in not_yet else []) for i, (name, _, w, c) in enumerate(shapes)]


def pasted(text: str | list[str], folder: Path, nproc: int | None, now: dt.datetime, world: int | None = -1) -> Bundle:
    """``text`` (or its ``lines``) as one pasted log imported as a user would (``k10s import-logs``: job ``train`` in
    ``team-a``, ``nproc`` processes per node, ``world`` in all; ``world`` left out: ``nproc``), raw layer only: a
    ``Batched`` input's bundle."""
    from k10s_forensics.logimport import LogSource, import_logs

    body = text if isinstance(text, str) else "\n".join(text) + "\n"
    return import_logs([LogSource("log.txt", body)], folder / "b", nproc_per_node=nproc,
                       world_size=nproc if world == -1 else world, job="train", namespace="team-a", now=now,
                       derive=False)[0]


def pasted_cases(cases: dict[str, tuple], now: dt.datetime):
    """The ``Batched`` maker of a wording test's ``cases`` (``{key: (lines, nproc, world, …)}``): the key's lines pasted
    (``pasted``) into the folder it is given."""

    def make(key: str, folder: Path) -> Bundle:
        lines, nproc, world = cases[key][:3]
        return pasted(lines, folder, nproc, now, world=world)

    return make


def pasted_findings(text: str | list[str], folder: Path, nproc: int | None, world: int | None, now: dt.datetime) -> list:
    """The findings of ``analyze`` on ``text`` pasted (``pasted``) into ``folder``."""
    from k10s_forensics.analyze.runner import analyze

    return analyze(pasted(text, folder, nproc, now, world=world))["findings"]


def assert_one_rank(named: list[dict[str, Any]], want: int | None, cause: str | None = None) -> None:
    """The findings naming ranks (``incident_kit.naming_findings``) are none (``want`` None: a control) or name rank
    ``want`` alone (and one of them with ``cause``, where given)."""
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    if want is None:
        assert named == [], got
    else:
        assert named and all(f["ranks"] == [want] for f in named), got
        assert cause is None or any(f["cause"] == cause for f in named), got


def assert_info_suspect(findings: list[dict[str, Any]], rank: int) -> None:
    """One rank's traceback frames with no exception line: its only rank-failure is an info python-exception holding that
    rank (a suspect, not a culprit), nothing louder."""
    failures = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]
    assert failures == [("rank-failure", "info", "python-exception", [rank])], failures


def gist(findings: list[dict[str, Any]]) -> list[tuple]:
    """What a finding says of its input, whatever its job's and nodes' names: rule, severity, cause, ranks, when
    (what a source must read alike alone and merged)."""
    return [(f["rule"], f["severity"], f["cause"], f["ranks"], f["started_at"], f["ended_at"]) for f in findings]


def key_id(key: tuple) -> str:
    """A tuple key's test id: its parts joined by ``-``."""
    return "-".join(map(str, key))


class Batched:
    """Inputs read ``size`` per analysis, for a parametrised test with one input per case.

    ``keys``: every case's input, in the test's order; a batch is ``size`` neighbours. ``mark(key)``: the
    ``xdist_group`` that keeps a batch on one worker; ``findings(key, tmp_path_factory, make)``: the input's
    findings in its batch's merged bundle, analysed once per process, where ``make(key, folder)`` writes one
    input's bundle, raw layer only (``import_logs(..., derive=False)``).
    """

    def __init__(self, name: str, keys: list[Any], size: int = PER_ANALYSIS) -> None:
        self.name = name
        self.batches = [keys[i:i + size] for i in range(0, len(keys), size)]
        self.batch_of = {k: (i // size, i % size) for i, k in enumerate(keys)}
        self._findings: dict[int, list[dict[str, Any]]] = {}

    def mark(self, key: Any) -> pytest.MarkDecorator:
        return pytest.mark.xdist_group(f"{self.name}-{self.batch_of[key][0]}")

    def params(self, keys: Any, name: Callable[[Any], str] = key_id) -> list[Any]:
        """``keys`` as a parametrised test's cases: each with its test id ``name(key)`` and its batch's mark."""
        return [pytest.param(k, id=name(k), marks=self.mark(k)) for k in keys]

    def findings(self, key: Any, tmp_path_factory: Any, make: Callable[[Any, Path], Bundle]) -> list[dict[str, Any]]:
        from k10s_forensics.analyze.runner import analyze

        b, i = self.batch_of[key]
        if b not in self._findings:
            tmp = tmp_path_factory.mktemp(f"{self.name}{b}")
            bundles = [make(k, tmp / str(j)) for j, k in enumerate(self.batches[b])]
            self._findings[b] = analyze(merge(bundles, tmp / "merged"))["findings"]
        return findings_of(self._findings[b], i)


def analyze_node_sets(node_sets: list[tuple], tmp: Path, now: dt.datetime,
                      nproc: Callable[[str], int | None] = lambda name: None) -> list[dict[str, Any]]:
    """The findings of ``(name, node texts, …)`` sets, each imported as one job's node logs (``node<i>.log``, with
    ``nproc(name)`` processes per node where given) and all analysed together; ``findings_of(findings, i)`` picks set
    ``i``'s out."""
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.logimport import LogSource, import_logs

    bundles = []
    for name, texts, *_ in node_sets:
        sources = [LogSource(f"node{i}.log", t) for i, t in enumerate(texts)]
        bundles.append(import_logs(sources, tmp / name, job="train", namespace="team-a", now=now, derive=False,
                                   nproc_per_node=nproc(name))[0])
    return analyze(merge(bundles, tmp / "merged"))["findings"]


__all__ = ["Batched", "analyze_node_sets", "findings_of", "gist", "merge", "renamed"]
