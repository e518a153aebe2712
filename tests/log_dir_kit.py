"""Recorded torchrun runs read with their ``--log-dir`` trees, each tree copied and optionally edited first (the cases of
tests/test_log_dir_alike.py and tests/test_log_dir_loader_kill.py): every case's consoles and tree imported as one job's
bundle, all the bundles merged and analysed once."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from bundle_batch import findings_of, merge
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import import_logs, read_source, read_sources
from torch_runs_kit import CAPTURED, plain


def tree_findings(tmp: Path, cases: list[tuple[object, Callable[[Path], None] | None]]) -> list[dict]:
    """The merged analysis' findings of ``cases`` (a recorded run and an edit of its copied tree, or None), case k's
    bundle made under ``tmp/k`` (tests/bundle_batch.findings_of picks case k's findings)."""
    bundles = []
    for k, (run, edit) in enumerate(cases):
        (tmp / str(k)).mkdir()
        tree = tmp / str(k) / "log-dir"
        shutil.copytree(run.folder / "log-dir", tree)
        if edit is not None:
            edit(tree)
        sources = []
        for name, text in zip(run.truth["node_logs"], run.stamped()):
            (tmp / str(k) / name).write_text(plain(text), encoding="utf-8")
            sources.append(read_source(str(tmp / str(k) / name)))
        bundles.append(import_logs(sources + read_sources(str(tree)), tmp / str(k) / "bundle", job="train",
                                   namespace="team-a", now=CAPTURED, derive=False)[0])
    return analyze(merge(bundles, tmp / "merged"))["findings"]


_MADE: dict[str, list[dict]] = {}


def case_findings(tmp_path_factory, name: str, cases: dict, case: str) -> list[dict]:
    """Case ``case``'s findings among ``cases`` (its name -> (run, edit, what is wanted)), all of them imported and
    analysed once per test module (``name``) on first use."""
    if name not in _MADE:
        _MADE[name] = tree_findings(tmp_path_factory.mktemp(name), [(run, edit) for run, edit, _ in cases.values()])
    return findings_of(_MADE[name], list(cases).index(case))
