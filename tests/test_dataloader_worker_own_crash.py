"""A DataLoader worker's ``Aborted`` is its rank's Python exception (session 69, docs/rules.md "corpus NOT_YET
residue"). The main process reports a dead loader worker as ``RuntimeError: DataLoader worker (pid N) is killed by
signal: <signal>.``: the rank lives on and raises. The worker's signal is still the rank's cause where it says more
than the exception (``Killed``: the kernel's OOM killer, ``host-oom-kill``; ``Bus error``: /dev/shm full, ``sigbus``;
``Segmentation fault``, ``Floating point exception``: ``segfault``, ``sigfpe``), but not for ``Aborted``: the rank's
``abort`` is its own process's -6, the cause the NCCL watchdog's teardown of a waiting rank ends in, and a worker's
SIGABRT (an LLVM or c10 error in the worker) is no such teardown; the rank's failure is the RuntimeError it raised
(``python-exception``, as for ``Terminated``), as the corpus's four blind expectations of this wording say. Real
pastes of tests/data/real-incidents and marked synthetic variants, through ``k10s import-logs``, batched.
"""
from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 7, 6, 0, tzinfo=dt.timezone.utc)

# rank 4's `[rank4]: RuntimeError: DataLoader worker (pid 69916) is killed by signal: Aborted.` after LLVM's error
LLAMA = corpus_lines("LlamaFactory-8043-")
LOADER_LINE = "[rank4]: RuntimeError: DataLoader worker (pid 69916) is killed by signal: Aborted. "
assert LOADER_LINE in LLAMA


def _signal(word: str) -> list[str]:
    """SYNTHETIC: LlamaFactory-8043's paste with its loader worker's signal word replaced."""
    return [line.replace("killed by signal: Aborted.", f"killed by signal: {word}.") for line in LLAMA]


def _every_rank_alike() -> list[str]:
    """SYNTHETIC: four ranks' loader workers each killed by `Aborted` (the same dataset code on every rank): no one first."""
    return [line.replace("[rank4]:", f"[rank{r}]:").replace("pid 69916", f"pid {69910 + r}")
            for r in range(4) for line in LLAMA[1:]]


#: key: (lines, nproc, world, the rank named (None: no rank at warning or above), the cause of its finding)
CASES = {
    # the rank's own RuntimeError over its worker's abort: python-exception (the corpus's blind expectations)
    "llamafactory-8043-aborted": (LLAMA, None, None, 4, "python-exception"),
    "diffusionvideoediting-4-spawn-aborted": (corpus_lines("DiffusionVideoEditing-4-"), None, None, 3, "python-exception"),
    "pytorch-149762-lightning-aborted": (corpus_lines("pytorch-149762-"), None, None, 0, "python-exception"),
    "weathergenerator-1572-srun-label-aborted": (corpus_lines("WeatherGenerator-1572-"), None, None, 1, "python-exception"),
    "synthetic-terminated": (_signal("Terminated"), None, None, 4, "python-exception"),
    # contrasts: the other signals keep their cause
    "pai-megatron-patch-583-killed": (corpus_lines("Pai-Megatron-Patch-583-"), None, None, 0, "host-oom-kill"),
    "synthetic-killed": (_signal("Killed"), None, None, 4, "host-oom-kill"),
    "synthetic-bus-error": (_signal("Bus error"), None, None, 4, "sigbus"),
    "synthetic-segmentation-fault": (_signal("Segmentation fault"), None, None, 4, "segfault"),
    "synthetic-floating-point-exception": (_signal("Floating point exception"), None, None, 4, "sigfpe"),
    # contrast: the rank's own process aborting (the launcher's -6) is still `abort`
    "transformers-28119-torchrun-exit-6": (corpus_lines("transformers-28119-"), None, None, 4, "abort"),
    # controls: an unranked loader kill (3drs-7) and every rank's worker aborting alike name no rank
    "3drs-7-unranked-killed-control": (corpus_lines("3drs-7-"), None, None, None, None),
    "synthetic-every-rank-aborted-alike": (_every_rank_alike(), 4, 4, None, None),
}
BATCHED = Batched("dataloader-worker-own-crash", list(CASES))
MAKE = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_loader_worker_s_signal_and_the_rank_s_cause(key, tmp_path_factory):
    *_, rank, cause = CASES[key]
    findings = BATCHED.findings(key, tmp_path_factory, MAKE)
    assert_one_rank(naming_findings(findings), rank, cause)


@pytest.mark.parametrize("key", [k for k, v in CASES.items() if v[4] == "python-exception"])
def test_no_finding_calls_a_worker_s_abort_the_rank_s_abort(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, MAKE)
    assert not [f for f in findings if f["cause"] == "abort"], [
        (f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
