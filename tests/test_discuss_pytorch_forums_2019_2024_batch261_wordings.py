"""Forum-style multi-GPU questions of 2019-2024 (real incidents batch 261, family discuss-pytorch-forums-2019-2024; the
forum pages held no stored paste, so GitHub threads of the same shape were taken), pinned as read. Three culprits named
by the launcher alone: LLaMA-33B PPO under accelerate whose local rank 2 is SIGKILLed (-9) while every process loads the
shards, three SIGTERMs after it (hiyouga/LlamaFactory#21: host RAM); a two-process Baichuan LoRA whose local rank 1
aborts (-6) after a checkpoint save (hiyouga/LlamaFactory#192); ``accelerate test`` in Docker whose local rank 1 dies of
SIGBUS (-7), ``stderr:``-prefixed (hiyouga/LlamaFactory#752). Three controls: NCCL's ``Bootstrap : no socket interface
found`` on device [0] under ``NCCL_SOCKET_IFNAME=eth0`` with host networking (pytorch/pytorch#29482); device [2] of one
container refused by the peer container's bridge address 172.17.0.3 (NVIDIA/nccl#331); Mesh R-CNN's NaN loss_dict on
``cuda:1``, the optimisation diverging (facebookresearch/meshrcnn#36). Scored 6/6 both ways as collected; no rule
changed (measure only). Contrasts: the launcher's ``failed`` line removed names no one, its exit code or local rank
changed changes the cause or the rank; a launcher line or a ``[rankN]:`` tag added to a control names that rank.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 15, 0, tzinfo=dt.timezone.utc)

PPO_SIGKILL = corpus_lines("LlamaFactory-21-")
SAVE_SIGABRT = corpus_lines("LlamaFactory-192-")
DOCKER_SIGBUS = corpus_lines("LlamaFactory-752-")
SOCKET_IFNAME = corpus_lines("pytorch-29482-")
BRIDGE_PEER = corpus_lines("nccl-331-")
LOSS_NAN = corpus_lines("meshrcnn-36-")

PPO_FAILED = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 (pid: 517203) of "
              "binary: /root/miniconda3/envs/xray/bin/python")
assert PPO_FAILED in PPO_SIGKILL
assert any("failed (exitcode: -6) local_rank: 1 (pid: 137165)" in line for line in SAVE_SIGABRT)
assert any("failed (exitcode: -7) local_rank: 1 (pid: 6263)" in line for line in DOCKER_SIGBUS)

#: the PPO paste without the agent's line naming the killed worker (three SIGTERMs left)
PPO_NO_FAILED = [line for line in PPO_SIGKILL if line != PPO_FAILED]
#: the same worker exiting with status 1 instead of SIGKILL
PPO_EXIT1 = [line.replace("exitcode: -9", "exitcode: 1") for line in PPO_SIGKILL]
#: the abort reported for local rank 0, the SIGTERMed worker being the other one
SAVE_RANK0 = [line.replace("local_rank: 1 (pid: 137165)", "local_rank: 0 (pid: 137165)")
              .replace("process 137164", "process 137166") for line in SAVE_SIGABRT]
#: the SIGBUS reported for local rank 2 (pid 6264), 6263 SIGTERMed instead
DOCKER_RANK2 = [line.replace("local_rank: 1 (pid: 6263)", "local_rank: 2 (pid: 6264)")
                .replace("process 6264", "process 6263") for line in DOCKER_SIGBUS]
#: the same worker killed by SIGKILL instead of SIGBUS
DOCKER_SIGKILL = [line.replace("exitcode: -7", "exitcode: -9") for line in DOCKER_SIGBUS]
#: the torchrun agent's failure line for the device-0 worker appended to the NCCL bootstrap warning
SOCKET_WITH_AGENT = SOCKET_IFNAME + [
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 22841) of binary: "
    "/usr/bin/python"]
#: the refused connection followed by rank 2's own DistBackendError, tagged as torch prints a rank's exception
BRIDGE_RANK2_TAGGED = BRIDGE_PEER + [
    "[rank2]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
    "1207, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.4.8"]
#: the NaN loss_dict printed on lines rank 1 tags
LOSS_NAN_RANK1 = ["[rank1]: " + line for line in LOSS_NAN]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as read
    "ppo-sigkill-as-pasted": (PPO_SIGKILL, None, None, 2, "host-oom-kill"),
    "ppo-sigkill-one-node-of-4": (PPO_SIGKILL, 4, 4, 2, "host-oom-kill"),
    "save-sigabrt-as-pasted": (SAVE_SIGABRT, None, None, 1, "abort"),
    "save-sigabrt-two-procs": (SAVE_SIGABRT, 2, 2, 1, "abort"),
    "docker-sigbus-as-pasted": (DOCKER_SIGBUS, None, None, 1, "sigbus"),
    "docker-sigbus-three-procs": (DOCKER_SIGBUS, 3, 3, 1, "sigbus"),
    # controls, as pasted and laid out as the threads say
    "socket-ifname-as-pasted": (SOCKET_IFNAME, None, None, None, None),
    "socket-ifname-nodes-of-4": (SOCKET_IFNAME, 4, 8, None, None),
    "bridge-peer-as-pasted": (BRIDGE_PEER, None, None, None, None),
    "bridge-peer-nodes-of-4": (BRIDGE_PEER, 4, 8, None, None),
    "loss-nan-as-pasted": (LOSS_NAN, None, None, None, None),
    "loss-nan-one-node-of-8": (LOSS_NAN, 8, 8, None, None),
    # contrasts
    "ppo-without-failed-line-names-none": (PPO_NO_FAILED, 4, 4, None, None),
    "ppo-exit1-names-rank2-python-exception": (PPO_EXIT1, 4, 4, 2, "python-exception"),
    "save-rank0-names-rank0": (SAVE_RANK0, 2, 2, 0, "abort"),
    "docker-rank2-names-rank2": (DOCKER_RANK2, 3, 3, 2, "sigbus"),
    "docker-sigkill-names-host-oom": (DOCKER_SIGKILL, 3, 3, 1, "host-oom-kill"),
    "socket-with-agent-names-rank0": (SOCKET_WITH_AGENT, 4, 4, 0, "python-exception"),
    "bridge-rank2-tagged-names-rank2": (BRIDGE_RANK2_TAGGED, None, None, 2, "nccl-error"),
    "loss-nan-rank1-tagged-names-rank1": (LOSS_NAN_RANK1, None, None, 1, "python-exception"),
}
BATCHED = Batched("b261", list(CASES))
_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_forum_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize("lines, nproc, rank, cause, severity, torn", [
    pytest.param(PPO_SIGKILL, 4, 2, "host-oom-kill", "critical", 3, id="llamafactory-21-rank2"),
    pytest.param(SAVE_SIGABRT, 2, 1, "abort", "warning", 1, id="llamafactory-192-rank1"),
    pytest.param(DOCKER_SIGBUS, 3, 1, "sigbus", "critical", 2, id="llamafactory-752-rank1"),
])
def test_launcher_signal_names_the_worker_and_its_victims(lines, nproc, rank, cause, severity, torn, tmp_path):
    """The agent's one ``failed (exitcode: -N) local_rank: R`` after its SIGTERMs: a single finding naming rank R with
    the signal's cause, at its severity, the SIGTERMed workers counted as torn down after it."""
    findings = pasted_findings(lines, tmp_path, nproc, nproc, NOW)
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings if f["ranks"]]
    assert got == [("rank-failure", severity, cause, [rank])], got
    summary = [f for f in findings if f["ranks"]][0]["summary"]
    assert f"{torn} other rank(s)/processes were torn down after it" in summary, summary


def test_sigkill_without_sigterm_is_the_host_oom_killer(tmp_path):
    """-9 that the launcher did not send: the host OOM killer, said in the summary."""
    findings = pasted_findings(PPO_SIGKILL, tmp_path, 4, 4, NOW)
    (oom,) = [f for f in findings if f["cause"] == "host-oom-kill"]
    assert "without a SIGTERM from the launcher first" in oom["summary"], oom["summary"]


@pytest.mark.parametrize("lines", [pytest.param(SOCKET_IFNAME, id="pytorch-29482"),
                                   pytest.param(BRIDGE_PEER, id="nccl-331")])
def test_lone_device_nccl_bootstrap_warning_is_not_blamed(lines, tmp_path):
    """One device's NCCL bootstrap warning (no interface / connection refused): nothing at warning or critical."""
    findings = pasted_findings(lines, tmp_path, 4, 8, NOW)
    assert not [f for f in findings if f["severity"] in ("critical", "warning")], findings


def test_nan_loss_on_cuda1_names_no_rank(tmp_path):
    """The NaN loss_dict on ``cuda:1``: a Python exception whose line names no rank (a device ordinal is not a rank)."""
    findings = pasted_findings(LOSS_NAN, tmp_path, 8, 8, NOW)
    got = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    assert got == [("rank-failure", "warning", "python-exception", [])], got
    assert "names no rank" in findings[0]["summary"], findings[0]["summary"]
