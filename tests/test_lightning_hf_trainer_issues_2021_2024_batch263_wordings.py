"""Lightning and HF Trainer multi-GPU failures of 2021-2024 (real incidents batch 263), pinned as read. Two culprits
the log alone does not carry, so both read as nothing and stay NOT_YET (tests/corpus_not_yet_s38.py): a DDP Trainer
whose rank 6 logs ``Training completed for rank 6`` and ``Before barrier for rank 6`` (huggingface/transformers#17478:
EarlyStoppingCallback on ungathered metrics stopped rank 6 alone, which waited in the final barrier), and run_clm.py's
replicas blocked entering ``main_process_first`` (huggingface/transformers#17106: rank 0 still tokenizing past the
30-minute store timeout). Three controls that name no one: Lightning's ``ProcessGroupWrapper`` DETAIL lines of ranks 2
and 3 in a ModelCheckpoint broadcast (Lightning-AI/pytorch-lightning#19045: ``rank_zero_only=True`` logging
desynchronised every rank), read as nothing; the barrier's ``NCCL error ... invalid usage`` with two devices' bootstrap
unwinds (Lightning-AI/pytorch-lightning#8139: the barrier ran before DDP had device ids), read as an NCCL error of no
rank; DeepSpeed's ``need to call step() first`` in several interleaved tracebacks (huggingface/transformers#10330: fp16
overflow skips the first steps on every rank), read as nothing. Scored 3/5 both ways as collected; no rule changed
(measure only).
Contrasts: with every other rank's watchdog timing out, the trainer's barrier lines name rank 6 (never-joined) and the
replicas' ``main_process_first`` frames name rank 0 (never-joined); the agent's ``failed ... local_rank: 6`` names rank
6 (python-exception); the DETAIL lines with ranks 0, 1 and 3 timing out at 152517 name rank 2 (never-joined); the
barrier paste without its ``RuntimeError`` line reads as nothing; DeepSpeed's tracebacks with a ``[rank1]:``
``AssertionError`` name rank 1 (python-exception). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 15, 0, tzinfo=dt.timezone.utc)

EARLY_STOP = corpus_lines("transformers-17478-")
MAIN_FIRST = corpus_lines("transformers-17106-")
DETAIL_DESYNC = corpus_lines("pytorch-lightning-19045-")
BARRIER_DEVICES = corpus_lines("pytorch-lightning-8139-")
LR_ASSERT = corpus_lines("transformers-10330-")

#: a watchdog timeout of rank ``r`` in torch 2.x wording, at sequence number ``seq`` in collective ``op``
WATCHDOG = ("[rank{r}]:[E530 16:25:00.000000000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran "
            "for 1800012 milliseconds before timing out.")
#: the elastic agent's failure record for local rank ``r``
AGENT_FAILED = ("E0530 15:55:30.123000 140000 torch/distributed/elastic/multiprocessing/api.py:826] failed "
                "(exitcode: 1) local_rank: {r} (pid: 41236) of binary: /usr/bin/python3")

#: rank 6's barrier lines with every other rank of 8 timing out in a training collective
EARLY_STOP_OTHERS_TIME_OUT = EARLY_STOP + [
    WATCHDOG.format(r=r, seq=41031, op="ALLREDUCE") for r in (0, 1, 2, 3, 4, 5, 7)]
#: rank 6's barrier lines with the agent reporting local rank 6 failed
EARLY_STOP_AGENT_FAILED = EARLY_STOP + [AGENT_FAILED.format(r=6)]
#: the replicas' frames with ranks 1-3 of 4 timing out in the barrier they wait in
MAIN_FIRST_REPLICAS_TIME_OUT = MAIN_FIRST + [WATCHDOG.format(r=r, seq=1, op="BARRIER") for r in (1, 2, 3)]
#: the DETAIL lines with ranks 0, 1 and 3 timing out in the broadcast rank 2 had just started
DETAIL_OTHERS_TIME_OUT = DETAIL_DESYNC + [
    WATCHDOG.format(r=r, seq=152517, op="BROADCAST") for r in (0, 1, 3)]
#: the barrier paste without its ``RuntimeError`` line (and the hint under it): NCCL's unwinds alone
BARRIER_UNWINDS_ONLY = BARRIER_DEVICES[:2] + BARRIER_DEVICES[4:]
#: DeepSpeed's interleaved tracebacks closed by rank 1's tagged assertion
LR_ASSERT_RANK1 = LR_ASSERT + ["[rank1]: AssertionError: need to call step() first"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits the log does not carry (NOT_YET in the corpus), pinned as read
    "early-stop-as-pasted-names-none": (EARLY_STOP, None, None, None, None),
    "early-stop-one-node-of-8-names-none": (EARLY_STOP, 8, 8, None, None),
    "main-first-as-pasted-names-none": (MAIN_FIRST, None, None, None, None),
    "main-first-four-processes-names-none": (MAIN_FIRST, 4, 4, None, None),
    # controls
    "detail-desync-as-pasted": (DETAIL_DESYNC, None, None, None, None),
    "detail-desync-one-node-of-4": (DETAIL_DESYNC, 4, 4, None, None),
    "barrier-devices-as-pasted": (BARRIER_DEVICES, None, None, None, None),
    "barrier-devices-three-gpus": (BARRIER_DEVICES, 3, 3, None, None),
    "lr-assert-as-pasted": (LR_ASSERT, None, None, None, None),
    "lr-assert-one-node-of-4": (LR_ASSERT, 4, 4, None, None),
    # contrasts
    "early-stop-others-time-out-names-rank6": (EARLY_STOP_OTHERS_TIME_OUT, 8, 8, 6, "never-joined"),
    "early-stop-agent-failed-names-rank6": (EARLY_STOP_AGENT_FAILED, 8, 8, 6, "python-exception"),
    "main-first-replicas-time-out-names-rank0": (MAIN_FIRST_REPLICAS_TIME_OUT, 4, 4, 0, "never-joined"),
    "detail-others-time-out-names-rank2": (DETAIL_OTHERS_TIME_OUT, 4, 4, 2, "never-joined"),
    "barrier-unwinds-only-names-none": (BARRIER_UNWINDS_ONLY, 3, 3, None, None),
    "lr-assert-rank1-names-rank1": (LR_ASSERT_RANK1, 4, 4, 1, "python-exception"),
}
BATCHED = Batched("b263", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_lightning_hf_trainer_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(findings):
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_barrier_devices_read_as_an_nccl_error_of_no_rank(tmp_path):
    """The barrier's ``invalid usage`` with two devices' unwinds: an NCCL error warning that names no rank."""
    findings = pasted_findings(BARRIER_DEVICES, tmp_path, 3, 3, NOW)
    errors = [f for f in findings if f["cause"] == "nccl-error"]
    assert errors and all(not f["ranks"] and f["severity"] == "warning" for f in errors), _gist(findings)


def test_barrier_unwinds_alone_are_quiet(tmp_path):
    """Without the ``RuntimeError`` line the NCCL INFO/WARN unwinds raise no finding at all."""
    findings = pasted_findings(BARRIER_UNWINDS_ONLY, tmp_path, 3, 3, NOW)
    assert findings == [], _gist(findings)


@pytest.mark.parametrize("lines", [EARLY_STOP, MAIN_FIRST, DETAIL_DESYNC, LR_ASSERT],
                         ids=["early-stop", "main-first", "detail-desync", "lr-assert"])
def test_no_error_line_no_warning(lines, tmp_path):
    """Progress lines, blocked frames and an assertion with no rank: no warning or critical finding."""
    findings = pasted_findings(lines, tmp_path, 4, 4, NOW)
    loud = [g for g in _gist(findings) if g[1] in ("critical", "warning")]
    assert loud == [], loud


def test_detail_lines_keep_rank2_out_of_it(tmp_path):
    """Rank 2's payload broadcast at 152516 before 152517 is no lag: only timeouts of the others make it the culprit."""
    quiet = pasted_findings(DETAIL_DESYNC, tmp_path / "as-pasted", 4, 4, NOW)
    loud = pasted_findings(DETAIL_OTHERS_TIME_OUT, tmp_path / "others-time-out", 4, 4, NOW)
    assert not any(f["ranks"] for f in quiet), _gist(quiet)
    assert any(f["ranks"] == [2] and f["cause"] == "never-joined" for f in loud), _gist(loud)
