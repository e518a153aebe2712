"""The AWS Neuron runtime's check that the ranks of a replica group loaded the same compiled program (docs/rules.md,
"Session 61: the Neuron runtime's program mismatch"): ``ENC:validate_neff_cc_ops [nec_dev 0] mismatching number of cc
ops, expected 6 received 3. Check if ranks 1 and 0 are using the same neff`` (the reporter first, ``expected`` its own
graph's count of collective ops, ``received`` its peer's) is a collective mismatch. The rank named: the one off the
largest count's side; of exactly ranks 0 and 1, rank 0 (its rank-0-only code cut another graph: aws-neuron-sdk#779).
Contrasts: a two-against-two split, three counts one each, reports that disagree on every rank's count, and the
runtime's ``Failed to load NN`` alone name no one.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 6, 11, 0, tzinfo=dt.timezone.utc)
NEFF_MISMATCH = corpus_lines("aws-neuron-sdk-779-")


def _check(own: int, peer: int, mine: int, theirs: int, pid: int = 35560) -> str:
    return (f"2023-Oct-27 14:18:42.0222 {pid}:35755 ERROR   ENC:validate_neff_cc_ops                    [nec_dev 0] "
            f"mismatching number of cc ops, expected {mine} received {theirs}. Check if ranks {own} and {peer} are using "
            f"the same neff")


def _load_failed(pid: int = 35560) -> list[str]:
    return [f"2023-Oct-27 14:18:42.0222 {pid}:35755 ERROR   ENC:enc_load_operations                     [nec_dev 0] "
            "failed to validate neff across the replica group",
            f"2023-Oct-27 14:18:42.0222 {pid}:35755 ERROR  NMGR:kmgr_load_nn_post_metrics               Failed to load NN: "
            "/tmp/neuroncc_compile_workdir/facc2429/model.MODULE_1749+d41d8cd9.neff, err: 1"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_the_check_reads_each_side_s_count_the_reporter_first():
    events = classify(_check(1, 0, 6, 3))
    assert [(e["kind"], e["subkind"], e["rank"], e["reporter_rank"], e["fingerprint"]) for e in events] == [
        ("collective_mismatch", "neff_cc_ops", 1, 1, "cc ops=6"), ("collective_mismatch", "neff_cc_ops", 0, 1, "cc ops=3")]
    assert classify("mismatching number of cc ops, expected 6 received 3. Check if ranks 1 and 1 are using the same neff") == []
    assert classify(_load_failed()[1]) == []


@pytest.mark.parametrize("nproc,world", [(1, 2), (None, None)])
def test_the_incident_names_rank_0_a_collective_mismatch(tmp_path, nproc, world):
    """aws-neuron-sdk#779 as collected: rank 0 alone printed a tensor, which cut a graph rank 1 never built."""
    named = naming_findings(pasted_findings(NEFF_MISMATCH, tmp_path, nproc, world, NOW))
    assert named and {tuple(f["ranks"]) for f in named} == {(0,)}, _gist(named)
    assert "collective-mismatch" in {f["cause"] for f in named}, _gist(named)


@pytest.mark.parametrize("nproc,world", [(1, 2), (None, None)])
def test_the_runtime_lines_alone_name_rank_0(tmp_path, nproc, world):
    named = naming_findings(pasted_findings(NEFF_MISMATCH[:18], tmp_path, nproc, world, NOW))
    assert _gist(named) == [("nccl-hang", "critical", "collective-mismatch", [0])]


def test_one_report_of_two_ranks_names_rank_0(tmp_path):
    lines = [_check(1, 0, 6, 3)] + _load_failed()
    named = naming_findings(pasted_findings(lines, tmp_path, 1, 2, NOW))
    assert [(f["cause"], f["ranks"]) for f in named] == [("collective-mismatch", [0])], _gist(named)


def test_the_odd_rank_of_a_majority_is_named(tmp_path):
    """Four ranks: rank 2's graph holds 3 collective ops, the others' 6; its peers and itself report it."""
    lines = [f"[rank{r}]: " + _check(r, 2, 6, 3, 100 + r) for r in (1, 3)] + ["[rank2]: " + _check(2, 1, 3, 6, 102)]
    lines += ["[rank0]: " + _check(0, 1, 6, 6, 100).replace("mismatching", "matching")]  # no mismatch: not read
    lines += [f"[rank{r}]: " + line for r in (1, 2, 3) for line in _load_failed(100 + r)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert named and {tuple(f["ranks"]) for f in named} == {(2,)}, _gist(named)
    assert {f["cause"] for f in named} == {"collective-mismatch"}, _gist(named)


@pytest.mark.parametrize("lines", [
    # two against two: ranks 0 and 1 hold 6, ranks 2 and 3 hold 3: no majority
    [f"[rank{r}]: " + _check(r, (r + 2) % 4, 6 if r < 2 else 3, 3 if r < 2 else 6, 100 + r) for r in range(4)],
    # three ranks, three counts: no majority
    ["[rank0]: " + _check(0, 1, 6, 4, 100), "[rank1]: " + _check(1, 2, 4, 3, 101), "[rank2]: " + _check(2, 0, 3, 6, 102)],
    # the same line on every rank alike: each says its own count is 6 and its peer's 3, so every rank's count disagrees
    [f"[rank{r}]: " + _check(r, (r + 1) % 4, 6, 3, 100 + r) for r in range(4)],
], ids=["two-against-two", "three-counts", "every-rank-alike"])
def test_no_majority_names_no_one(tmp_path, lines):
    lines = lines + [f"[rank{r}]: " + line for r in range(4) for line in _load_failed(100 + r)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert named == [], _gist(named)


@pytest.mark.parametrize("nproc,world", [(1, 2), (None, None)])
def test_a_failed_load_alone_reads_as_before(tmp_path, nproc, world):
    """`Failed to load NN` without the cross-rank check: no mismatch, no finding (as batch 375's pin read it)."""
    lines = [line for line in NEFF_MISMATCH[:18] if "cc ops" not in line]
    assert naming_findings(pasted_findings(lines, tmp_path, nproc, world, NOW)) == []
