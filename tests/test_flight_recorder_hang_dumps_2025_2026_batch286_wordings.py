"""Flight Recorder / py-spy hang dumps of 2025-2026 (real incidents batch 286), pinned as read.
Three controls, collected blind, all read right as collected (no finding names a rank, both ways): rank 2's watchdog
teardown of the ``mesh_ulysses`` sub-group after ``OpType=ALLTOALL_BASE ... ran for 1800018 milliseconds``
(vipshop/cache-dit#761: a FLUX.2 Ulysses "anything" all-to-all bug fixed in code) is an info group hang; one unranked
py-spy dump parked in ``broadcast`` under DeepSpeed's ``_zero_init_param`` (deepspeedai/DeepSpeed#7266: the
``device_id`` / NCCL 2.26 non-blocking-communicator deadlock) is read as nothing; ranks 1 and 2 both ``failure detected
by watchdog at work sequence id: 1116`` with the FlightRecorder-disabled hint and ``First PG on this rank to signal
dumping`` (2U1/Qwen-VL-Series-Finetune#194: a mixed text-only + image-text dataset) are an info hang with no single
culprit (laid out four to a node) or an info "rank 0 never joined" (no layout). Scored 3/3 both ways as collected; no
rule changed (measure only). Contrasts: rank 2's own CUDA OOM before the teardown names rank 2 (cuda-oom); the teardown
renumbered to rank 3 stays a control; a tagged traceback of rank 3 after the py-spy dump or after the watchdog lines
names rank 3 (python-exception); the agent's ``exitcode: -9`` for local rank 5 after the dump names rank 5
(host-oom-kill); a lone tagged ``RuntimeError`` line with no traceback and rank 2's ``last enqueued work`` lowered to
1116 (behind rank 1's 1118) name no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 3, 0, tzinfo=dt.timezone.utc)

ALLTOALL_TEARDOWN = corpus_lines("cache-dit-761-")
PYSPY_BROADCAST = corpus_lines("DeepSpeed-7266-")
SIGNAL_DUMPING = corpus_lines("Qwen-VL-Series-Finetune-194-")

#: rank 2's own CUDA OOM ahead of its watchdog teardown
ALLTOALL_OWN_OOM = [
    "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 2 has a total capacity of "
    "79.11 GiB of which 1.20 GiB is free."
] + ALLTOALL_TEARDOWN
#: the same teardown as rank 3's
ALLTOALL_RANK3 = [
    line.replace("rank2", "rank3").replace("Rank 2", "Rank 3")
    for line in ALLTOALL_TEARDOWN
]
#: the teardown without its ``watchdog thread terminated`` line (the failed/timed-out notices left)
ALLTOALL_NO_WATCHDOG = [
    line for line in ALLTOALL_TEARDOWN if "watchdog thread terminated" not in line
]
#: the py-spy dump, then rank 3's tagged traceback
PYSPY_RANK3_TRACEBACK = PYSPY_BROADCAST + [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "train.py", line 88, in <module>',
    "[rank3]: ValueError: bad shard",
]
#: the py-spy dump, then the elastic agent's SIGKILL exit of local rank 5
PYSPY_AGENT_SIGKILL = PYSPY_BROADCAST + [
    "E0520 10:00:00.000000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
    "local_rank: 5 (pid: 4321) of binary: /usr/bin/python"
]
#: the py-spy dump, then a lone tagged ``RuntimeError`` line (no traceback header, no frames)
PYSPY_LONE_ABORT = PYSPY_BROADCAST + [
    "[rank3]: RuntimeError: NCCL communicator was aborted on rank 3."
]
#: rank 2's PG status with fewer collectives enqueued (1116) than rank 1's (1118)
SIGNAL_RANK2_ENQUEUED_FEWER = [
    line.replace("last enqueued work: 1118", "last enqueued work: 1116")
    if line.startswith("[rank2]")
    else line
    for line in SIGNAL_DUMPING
]
#: the watchdog lines, then rank 3's tagged traceback
SIGNAL_RANK3_TRACEBACK = SIGNAL_DUMPING + [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "src/train/train_sft.py", line 210, in <module>',
    "[rank3]: RuntimeError: shape mismatch: value tensor of shape [1024, 3584] cannot be broadcast to indexing result "
    "of shape [0, 3584]",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say (four to a node where the thread gives no layout)
    "alltoall-teardown-as-pasted": (ALLTOALL_TEARDOWN, None, None, None, None),
    "alltoall-teardown-four-ranks": (ALLTOALL_TEARDOWN, 4, 4, None, None),
    "pyspy-broadcast-as-pasted": (PYSPY_BROADCAST, None, None, None, None),
    "pyspy-broadcast-eight-ranks": (PYSPY_BROADCAST, 8, 8, None, None),
    "signal-dumping-as-pasted": (SIGNAL_DUMPING, None, None, None, None),
    "signal-dumping-four-ranks": (SIGNAL_DUMPING, 4, 4, None, None),
    # contrasts
    "alltoall-own-oom-names-rank2": (ALLTOALL_OWN_OOM, 4, 4, 2, "cuda-oom"),
    "alltoall-rank3-names-none": (ALLTOALL_RANK3, 4, 4, None, None),
    "alltoall-without-watchdog-line-names-none": (
        ALLTOALL_NO_WATCHDOG,
        4,
        4,
        None,
        None,
    ),
    "pyspy-rank3-traceback-names-rank3": (
        PYSPY_RANK3_TRACEBACK,
        8,
        8,
        3,
        "python-exception",
    ),
    "pyspy-agent-sigkill-names-rank5": (PYSPY_AGENT_SIGKILL, 8, 8, 5, "host-oom-kill"),
    "pyspy-lone-tagged-abort-names-none": (PYSPY_LONE_ABORT, 8, 8, None, None),
    "signal-rank2-enqueued-fewer-names-none": (
        SIGNAL_RANK2_ENQUEUED_FEWER,
        4,
        4,
        None,
        None,
    ),
    "signal-rank3-traceback-names-rank3": (
        SIGNAL_RANK3_TRACEBACK,
        4,
        4,
        3,
        "python-exception",
    ),
}
BATCHED = Batched("b286", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_flight_recorder_hang_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _hangs(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_alltoall_teardown_is_an_info_group_hang(tmp_path):
    """Rank 2's teardown of the ``mesh_ulysses`` sub-group reads as an info group hang, laid out or not; without its
    ``watchdog thread terminated`` line the failed/timed-out notices alone read as nothing."""
    assert _hangs(ALLTOALL_TEARDOWN, tmp_path / "a", None) == [
        ("nccl-hang", "info", "group-hang", [])
    ]
    assert _hangs(ALLTOALL_TEARDOWN, tmp_path / "b", 4) == [
        ("nccl-hang", "info", "group-hang", [])
    ]
    assert _hangs(ALLTOALL_NO_WATCHDOG, tmp_path / "c", 4) == []


def test_signal_dumping_reads_by_layout(tmp_path):
    """Ranks 1 and 2 at the same sequence id: with no layout, an info "rank 0 never joined" (the unseen rank 0);
    four to a node, an info hang with no single culprit, also with rank 2 behind in enqueued work."""
    assert _hangs(SIGNAL_DUMPING, tmp_path / "a", None) == [
        ("nccl-hang", "info", "never-joined", [0])
    ]
    assert _hangs(SIGNAL_DUMPING, tmp_path / "b", 4) == [
        ("nccl-hang", "info", "no-single-culprit", [])
    ]
    assert _hangs(SIGNAL_RANK2_ENQUEUED_FEWER, tmp_path / "c", 4) == [
        ("nccl-hang", "info", "no-single-culprit", [])
    ]


def test_pyspy_dump_alone_reads_as_nothing(tmp_path):
    """An unranked py-spy thread dump parked in a collective is no finding at all, laid out or not."""
    assert _hangs(PYSPY_BROADCAST, tmp_path / "a", None) == []
    assert _hangs(PYSPY_BROADCAST, tmp_path / "b", 8) == []
