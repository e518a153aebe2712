"""Our own corpus of real incidents (tests/data/real-incidents, see its README): each log turned
into a bundle by ``k10s import-logs`` as a user would, analyzed, and held to its blind
expectation — routed to pods by rank, and again as one pod's log with API timestamps.

Both ways analyse BATCH incidents at a time, merged into one captured bundle (tests/bundle_batch.py:
each incident's job renamed apart, its findings picked out; an analysis has a fixed cost that a batch
pays once; every incident reads the same alone, checked on all when this came in and on a sample here).

The routed bundles are analysed through ``twins`` (conftest.py): once with PYTHONHASHSEED=1 and one
DuckDB thread, once with seed 2 and 4 threads, the outputs byte-identical (tests/test_determinism.py's
sweep for this corpus); a difference raises DeterminismError, which fails even a NOT_YET case (their
xfail is for an AssertionError only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundle_batch import PER_ANALYSIS, findings_of, gist, merge
from corpus_not_yet import NOT_YET, NOT_YET_ONE_POD  # NOT_YET also read by test_paste_real_incidents through this module
from incident_kit import analyze_incident, incident_bundle, load_corpus, misses
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.errors import InputError
from k10s_forensics.store.bundle import Bundle

CORPUS = Path(__file__).resolve().parent / "data" / "real-incidents"
CASES = load_corpus(CORPUS)

BATCH = PER_ANALYSIS
_BATCHES = [CASES[i:i + BATCH] for i in range(0, len(CASES), BATCH)]
_BATCH_OF = {case.incident: (b, i) for b, batch in enumerate(_BATCHES) for i, case in enumerate(batch)}
_FINDINGS: dict[tuple[str, int], list] = {}


def _params(way: str = ""):
    for case in CASES:
        why = NOT_YET.get(case.incident) or (NOT_YET_ONE_POD.get(case.incident) if way == "one-pod" else None)
        marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=why)] if why else []
        if way:  # a batch's incidents share its analysis: one worker runs them
            marks.append(pytest.mark.xdist_group(f"corpus-{way}-{_BATCH_OF[case.incident][0]}"))
        yield pytest.param(case, id=case.incident, marks=marks)


#: An incident the importer refuses (an InputError: a user gets its one-line question, no verdict), by way: a miss,
#: counted as benchmarks/bench_real_incidents.py counts it; its batch is merged without it
_REFUSED: dict[tuple[str, str], str] = {}
#: An incident's position among its batch's merged bundles (the refused ones left out)
_POSITION: dict[tuple[str, str], int] = {}


def _merged(way: str, b: int, tmp_path_factory) -> Path:
    """Batch ``b``'s bundles (``way``: routed, or one pod's log with API timestamps) merged into one."""
    tmp = tmp_path_factory.mktemp(f"{way}{b}")
    how = {"api_timestamps": True, "one_log": True} if way == "one-pod" else {}
    bundles = []
    for c in _BATCHES[b]:
        try:
            bundle = incident_bundle(tmp / c.incident, c, (c.folder / c.incident / "log.txt").read_text(encoding="utf-8"), **how, derive=False)
        except InputError as exc:
            _REFUSED[way, c.incident] = f"refused by the importer: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            continue
        _POSITION[way, c.incident] = len(bundles)
        bundles.append(bundle)
    return merge(bundles, tmp / "merged").path


def _batch_findings(way: str, case, tmp_path_factory, twins=None) -> list:
    """The incident's findings in its batch's merged bundle (analysed once per process; routed: through ``twins``).
    An incident the importer refused fails here (an AssertionError: a miss, xfail where NOT_YET lists it)."""
    b, _ = _BATCH_OF[case.incident]
    if (way, b) not in _FINDINGS:
        path = _merged(way, b, tmp_path_factory)
        if twins is None:
            _FINDINGS[way, b] = analyze(Bundle.open(path))["findings"]
        else:
            _FINDINGS[way, b] = twins.findings(f"corpus-batch-{b}", path, tmp_path_factory.mktemp(f"runs{b}"))["findings"]
    assert (way, case.incident) not in _REFUSED, _REFUSED.get((way, case.incident))
    return findings_of(_FINDINGS[way, b], _POSITION[way, case.incident])


def test_every_folder_has_one_expectation():
    folders = {p.name for p in CORPUS.iterdir() if p.is_dir()}
    names = [c.incident for c in CASES]
    assert len(names) == len(set(names))
    assert set(names) == folders
    assert set(NOT_YET) <= set(names) and set(NOT_YET_ONE_POD) <= set(names) - set(NOT_YET)
    for case in CASES:
        assert (CORPUS / case.incident / "SOURCE.md").is_file(), case.incident


@pytest.mark.parametrize("case", list(_params("routed")))
def test_corpus_incident(tmp_path_factory, twins, case):
    findings = _batch_findings("routed", case, tmp_path_factory, twins)
    assert misses(case, findings) is None, misses(case, findings)


@pytest.mark.parametrize("case", list(_params("one-pod")))
def test_corpus_incident_one_pod_api_timestamps(tmp_path_factory, case):
    """The same verdict when the whole paste is one pod's log with the API's timestamps=true prefix."""
    findings = _batch_findings("one-pod", case, tmp_path_factory)
    assert misses(case, findings) is None, misses(case, findings)


@pytest.mark.xdist_group("corpus-one-pod-0")
def test_an_incident_reads_alike_alone_and_merged_with_others(tmp_path, tmp_path_factory):
    """An incident's one-pod findings alone are those it gets merged with its batch (what the batched
    readings rely on; every incident compared when they were introduced: benchmarks/results/test-suite.md)."""
    for case in _BATCHES[0][:2]:
        alone = analyze_incident(tmp_path, case, api_timestamps=True, one_log=True)
        assert gist(alone) == gist(_batch_findings("one-pod", case, tmp_path_factory)), case.incident
