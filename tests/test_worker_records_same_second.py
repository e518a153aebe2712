"""Workers raising in the same second (session 72, docs/rules.md "Session 72: workers raising in the same second").

vLLM's multiproc workers log an exception through one handler, line by line, each line behind ``(VllmWorker rank=N
pid=P) ERROR MM-DD HH:MM:SS [multiproc_executor.py:LINE]``. Where another worker's record from that handler bears the
same second as the named rank's failure line, both raised at that moment at one step of the code they share, however
much of the second record the paste kept: rank-failure names no single culprit (decided_by ``records-alike``).

Real paste: vllm-project/vllm#18045 (real incidents batch 366, a control: the FlashInfer sampler traps on every TP rank;
rank 3's ``CUDA error: an illegal instruction was encountered`` whole, rank 2's record cut after its first, empty line)
named rank 3 before; now no one, laid out as the TP-4 job, as pasted, and with vLLM's later ``(Worker_TP3 pid=…)``
prefix or the pids masked. Contrasts that keep rank 3 named (the rule still names a culprit): rank 2's record a second later (gpustack-6019's
shape: the others' records 2 s after the culprit's, on its loss), from another handler line, or carrying a different
error of its own (a peer's wording). Parser cases on the two real pastes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_worker_records import shared_records

NOW = dt.datetime(2026, 12, 7, 23, 0, tzinfo=dt.timezone.utc)

SAMPLER_TRAP = corpus_lines("vllm-18045-")
#: rank 2's record opened a second later: not the same moment
RANK2_LATER = [line.replace("rank=2 pid=267) ERROR 05-12 19:01:18", "rank=2 pid=267) ERROR 05-12 19:01:19") for line in SAMPLER_TRAP]
#: rank 2's record from another handler line: another step of the code
RANK2_OTHER_SITE = [line.replace("rank=2 pid=267) ERROR 05-12 19:01:18 [multiproc_executor.py:470]",
                                 "rank=2 pid=267) ERROR 05-12 19:01:18 [multiproc_executor.py:512]") for line in SAMPLER_TRAP]
#: rank 2's record goes on to an error of its own that differs (a peer's loss: a victim's wording)
RANK2_PEER = SAMPLER_TRAP + ["(VllmWorker rank=2 pid=267) ERROR 05-12 19:01:18 [multiproc_executor.py:470] "
                             "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.3]:41234"]
#: vLLM's later worker prefix
#: the pids masked as users mask them (tests/paste_damage.py's redaction)
PIDS_REDACTED = [line.replace("pid=268)", "pid=<PID>)").replace("pid=267)", "pid=<PID>)") for line in SAMPLER_TRAP]
WORKER_TP = [line.replace("(VllmWorker rank=3 pid=268)", "(Worker_TP3 pid=268)").replace("(VllmWorker rank=2 pid=267)", "(Worker_TP2 pid=267)")
             for line in SAMPLER_TRAP]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the real paste: no single culprit
    "sampler-trap-tp4": (SAMPLER_TRAP, 4, 4, None, None),
    "sampler-trap-as-pasted": (SAMPLER_TRAP, None, None, None, None),
    "sampler-trap-worker-tp-prefix": (WORKER_TP, 4, 4, None, None),
    "sampler-trap-pids-redacted": (PIDS_REDACTED, 4, 4, None, None),
    # contrasts: rank 3 still named
    "rank2-a-second-later-names-rank3": (RANK2_LATER, 4, 4, 3, "cuda-error"),
    "rank2-other-handler-line-names-rank3": (RANK2_OTHER_SITE, 4, 4, 3, "cuda-error"),
    "rank2-own-peer-error-names-rank3": (RANK2_PEER, 4, 4, 3, "cuda-error"),
}
BATCHED = Batched("worker-records", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_worker_records_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_the_real_paste_says_why_no_one(tmp_path):
    """vllm#18045: a cuda-error warning of no rank, decided by the records alike, its reason naming both workers."""
    (f,) = [f for f in pasted_findings(SAMPLER_TRAP, tmp_path, 4, 4, NOW) if f["rule"] == "rank-failure"]
    assert (f["severity"], f["cause"], f["ranks"]) == ("warning", "cuda-error", [])
    ev = f["evidence"][0]
    assert ev["decided_by"] == "records-alike"
    assert "rank 3's error" in ev["no_culprit_reason"] and "rank(s) 2" in ev["no_culprit_reason"]


def test_shared_records_of_the_real_pastes():
    """The parser's groups: vllm#18045's ranks 2 and 3 at 19:01:18 (rank 2's first, empty record line counts); in
    gpustack#6019 (a culprit, rank 12 at 23:02:36) ranks 8 and 13 share 23:02:38 and rank 12 is in no group."""
    got = shared_records("\n".join(SAMPLER_TRAP))
    assert {(r, key) for r, _, _, key in got} == {(3, "multiproc_executor.py:470 05-12 19:01:18"),
                                                  (2, "multiproc_executor.py:470 05-12 19:01:18")}
    gpustack = shared_records("\n".join(corpus_lines("gpustack-6019-")))
    assert {r for r, _, _, _ in gpustack} == {8, 13}
    assert {key for _, _, _, key in gpustack} == {"multiproc_executor.py:898 08-10 23:02:38"}


def test_one_worker_alone_or_another_second_is_no_group():
    """One worker's records alone, or two workers' a second apart, give no row."""
    assert shared_records("\n".join(line for line in SAMPLER_TRAP if "rank=2" not in line)) == []
    assert shared_records("\n".join(RANK2_LATER)) == []
