"""gloo's flight-recorder entries name no rank by their state (docs/rules.md, "Session 31: leftovers").

The thirty-second launcher set (tests/data/torch-runs ``t32-*``) showed that gloo's flight recorder records every
collective in state ``scheduled`` and never moves it (no start or completion events), and that a collective that failed
can be ``retired`` and counted in ``pg_status`` as completed. The readings of k10s_hang_evidence_fr that rest on the
state — a rank behind the others (lag: "its peers entered #N and did not complete it"), a rank with no dump while the
others "all wait in #N, none completed" — so named innocents from gloo dumps: every clean run's dump set with one
rank's dump missing, one more entry on one rank, or one fewer, named a rank at critical (nccl-hang never-joined), as did
the size mismatch with the culprit's dump missing (its aborted peer too). A gloo group's lag and no-dump readings are
now suspects at low confidence (no culprit), so the logs decide; a mismatch of op or sizes (not a state) still names.

Cases are the recorded dumps, byte for byte, varied: a rank's dump file left out, or one dump re-pickled with its last
entry copied as the next collective (one more) or dropped (one fewer). Contrasts: the same dumps as NCCL's (ops
``nccl:``, the entries before the last ``completed`` as NCCL records them) still name the rank behind or without a
dump; the gloo mismatch still names its rank; the culprits still named from the logs. One captured analysis.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bundle_batch import findings_of
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.fr_unpickle import loads_data
from k10s_forensics.simulate.fr_dumps import encode_dump
from t32_fr_kit import captured_bundle, runs
from torch_runs_kit import Run

RUNS = {r.id: r for r in runs()}
GROUP = pytest.mark.xdist_group("gloo-fr-s31")


def _nccl(doc: dict) -> dict:
    """The dump as NCCL's would read: ops ``nccl:``, every entry but the last completed (the last keeps its state)."""
    entries = doc["entries"]
    for i, e in enumerate(entries):
        e["profiling_name"] = str(e["profiling_name"]).replace("gloo:", "nccl:")
        if i < len(entries) - 1:
            e.update(state="completed", retired=True)
        else:
            e["retired"] = False
    return doc


#: key: (run, ranks whose dump is left out, rank with one more entry, rank with one fewer, as NCCL's, the rank(s) a
#: warning/critical finding may name: () none, else exactly these)
CASES: dict[str, tuple[str, tuple[int, ...], int | None, int | None, bool, tuple[int, ...]]] = {
    **{f"{v}/clean-no-dump-{k}": (f"{v}/t32-fr-clean", (k,), None, None, False, ()) for v in ("2.13.0", "2.14.1") for k in (0, 3)},
    **{f"{v}/clean-one-more-{k}": (f"{v}/t32-fr-clean", (), k, None, False, ()) for v in ("2.13.0", "2.14.1") for k in (1, 2)},
    **{f"{v}/clean-one-fewer-{k}": (f"{v}/t32-fr-clean", (), None, k, False, ()) for v in ("2.13.0", "2.14.1") for k in (0, 2)},
    # a different rank at fault: the size mismatch's culprit (rank 2) wrote none, nor did its aborted peer rank 1
    "2.13.0/size-mismatch-no-dump-2": ("2.13.0/t32-fr-size-mismatch-rank2", (2,), None, None, False, ()),
    "2.14.1/size-mismatch-no-dump-2": ("2.14.1/t32-fr-size-mismatch-rank2", (2,), None, None, False, ()),
    # the ring of recv timing out on every rank (a control) with one dump missing or one more entry
    "2.14.1/ring-no-dump-0": ("2.14.1/t32-fr-p2p-ring-all-timeout", (0,), None, None, False, ()),
    "2.13.0/ring-one-more-3": ("2.13.0/t32-fr-p2p-ring-all-timeout", (), 3, None, False, ()),
    # culprits the logs name: one more entry on an innocent rank no longer names its peers
    "2.13.0/stuck-one-more-2": ("2.13.0/t32-fr-stuck-compute-rank1", (), 2, None, False, (1,)),
    "2.14.1/stuck-one-more-2": ("2.14.1/t32-fr-stuck-compute-rank1", (), 2, None, False, (1,)),
    "2.14.1/sigkill-one-fewer-0": ("2.14.1/t32-fr-sigkill-midstep-rank2", (), None, 0, False, (2,)),
    "2.13.0/skip-no-dump-1": ("2.13.0/t32-fr-skip-allreduce-rank3", (1,), None, None, False, (3,)),
    # contrasts: gloo's mismatch of op or sizes still names its rank, with one more entry on an innocent rank or an
    # innocent's dump missing
    "2.14.1/size-mismatch-one-more-0": ("2.14.1/t32-fr-size-mismatch-rank2", (), 0, None, False, (2,)),
    "2.13.0/other-op-no-dump-3": ("2.13.0/t32-fr-other-op-broadcast-rank1", (3,), None, None, False, (1,)),
    # ... and the same dumps as NCCL's name the rank behind (its last entry is #N-1, theirs #N, still scheduled) or
    # the rank without a dump while every other waits in #N
    "2.14.1/nccl-clean-one-fewer-2": ("2.14.1/t32-fr-clean", (), None, 2, True, (2,)),
    "2.13.0/nccl-clean-no-dump-3": ("2.13.0/t32-fr-clean", (3,), None, None, True, (3,)),
}


def _variant(key: str, tmp: Path) -> Run:
    rid, drop, more, fewer, nccl, _ = CASES[key]
    run = RUNS[rid]
    folder = tmp / key.replace("/", "-")
    shutil.copytree(run.folder, folder)
    for f in sorted(folder.glob("fr-dumps/*/nccl_trace_rank_*")):
        rank = int(f.name.rsplit("_", 1)[1])
        if rank in drop:
            f.unlink()
            continue
        if rank not in (more, fewer) and not nccl:
            continue  # the recorded bytes as they are
        doc = loads_data(f.read_bytes())
        if rank == more:
            nxt = dict(doc["entries"][-1])
            nxt.update(record_id=nxt["record_id"] + 1, collective_seq_id=nxt["collective_seq_id"] + 1)
            doc["entries"].append(nxt)
        if rank == fewer:
            doc["entries"].pop()
        f.write_bytes(encode_dump(_nccl(doc) if nccl else doc))
    return Run(run.version, key, folder, run.truth)


_FOUND: dict[str, list] = {}


def _findings(tmp_path_factory) -> list:
    if "all" not in _FOUND:
        tmp = tmp_path_factory.mktemp("gloo-fr")
        variants = [_variant(k, tmp / "runs") for k in CASES]
        _FOUND["all"] = analyze(captured_bundle(variants, tmp))["findings"]
    return _FOUND["all"]


def test_the_variants_read_recorded_dumps():
    for key, (rid, *_rest) in CASES.items():
        assert (RUNS[rid].folder / "fr-dumps").is_dir(), key
        assert key.split("/")[0] == RUNS[rid].version


@GROUP
@pytest.mark.parametrize("key", list(CASES))
def test_gloo_entries_name_no_rank_by_their_state(key, tmp_path_factory):
    found = findings_of(_findings(tmp_path_factory), list(CASES).index(key))
    named = naming_findings(found)
    want = CASES[key][-1]
    if not want:
        assert not named, [(f["rule"], f["cause"], f["ranks"], f["severity"]) for f in named]
        return
    assert named and all(tuple(f["ranks"]) == want for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]


@GROUP
def test_the_gloo_readings_say_suspects_and_why(tmp_path_factory):
    """A gloo group's lag (ranks 0 and 3 "behind" rank 2's extra entry) is low evidence naming no one: the logs decide."""
    found = findings_of(_findings(tmp_path_factory), list(CASES).index("2.14.1/stuck-one-more-2"))
    decision = [f["evidence"][0] for f in found if f["rule"] == "nccl-hang"]
    assert decision and decision[0]["decided_by"] == "watchdog-compare", decision
    assert "flight-recorder/low: no culprit" in decision[0]["considered"], decision
