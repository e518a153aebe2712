"""Pod logs of training jobs run by Kubernetes operators in 2025-2026 (real incidents batch 234), pinned as read.
Five controls that name no one, as pasted and laid out by their own nproc/world: a PyTorchJob worker pod's NCCL
tail where rank 5 only reports ``remote process exited or there was a network error`` / a broken pipe to
10.119.24.53 (hiyouga/LlamaFactory#6849: open, no peer named); a Trainer v2 ``CustomTrainer`` TrainJob whose pods
time out connecting to the TCPStore (kubeflow/sdk#142: a bare ``torchrun`` every pod shares); verl's ``TaskRunner``
actor dying under Ray in Kubernetes with Ray's generic ``K8s pod memory limits`` hint (AgentR1/Agent-R1#33); a
PAI-DLC master-0 pod's torchrun agent sending SIGTERM to pids 73-76 and 78 only, so three of the eight workers were
already gone (shihao1895/MemoryVLA#20: SIGKILLed together, the pod's memory); one ``NET/IB: Got completion ...
status=12`` warning of a 512-GPU job's master-0 device 3 (scitix/sichek#44: a link fault). Scored 5/5 both ways as
collected; no rule changed (measure only).
Contrasts: rank 5's own CUDA error in place of the remote error names rank 5; a peer's ``[rank1]:`` OOM ahead of the
tail names rank 1; a ``[rank1]:`` traceback after the socket timeout names rank 1; the dead actor as verl's
``WorkerDict_0:3`` names rank 3; the fan-out missing only pid 71, closed by the agent's ``failed (exitcode: -9)
local_rank: 0`` line, names rank 0 (host OOM); a ``[rank3]:`` ECC error after the IB warning names rank 3.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 0, 30, tzinfo=dt.timezone.utc)

REMOTE_PIPE = corpus_lines("LlamaFactory-6849-")
STORE_TIMEOUT = corpus_lines("kubeflow-sdk-142-")
TASKRUNNER = corpus_lines("Agent-R1-33-")
#: the SIGTERM fan-out alone (shihao1895/MemoryVLA#20, corpus batch 3: its excerpt less the agent's -9 line)
FANOUT = corpus_lines("memoryvla-20-")[:6]
IB_STATUS12 = corpus_lines("sichek-44-")

POD = "[dlc1mtq58q0821ib-master-0]"
BINARY = "/mnt/data/miniconda3/envs/memvla/bin/python3.10"

#: rank 5's watchdog failing on its own CUDA error instead of a remote peer's exit
RANK5_OWN_ERROR = REMOTE_PIPE[:6] + [
    "[rank5]:[E207 19:37:09.983600771 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 5] Process "
    "group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered",
] + REMOTE_PIPE[-1:]
#: a peer's own OOM printed ahead of rank 5's remote-error tail
PEER_OOM_FIRST = [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
    "79.10 GiB of which 1.02 GiB is free.",
] + REMOTE_PIPE
#: one pod's own traceback after the store timeout
RANK1_TRACEBACK = STORE_TIMEOUT + [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "/workspace/train.py", line 12, in <module>',
    "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered",  # (session 57: no kernel image is every rank's)
]
#: the dead actor as one of verl's worker-group ranks (``<prefix>WorkerDict_<pg>:<rank>``) instead of the TaskRunner
WORKERDICT_3 = [line.replace("TaskRunner", "create_colocated_worker_cls.<locals>.WorkerDict") for line in TASKRUNNER]
WORKERDICT_3 = WORKERDICT_3[:9] + ["        name: ISzCxrWorkerDict_0:3"] + WORKERDICT_3[9:]


def _sigterm(pid: int, stamp: str) -> str:
    return FANOUT[1].replace(" 73 ", f" {pid} ").replace("35,966", stamp)


#: only pid 71 missing from the fan-out, closed by the agent's usual failure line for local rank 0
LONE_KILL = FANOUT[:1] + [_sigterm(pid, f"35,96{i}") for i, pid in enumerate((72, 73, 74, 75, 76, 77, 78))] + [
    f"{POD} [2026-03-30 19:24:42,731] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
    f"local_rank: 0 (pid: 71) of binary: {BINARY}",
]
#: a rank's own ECC error after the link warning
RANK3_ECC = IB_STATUS12 + ["[rank3]: RuntimeError: CUDA error: uncorrectable ECC error encountered"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "remote-pipe-as-pasted": (REMOTE_PIPE, None, None, None, None),
    "remote-pipe-two-pods-of-4": (REMOTE_PIPE, 4, 8, None, None),
    "store-timeout-as-pasted": (STORE_TIMEOUT, None, None, None, None),
    "taskrunner-as-pasted": (TASKRUNNER, None, None, None, None),
    "fanout-as-pasted": (FANOUT, None, None, None, None),
    "fanout-one-pod-of-8": (FANOUT, 8, 8, None, None),
    "ib-status12-as-pasted": (IB_STATUS12, None, None, None, None),
    # contrasts
    "rank5-own-error-names-rank5": (RANK5_OWN_ERROR, None, None, 5, "cuda-error"),
    "peer-oom-first-names-rank1": (PEER_OOM_FIRST, 4, 8, 1, "cuda-oom"),
    "rank1-traceback-names-rank1": (RANK1_TRACEBACK, None, None, 1, "cuda-error"),
    "workerdict-0-3-names-rank3": (WORKERDICT_3, None, None, 3, None),
    "lone-kill-names-rank0": (LONE_KILL, 8, 8, 0, "host-oom-kill"),
    "rank3-ecc-names-rank3": (RANK3_ECC, None, None, 3, "cuda-error"),
}
BATCHED = Batched("b234", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_k8s_operator_pod_log_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_fanout_survivors_are_never_blamed(tmp_path):
    """The pids the agent sends SIGTERM to are the survivors: no finding of any severity names a rank for them."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(FANOUT, tmp_path, 8, NOW, world=8))["findings"]
    assert all(not f.get("ranks") for f in findings), [(f["rule"], f["ranks"]) for f in findings]


def test_remote_error_is_not_rank5s_own_failure(tmp_path):
    """Rank 5's ``ncclRemoteError`` tail, alone in the paste, is not read as rank 5 failing: no finding names rank 5."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(REMOTE_PIPE, tmp_path, 4, NOW, world=8))["findings"]
    assert all(5 not in (f.get("ranks") or []) for f in findings), [(f["rule"], f["ranks"]) for f in findings]
