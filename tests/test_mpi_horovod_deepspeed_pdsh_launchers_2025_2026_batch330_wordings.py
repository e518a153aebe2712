"""Multi-node jobs started by launchers other than torchrun (real incidents batch 330), pinned as read.
Three controls, collected blind, all read right as collected (no NOT_YET): the ``deepspeed`` launcher's passwordless-ssh
pre-check failing before pdsh runs, once with runner.py's ``RuntimeError: Using hostfile at ... but
host=gadi-gpu-v100-0011 was not reachable via ssh`` (hpcac/2023-APAC-HPC-AI#1) and once cut after
``subprocess.CalledProcessError: Command 'ssh -o PasswordAuthentication=no 192.168.3.100 hostname' returned non-zero
exit status 255.`` (deepspeedai/DeepSpeed#4907), both read as an ``exit-255`` failure (warning) of no rank; and Open MPI
5's OFI MTL aborting the job on one host (``[neutron-nvidia:820212] ... The Open MPI OFI MTL is aborting the MPI job``,
a libfabric assertion, Open MPI's ``Signal: Aborted (6)`` banner; NVIDIA/nccl-tests#295: the MPI/libfabric transport
broken for every process, ``cpi`` fails alike), read as an ``abort`` (warning) of no rank. Scored 3/3 both ways; no rule
changed (measure only). Contrasts: runner.py's ``RuntimeError`` alone is a python-exception of no rank; the pre-check
block without its ``CalledProcessError`` line is no failure at all; a host-prefixed ``[rank3]`` CUDA OOM after it names
rank 3 (cuda-oom); mpirun's ``process rank 1 with PID 820212 on node neutron-nvidia exited on signal 6`` alone names
rank 1 (abort; signal 9: host-oom-kill) — but after the same process's Open MPI signal banner (same host, same PID) it
names no one, and so does mpirun's ``Process name: [[19430,1],1]``: the unranked banner's abort is kept, the rank of the
launcher's line is not joined to it by the PID. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

SSH_UNREACHABLE = corpus_lines("2023-APAC-HPC-AI-1-")
HOSTFILE_SSH_255 = corpus_lines("DeepSpeed-4907-")
OFI_MTL_ABORT = corpus_lines("nccl-tests-295-")

#: runner.py's closing ``RuntimeError ... was not reachable via ssh`` alone, without the ``CalledProcessError`` traceback
SSH_RUNTIME_ONLY = SSH_UNREACHABLE[-1:]
#: the launcher's pre-check traceback without its ``CalledProcessError ... exit status 255`` line
HOSTFILE_NO_ERROR = HOSTFILE_SSH_255[:-1]
#: the pre-check line, then a pdsh-prefixed ``[rank3]`` traceback ending in a CUDA OOM (rank 3 on the second host)
HOSTFILE_THEN_RANK3_OOM = HOSTFILE_SSH_255[:1] + [
    "192.168.3.101: [rank3]: Traceback (most recent call last):",
    '192.168.3.101: [rank3]:   File "cifar10_deepspeed.py", line 300, in <module>',
    "192.168.3.101: [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total "
    "capacity of 23.69 GiB of which 10.00 MiB is free.",
]
#: Open MPI's closing words naming the aborted process by rank, PID and host
MPIRUN_SIGNAL_6 = [
    "Primary job  terminated normally, but 1 process returned",
    "a non-zero exit code. Per user-direction, the job has been aborted.",
    "mpirun noticed that process rank 1 with PID 820212 on node neutron-nvidia exited on signal 6 (Aborted).",
]
#: the same with the process killed (signal 9)
MPIRUN_SIGNAL_9 = MPIRUN_SIGNAL_6[:2] + [
    MPIRUN_SIGNAL_6[2].replace("signal 6 (Aborted)", "signal 9 (Killed)")
]
#: the OFI MTL abort and its banner, then mpirun's line for the same host and PID
OFI_THEN_MPIRUN_RANK1 = OFI_MTL_ABORT + MPIRUN_SIGNAL_6
#: the OFI MTL abort and its banner, then mpirun's first-process report (``Process name: [[19430,1],1]``)
OFI_THEN_FIRST_PROCESS = OFI_MTL_ABORT + [
    "mpirun detected that one or more processes exited with non-zero status, thus causing",
    "the job to be terminated. The first process to do so was:",
    "",
    "  Process name: [[19430,1],1]",
    "  Exit code:    3",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ssh-unreachable-as-pasted": (SSH_UNREACHABLE, None, None, None, None),
    "hostfile-ssh-255-as-pasted": (HOSTFILE_SSH_255, None, None, None, None),
    "hostfile-ssh-255-two-by-two": (HOSTFILE_SSH_255, 2, 4, None, None),
    "ofi-mtl-abort-as-pasted": (OFI_MTL_ABORT, None, None, None, None),
    "ofi-mtl-abort-one-per-node": (OFI_MTL_ABORT, 1, 2, None, None),
    # contrasts
    "ssh-runtime-error-only-names-none": (SSH_RUNTIME_ONLY, None, None, None, None),
    "hostfile-without-error-names-none": (HOSTFILE_NO_ERROR, 2, 4, None, None),
    "hostfile-then-rank3-oom-names-rank3": (
        HOSTFILE_THEN_RANK3_OOM,
        2,
        4,
        3,
        "cuda-oom",
    ),
    "mpirun-signal-6-alone-names-rank1": (MPIRUN_SIGNAL_6, 1, 2, 1, "abort"),
    "mpirun-signal-9-alone-names-rank1": (MPIRUN_SIGNAL_9, 1, 2, 1, "host-oom-kill"),
    # the banner's abort wins over the launcher's rank for the same PID: no one named (today's reading)
    "ofi-abort-then-mpirun-rank1-names-none": (OFI_THEN_MPIRUN_RANK1, 1, 2, None, None),
    "ofi-abort-then-first-process-names-none": (
        OFI_THEN_FIRST_PROCESS,
        1,
        2,
        None,
        None,
    ),
}
BATCHED = Batched("b330", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_launcher_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_ssh_pre_check_is_an_exit_255_of_no_rank(tmp_path):
    """The deepspeed launcher's ssh pre-check: ``CalledProcessError ... exit status 255`` reads as an exit-255 failure
    (warning) of no rank, with runner.py's RuntimeError after it or cut before it; the RuntimeError alone is a
    python-exception of no rank, and the traceback without the CalledProcessError line no failure at all."""
    exit_255 = [("rank-failure", "warning", "exit-255", [])]
    assert _failures(SSH_UNREACHABLE, tmp_path / "a", None, None) == exit_255
    assert _failures(HOSTFILE_SSH_255, tmp_path / "b", 2, 4) == exit_255
    assert _failures(SSH_RUNTIME_ONLY, tmp_path / "c", None, None) == [
        ("rank-failure", "warning", "python-exception", [])
    ]
    assert _failures(HOSTFILE_NO_ERROR, tmp_path / "d", 2, 4) == []


def test_ofi_mtl_abort_is_an_abort_of_no_rank(tmp_path):
    """Open MPI's OFI MTL exit and its ``Signal: Aborted (6)`` banner read as an abort (warning) of no rank; mpirun's
    own line naming rank 1 by the banner's host and PID does not move it to rank 1, though alone it names rank 1."""
    abort = [("rank-failure", "warning", "abort", [])]
    assert _failures(OFI_MTL_ABORT, tmp_path / "a", 1, 2) == abort
    assert _failures(OFI_THEN_MPIRUN_RANK1, tmp_path / "b", 1, 2) == abort
    assert _failures(MPIRUN_SIGNAL_6, tmp_path / "c", 1, 2) == [
        ("rank-failure", "warning", "abort", [1])
    ]
