"""A CUDA call of NCCL's transport set-up failing (``include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'``) names its
rank at warning, confidence medium (``medium_why`` ``nccl-setup-cuda-call``; queries/rank_failure.sql, docs/rules.md "What
a paste cannot prove"): a container's /dev/shm or IPC, the host's P2P or the fabric refuse that call as often as the rank's
GPU fails (the corpus holds five controls of that shape, horovod#1122 among them, to one culprit, pytorch#23534). A CUDA
failure NCCL reports elsewhere (a collective's launch) stays the rank's own, critical. A CUDA call refused as an invalid
argument anywhere else (``low_why`` ``cuda-invalid-argument``: FSDP offload's ``pin_memory``, axolotl#2743, and a compiled
graph's replay, pytorch#192000, both controls; no culprit of the corpus has it) names its rank as a suspect only, info,
confidence low (session 49 said medium): the call's, which every rank makes alike, or the platform's, not the GPU's,
whether or not the paste holds other ranks' lines; a kernel's illegal address stays critical.
"""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 12, 4, 22, 0, tzinfo=dt.timezone.utc)


def _paste(site: str, message: str) -> list[str]:
    """mpirun's tagged output: ranks 0-2 and 4-5 finish NCCL's init, rank 3's transport set-up reports ``site``."""
    host = {r: ("node-a" if r < 3 else "node-b") for r in range(6)}
    done = [f"[1,{r}]<stdout>:{host[r]}:{700 + r}:{720 + r} [{r % 3}] NCCL INFO comm 0x7f10{r}4 rank {r} nranks 6 cudaDev "
            f"{r % 3} nvmlDev {r % 3} - Init COMPLETE" for r in (0, 1, 2, 4, 5)]
    return done + ["[1,3]<stdout>:node-b:703:723 [0] NCCL INFO Ring 00 : 3 -> 0 [send] via NET/Socket/0",
                   f"[1,3]<stdout>:node-b:703:723 [0] {site} NCCL WARN Cuda failure '{message}'"]


CASES = {
    "shm-set-up": ("include/shm.h:42", "invalid argument", "warning", "medium", "nccl-setup-cuda-call"),
    "p2p-set-up": ("transport/p2p.cc:237", "invalid argument", "warning", "medium", "nccl-setup-cuda-call"),
    "transport-layer": ("transport.cc:154", "invalid argument", "warning", "medium", "nccl-setup-cuda-call"),
    "collective-launch": ("enqueue.cc:1085", "an illegal memory access was encountered", "critical", "high", None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_transport_set_up_cuda_failure_is_named_at_medium(tmp_path, name):
    site, message, severity, grade, why = CASES[name]
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(_paste(site, message)))], tmp_path / "b", nproc_per_node=3,
                            world_size=6, job="train", namespace="team-a", now=NOW)
    (f,) = [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]
    assert (f["ranks"], f["cause"], f["severity"], f["confidence"]) == ([3], "cuda-error", severity, grade)
    assert f["evidence"][0].get("medium_why") == why
    assert ("NCCL's report of a CUDA call its transport set-up made" in f["summary"]) == (why is not None)


def _raised(message: str) -> list[str]:
    """Rank 0's traceback ending in ``RuntimeError: CUDA error: <message>``, then torchrun SIGTERMs the other three."""
    agent = "torch/distributed/elastic/multiprocessing/api.py"
    return (['[rank0]: Traceback (most recent call last):', '[rank0]:   File "/app/train.py", line 40, in <module>',
             '[rank0]:     ).pin_memory(device=self.device)', f"[rank0]: RuntimeError: CUDA error: {message}"]
            + [f"W1204 21:22:51.028000 4691 {agent}:897] Sending process {pid} closing signal SIGTERM" for pid in (4893, 4894, 4895)])


@pytest.mark.parametrize("message, lone, severity, grade, low_why, medium_why", [
    ("invalid argument", False, "info", "low", "cuda-invalid-argument", None),
    ("invalid argument", True, "info", "low", "cuda-invalid-argument", None),
    ("an illegal memory access was encountered", False, "critical", "high", None, None),
    ("an illegal memory access was encountered", True, "warning", "medium", None, "lone-paste-kernel-fault"),
])
def test_a_cuda_call_refused_as_an_invalid_argument_names_a_suspect(tmp_path, message, lone, severity, grade, low_why,
                                                                     medium_why):
    """With torchrun's SIGTERMs of the three others or as a paste of rank 0's lines alone."""
    lines = _raised(message)[:4] if lone else _raised(message)
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(lines))], tmp_path / "b", nproc_per_node=4,
                            world_size=4, job="train", namespace="team-a", now=NOW)
    (f,) = [f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure"]
    assert (f["ranks"], f["cause"], f["severity"], f["confidence"]) == ([0], "cuda-error", severity, grade)
    assert (f["evidence"][0].get("low_why"), f["evidence"][0].get("medium_why")) == (low_why, medium_why)
    assert ("a suspect, not a culprit (confidence low)" in f["summary"]) == (low_why is not None)
