"""Kubernetes training jobs' pod logs (real incidents batch 274), pinned as read.
Five controls, collected blind; one was read with a culprit as collected (NOT_YET, batch 274) and is pinned here as read
so a change of reading is seen: the DLRover nanoGPT example's one pod (intelligent-machine-learning/dlrover#533:
``rank 0 is initialized local_rank = 0`` and a bare ``AssertionError`` under ``assert gradient_accumulation_steps %
world_size == 0``, the example's configuration that every rank evaluates alike) named rank 0 (python-exception); since
session 64 (an assert of the settings against the world size is common mode) it is a warning of no rank. The other four name no one: the DLRover job master's node events (dlrover#1690: pod ``worker-30-30`` ``Running to Failed``
with ``"exit reason": "Deleted"`` during a large-scale failure, ``rank_index:13`` pending relaunch), a Katib-trial
traceback relayed by the metrics collector (kubeflow/trainer#2181: ``I0724 ... 83 main.go:143]`` on every line, cut
before its exception), the rank-0 pod's agent ``RendezvousTimeoutError`` of a torchx job on Kubernetes
(pytorch/pytorch#80772: a DNS race), and a log collector's JSON lines ``{"Timestamp":...,"Body":...}`` interleaving two
processes' argument-parsing frames (hiyouga/LlamaFactory#5505). Scored 4/5 both ways as collected; no rule changed
(measure only). Contrasts: without the ``rank 0 is initialized`` line the assertion is a failure of no rank, under
``[rank1]:`` it named rank 1 (no one since session 64: rank 1's copy of the same statement); the Katib-relayed traceback with its exception line is a failure of no rank; the agent's
``failed (exitcode: 1) local_rank: 0`` on one 8-process node names rank 0, while a ``[rank3]:``-tagged copy of the
agent traceback is only an info suspect; the collector's JSON ``Body`` holding an exception line was not read at all
as collected, and since session 50 (OpenTelemetry's records read as an export) reads as the same lines unwrapped, a
failure of no rank; and a ``[rank1]:`` tag inside ``Body`` names rank 1; a DLRover
``"exit reason": "OOMKilled"`` names no one either (the master's node events are not read). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 23, 55, tzinfo=dt.timezone.utc)

MASTER_DELETED = corpus_lines("dlrover-1690-")
NANOGPT_ASSERT = corpus_lines("dlrover-533-")
KATIB_RELAYED = corpus_lines("trainer-2181-")
RDZV_TIMEOUT = corpus_lines("pytorch-80772-")
COLLECTOR_JSON = corpus_lines("LlamaFactory-5505-")

#: the master's node event with the pod's exit reason ``OOMKilled`` in place of ``Deleted``
MASTER_OOMKILLED = [
    line.replace('"exit reason": "Deleted"', '"exit reason": "OOMKilled"')
    for line in MASTER_DELETED
]
#: the assertion without the pod's ``rank 0 is initialized`` line
NANOGPT_NO_RANK_LINE = NANOGPT_ASSERT[1:]
#: the same pod's line renumbered to rank 1
NANOGPT_RANK_1_LINE = [
    line.replace("rank 0 is", "rank 1 is") for line in NANOGPT_ASSERT
]
#: the traceback as a ``[rank1]:``-tagged rank prints it
NANOGPT_RANK_1_TAGGED = ["[rank1]: " + line for line in NANOGPT_ASSERT[1:]]
#: the collector's glog header of the relayed lines
KATIB_HEADER = KATIB_RELAYED[-1].split("]")[0] + "]"
#: the relayed traceback with its exception line, relayed alike
KATIB_WITH_EXCEPTION = KATIB_RELAYED + [
    KATIB_HEADER + "   ValueError: could not convert string to float: '3.3e-05'"
]
#: the agent's report of its local rank 0
AGENT_FAILED = (
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 77) of "
    "binary: /opt/conda/bin/python"
)
RDZV_WITH_AGENT = RDZV_TIMEOUT + [AGENT_FAILED]
#: the agent traceback under a rank tag
RDZV_RANK_3_TAGGED = ["[rank3]: " + line for line in RDZV_TIMEOUT]
#: the exception the argument parser raised, as the collector would wrap it
_EXCEPTION = "TypeError: get_wsd_schedule() missing 1 required positional argument: 'num_stable_steps'"
COLLECTOR_WITH_EXCEPTION = COLLECTOR_JSON + [
    json.dumps(
        {"Timestamp": "2024-09-21T10:34:28.075Z", "Body": _EXCEPTION},
        separators=(",", ":"),
    )
]
#: the same frames unwrapped from the collector's ``Body``
COLLECTOR_UNWRAPPED = (
    ["Traceback (most recent call last):"]
    + [json.loads(line)["Body"] for line in COLLECTOR_JSON]
    + [_EXCEPTION]
)
#: a ``[rank1]:``-tagged exception inside ``Body``
COLLECTOR_RANK_1_BODY = COLLECTOR_JSON + [
    '{"Timestamp":"2024-09-21T10:34:28.075Z","Body":"[rank1]: TypeError: boom"}'
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "master-deleted-as-pasted": (MASTER_DELETED, None, None, None, None),
    # since session 64 an assert of the settings against the world size is every rank's (common mode): no one
    "nanogpt-assert-as-pasted": (NANOGPT_ASSERT, None, None, None, None),
    "nanogpt-assert-two-pods": (NANOGPT_ASSERT, 1, 2, None, None),
    "katib-relayed-as-pasted": (KATIB_RELAYED, None, None, None, None),
    "rdzv-timeout-as-pasted": (RDZV_TIMEOUT, None, None, None, None),
    "rdzv-timeout-eight-pods": (RDZV_TIMEOUT, 1, 8, None, None),
    "collector-json-as-pasted": (COLLECTOR_JSON, None, None, None, None),
    "collector-json-two-processes": (COLLECTOR_JSON, 2, 2, None, None),
    # contrasts
    "master-oomkilled-names-none": (MASTER_OOMKILLED, None, None, None, None),
    "nanogpt-without-rank-line-names-none": (
        NANOGPT_NO_RANK_LINE,
        None,
        None,
        None,
        None,
    ),
    "nanogpt-rank-1-line-names-none": (NANOGPT_RANK_1_LINE, None, None, None, None),
    "nanogpt-rank-1-tagged-names-none": (NANOGPT_RANK_1_TAGGED, 1, 2, None, None),  # rank 1's copy of it: alike
    "katib-with-exception-names-none": (KATIB_WITH_EXCEPTION, None, None, None, None),
    "rdzv-agent-eight-pods-names-none": (RDZV_WITH_AGENT, 1, 8, None, None),
    "rdzv-agent-one-node-names-rank0": (RDZV_WITH_AGENT, 8, 8, 0, "python-exception"),
    "rdzv-rank-3-tagged-names-none": (RDZV_RANK_3_TAGGED, 1, 8, None, None),
    "collector-exception-names-none": (COLLECTOR_WITH_EXCEPTION, 2, 2, None, None),
    "collector-unwrapped-names-none": (COLLECTOR_UNWRAPPED, 2, 2, None, None),
    "collector-rank-1-body-names-rank1": (
        COLLECTOR_RANK_1_BODY,
        2,
        2,
        1,
        "python-exception",
    ),
}
BATCHED = Batched("b274", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_k8s_pod_log_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[dict]:
    from k10s_forensics.analyze.runner import analyze

    return analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in _findings(lines, folder, nproc, world)
        if f["rule"] == "rank-failure"
    ]


def test_dlrover_master_node_events_are_not_read(tmp_path):
    """The DLRover master's ``status_update`` / ``relaunch_worker`` / pod-scaler lines give no rank-failure at all,
    whether the pod's exit reason is ``Deleted`` or ``OOMKilled``."""
    assert _failures(MASTER_DELETED, tmp_path / "a", None, None) == []
    assert _failures(MASTER_OOMKILLED, tmp_path / "b", None, None) == []


def test_nanogpt_assertion_without_rank_line_is_a_failure_of_no_rank(tmp_path):
    """Without the pod's ``rank 0 is initialized`` line (or with it renumbered to rank 1), the bare ``AssertionError``
    is still read as a Python failure (warning), but of no rank."""
    assert _failures(NANOGPT_NO_RANK_LINE, tmp_path / "a", None, None) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(NANOGPT_RANK_1_LINE, tmp_path / "b", None, None) == [
        ("warning", "python-exception", [])
    ]


def test_katib_relayed_traceback_cut_before_exception_gives_nothing(tmp_path):
    """The glog-prefixed frames with no exception line give no rank-failure; with the exception line relayed alike, a
    warning python-exception of no rank."""
    assert _failures(KATIB_RELAYED, tmp_path / "a", None, None) == []
    assert _failures(KATIB_WITH_EXCEPTION, tmp_path / "b", None, None) == [
        ("warning", "python-exception", [])
    ]


def test_rank_tagged_agent_traceback_is_an_info_suspect(tmp_path):
    """The agent's ``RendezvousTimeoutError`` traceback under ``[rank3]:`` is read as rank 3's traceback cut before its
    exception: an info suspect, nothing louder."""
    assert_info_suspect(_findings(RDZV_RANK_3_TAGGED, tmp_path, 1, 8), 3)


def test_collector_json_body_exception_is_read_as_unwrapped(tmp_path):
    """A log collector's ``{"Timestamp":...,"Body":...}`` line holding the exception (OpenTelemetry's log data model,
    read since session 50; as collected it gave no rank-failure) reads as the same frames unwrapped: a warning
    python-exception of no rank."""
    assert _failures(COLLECTOR_WITH_EXCEPTION, tmp_path / "a", 2, 2) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(COLLECTOR_UNWRAPPED, tmp_path / "b", 2, 2) == [
        ("warning", "python-exception", [])
    ]
