"""Scientific ML trained on several GPUs, 2024-2026 (real incidents batch 380: molecular ML), pinned as read. Three
incidents, collected blind, all three read right both ways as collected. Two are one culprit named by PyTorch
Lightning's child-process observer: TorchMD-Net on 4 GPUs with ``pin_memory=True`` + ``persistent_workers=True``, the
unprefixed ``RuntimeError: Pin memory thread exited unexpectedly`` from the DataLoader's ``_get_data``, then
``[rank: 1] Child process with PID 224779 terminated with code 1. Forcefully terminating all other processes to avoid
zombies :zombie:`` (torchmd/torchmd-net#324; the author: the pinned-memory + persistent-workers combination is unstable,
fixed by ``num_workers=0`` and torchmd-net#322) names rank 1 (rank-failure, python-exception, warning, medium), as
pasted or as 4 processes; the same author's rich-style tail ``ataloader.py 1290 _get_data`` / ``RuntimeError:`` /
``Pin memory thread exited unexpectedly`` then ``[rank: 2] Child process ...`` (torchmd/torchmd-net#323) names rank 2
(python-exception, warning, medium). The third is a control: MACE launched under ``torchrun`` on top of its own
launcher, c10d ``failed to bind to [::]:12355 (errno: 98 - Address already in use)`` and the
``torch.distributed.DistNetworkError`` (ACEsuit/mace#458; the answer: 'starting it twice', plain ``python
run_train.py`` fixed it) is a rendezvous-port-in-use warning of no rank. Scored 3/3 both ways as collected. Contrasts:
the pin-memory traceback without the observer line names no one as 4 untagged processes, names rank 1 when tagged
``[rank1]:``, and names no one when every rank prints it; the observer line alone names rank 1; a second observer line
after rank 2's keeps rank 2; the port-in-use error tagged by one rank or by every rank names no one. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

PIN_MEMORY_RANK1 = corpus_lines("torchmd-net-324-")
PIN_MEMORY_RANK2_RICH = corpus_lines("torchmd-net-323-")
MACE_PORT_IN_USE = corpus_lines("mace-458-")

#: the pin-memory traceback without Lightning's observer line (untagged)
PIN_MEMORY_NO_OBSERVER = PIN_MEMORY_RANK1[:-1]
#: the same traceback tagged by rank 1 alone, no observer line
PIN_MEMORY_TAGGED_RANK1 = [f"[rank1]: {line}" for line in PIN_MEMORY_NO_OBSERVER]
#: the same traceback printed by every one of the 4 ranks
PIN_MEMORY_EVERY_RANK = [f"[rank{rank}]: {line}" for rank in range(4) for line in PIN_MEMORY_NO_OBSERVER]
#: Lightning's observer line alone
OBSERVER_ONLY = PIN_MEMORY_RANK1[-1:]
#: a second observer line (rank 3) after rank 2's
PIN_MEMORY_RANK2_THEN_RANK3 = PIN_MEMORY_RANK2_RICH + [
    PIN_MEMORY_RANK2_RICH[-1].replace("[rank: 2]", "[rank: 3]").replace("1662142", "1662143")
]
#: the port-in-use lines tagged by rank 1 alone, and by every rank
MACE_PORT_RANK1 = [f"[rank1]: {line}" for line in MACE_PORT_IN_USE]
MACE_PORT_EVERY_RANK = [f"[rank{rank}]: {line}" for rank in range(4) for line in MACE_PORT_IN_USE]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "pin-memory-rank1-as-pasted": (PIN_MEMORY_RANK1, None, None, 1, "python-exception"),
    "pin-memory-rank1-four-gpus": (PIN_MEMORY_RANK1, 4, 4, 1, "python-exception"),
    "pin-memory-rank2-rich-as-pasted": (PIN_MEMORY_RANK2_RICH, None, None, 2, "python-exception"),
    "pin-memory-rank2-rich-four-gpus": (PIN_MEMORY_RANK2_RICH, 4, 4, 2, "python-exception"),
    "mace-port-in-use-as-pasted": (MACE_PORT_IN_USE, None, None, None, None),
    "mace-port-in-use-four-gpus": (MACE_PORT_IN_USE, 4, 4, None, None),
    # variants that must not name anyone
    "pin-memory-no-observer-names-none": (PIN_MEMORY_NO_OBSERVER, 4, 4, None, None),
    "pin-memory-every-rank-names-none": (PIN_MEMORY_EVERY_RANK, 4, 4, None, None),
    "mace-port-rank1-tagged-names-none": (MACE_PORT_RANK1, 4, 4, None, None),
    "mace-port-every-rank-names-none": (MACE_PORT_EVERY_RANK, 4, 4, None, None),
    # contrasts that must name a rank
    "pin-memory-tagged-rank1-names-rank1": (PIN_MEMORY_TAGGED_RANK1, 4, 4, 1, "python-exception"),
    "observer-only-names-rank1": (OBSERVER_ONLY, 4, 4, 1, "python-exception"),
    "rank2-then-rank3-observer-names-rank2": (PIN_MEMORY_RANK2_THEN_RANK3, 4, 4, 2, "python-exception"),
}
BATCHED = Batched("b380", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_scientific_ml_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"], f.get("confidence"))
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_lightning_observer_names_the_dead_child(tmp_path):
    """torchmd-net#324 and #323 as collected: Lightning's ``[rank: N] Child process with PID ... terminated with code
    1`` after an unprefixed (or rich-style) traceback names rank N, one warning, python-exception, confidence medium."""
    assert _gist(PIN_MEMORY_RANK1, tmp_path / "a", None, None) == [
        ("rank-failure", "warning", "python-exception", [1], "medium")
    ]
    assert _gist(PIN_MEMORY_RANK2_RICH, tmp_path / "b", 4, 4) == [
        ("rank-failure", "warning", "python-exception", [2], "medium")
    ]
    findings = pasted_findings(PIN_MEMORY_RANK1, tmp_path / "c", 4, 4, NOW)
    assert "Pin memory thread exited unexpectedly" in findings[0]["summary"]


def test_double_launch_port_collision_is_a_rankless_port_in_use(tmp_path):
    """mace#458 as collected: the c10d bind failures and ``DistNetworkError`` on port 12355 are a
    rendezvous-port-in-use warning of no rank. The wording blames another job or a leftover process; the truth here is
    the job's own duplicate launch (``torchrun`` over MACE's launcher): still no rank, which is what is scored."""
    assert _gist(MACE_PORT_IN_USE, tmp_path / "a", None, None) == [
        ("rank-failure", "warning", "rendezvous-port-in-use", [], None)
    ]
    findings = pasted_findings(MACE_PORT_IN_USE, tmp_path / "b", 4, 4, NOW)
    assert "port 12355" in findings[0]["summary"]
    assert "No rank is named" in findings[0]["summary"]
