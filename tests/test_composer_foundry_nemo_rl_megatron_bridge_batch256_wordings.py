"""Megatron-LM / Megatron-Bridge / NeMo 2.0 / torchtitan training failures (real incidents batch 256), pinned as read.
Three controls that name no one, and one culprit case the log cannot name (NOT_YET): torchtitan rank 0's ``Fatal Python
error: none_dealloc: deallocating None`` seen through the ``LOG_RANK=0`` filter (pytorch/torchtitan#1066: a ``None``
refcount leak of compiled code on all 8 ranks, read as nothing); Megatron-Bridge's MockGPTDataset index build ending in
UCX's ``Caught signal 11`` on a line that names no rank (NVIDIA-NeMo/Megatron-Bridge#827: the release-candidate
container, read as nothing); Megatron-LM's pipeline ``recv_forward`` tracebacks and ``DistBackendError ... unhandled
system error`` with ``Failed to execute operation Connect from rank 3`` (NVIDIA/Megatron-LM#792: the distributed
optimizer with an odd data-parallel size, read as an nccl-error naming no rank); CloudAI's three ``Unexpected error:
Rank 40/42/43, node cw-dfw-h100-002-295-026 ... found NaN in local grad norm`` (NVIDIA/cloudai#486: the node the
author suspects; no line is a rank's own, so nothing is read). Scored 3/4 both ways as collected; no rule changed
(measure only). Contrasts: the elastic agent's ``failed (exitcode: -6) local_rank: 0`` after the fatal error names rank
0 (abort); its ``exitcode: -11`` for local rank 3 after UCX's SIGSEGV names rank 3 (segfault); the NCCL error on
``[rank3]:``-tagged lines names rank 3; rank 40's own traceback ending in a plain ``RuntimeError`` names rank 40, while
the same traceback ending in Megatron's NaN-check message still names no one (a check every rank runs).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 12, 40, tzinfo=dt.timezone.utc)

NONE_DEALLOC = corpus_lines("torchtitan-1066-")
UCX_SEGV = corpus_lines("Megatron-Bridge-827-")
ODD_DP_RECV = corpus_lines("Megatron-LM-792-")
NODE_NAN = corpus_lines("cloudai-486-")

#: the elastic agent's report of the aborted worker, after rank 0's fatal error
AGENT_ABORT_RANK0 = NONE_DEALLOC + [
    "E0407 08:16:20.100000 2251900 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) "
    "local_rank: 0 (pid: 2252339) of binary: /usr/bin/python3",
]
#: the elastic agent's report of the segfaulted worker, local rank 3, after UCX's handler
AGENT_SEGV_RANK3 = UCX_SEGV + [
    "E0930 10:00:00.000000 1016800 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -11) "
    "local_rank: 3 (pid: 1016852) of binary: /usr/bin/python",
]
#: the same tracebacks and NCCL error on lines rank 3 tags itself, as torch prints a rank's exception
RANK3_TAGGED = ["[rank3]: " + line for line in ODD_DP_RECV]
#: rank 40's own traceback; ``_rank40(msg)`` ends it in ``RuntimeError: msg``
_NAN_MESSAGE = NODE_NAN[0].split("Unexpected error: ", 1)[1]


def _rank40(message: str) -> list[str]:
    return [
        "[rank40]: Traceback (most recent call last):",
        '[rank40]:   File "/opt/NeMo/nemo/collections/llm/api.py", line 150, in pretrain',
        f"[rank40]: RuntimeError: {message}",
    ]


RANK40_PLAIN = _rank40("CUDA driver returned an invalid gradient buffer")
RANK40_NAN = _rank40(_NAN_MESSAGE)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls and the NOT_YET culprit case, as pasted and laid out as the threads say
    "none-dealloc-as-pasted": (NONE_DEALLOC, None, None, None, None),
    "none-dealloc-one-node-of-8": (NONE_DEALLOC, 8, 8, None, None),
    "ucx-segv-as-pasted": (UCX_SEGV, None, None, None, None),
    "odd-dp-recv-as-pasted": (ODD_DP_RECV, None, None, None, None),
    "node-nan-as-pasted": (NODE_NAN, None, None, None, None),
    "node-nan-6-nodes-of-8": (NODE_NAN, 8, 48, None, None),
    # contrasts
    "agent-abort-names-rank0": (AGENT_ABORT_RANK0, 8, 8, 0, "abort"),
    "agent-segv-names-rank3": (AGENT_SEGV_RANK3, None, None, 3, "segfault"),
    "rank3-tagged-names-rank3": (RANK3_TAGGED, None, None, 3, "nccl-error"),
    "rank40-plain-names-rank40": (RANK40_PLAIN, None, None, 40, "python-exception"),
    "rank40-nan-check-names-none": (RANK40_NAN, None, None, None, None),
}
BATCHED = Batched("b256", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_batch256_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _rank_failures(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]


def test_odd_dp_recv_is_an_nccl_error_of_no_rank(tmp_path):
    """Megatron's untagged pipeline receives all ending in the same NCCL system error: an nccl-error warning naming no
    rank; ``from rank 3`` inside NCCL's proxy message is not read as rank 3's own failure."""
    got = _rank_failures(pasted_findings(ODD_DP_RECV, tmp_path, None, None, NOW))
    assert got == [("warning", "nccl-error", [])], got


def test_silent_logs_find_nothing(tmp_path):
    """Rank 0's filtered fatal error, UCX's untagged SIGSEGV and CloudAI's prefix-less NaN lines: no finding at all
    (no rank-failure of an unnamed rank either), which is what the log alone supports."""
    for i, lines in enumerate((NONE_DEALLOC, UCX_SEGV, NODE_NAN)):
        findings = pasted_findings(lines, tmp_path / str(i), None, None, NOW)
        assert findings == [], [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_nan_check_on_a_tagged_rank_is_read_as_every_ranks_check(tmp_path):
    """Rank 40's traceback ending in Megatron's NaN-check message is a python-exception warning naming no rank, said to
    fail every process alike; the same traceback ending in a plain error names rank 40."""
    nan = pasted_findings(RANK40_NAN, tmp_path / "nan", None, None, NOW)
    assert _rank_failures(nan) == [("warning", "python-exception", [])], _rank_failures(nan)
    assert "every process runs the same" in nan[0]["summary"], nan[0]["summary"]
    plain = pasted_findings(RANK40_PLAIN, tmp_path / "plain", None, None, NOW)
    assert _rank_failures(plain) == [("warning", "python-exception", [40])], _rank_failures(plain)
