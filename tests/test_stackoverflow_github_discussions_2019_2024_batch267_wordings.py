"""Multi-GPU failures from public Q&A-style threads, 2019-2024 (real incidents batch 267), pinned as read. Three
culprits: detectron2 on 8 GPUs whose spawn parent reports ``-- Process 3 terminated with the following error:``
(facebookresearch/detectron2#143: a truncated image met by worker 3, python-exception); detectron2 with
``torch.compile(DDP(...))`` whose spawn reports ``process 3 terminated with signal SIGSEGV`` (detectron2#5325,
segfault); the DDP example under ``torchrun --nproc-per-node 4`` in a docker image whose agent reports
``failed (exitcode: -7) local_rank: 0`` (pytorch/examples#1144, sigbus). Two controls: fairseq-train under
``torch.distributed.launch`` without ``--distributed-no-spawn`` (fairseq#2387: every process doubly launched, an NCCL
``invalid argument`` at the first all_reduce; read as spawn's ``Process 3`` python-exception, a miss kept in NOT_YET);
a lone unranked DDP-construction ``NCCL error ... invalid argument`` under the legacy launcher (pytorch#25299, read as
nothing). Scored 4/5 both ways as collected; no rule changed (measure only).
Contrasts: without spawn's ``-- Process N`` line neither detectron2#143 nor fairseq#2387 names a rank; renumbered, it
names the new one; the SIGSEGV read as SIGKILL is host-oom-kill, as ``exit code 1`` a python-exception; the agent's
-7 read as -9 is host-oom-kill, on local rank 2 it names rank 2; a spawn report put over pytorch#25299's traceback
names its process. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 18, 30, tzinfo=dt.timezone.utc)

TRUNCATED_IMAGE = corpus_lines("detectron2-143-")
COMPILE_SIGSEGV = corpus_lines("detectron2-5325-")
DOCKER_SIGBUS = corpus_lines("examples-1144-")
DOUBLE_LAUNCH = corpus_lines("fairseq-2387-")
LEGACY_NCCL_ARG = corpus_lines("pytorch-25299-")

SPAWN_REPORT = "-- Process {} terminated with the following error:"


def _without_spawn_report(lines: list[str]) -> list[str]:
    """The log with spawn's ``-- Process N terminated`` line taken out (the relay and the child's frames kept)."""
    gone = [line for line in lines if not line.startswith("-- Process ")]
    assert len(gone) == len(lines) - 1, "one spawn report expected"
    return gone


def _replaced(lines: list[str], old: str, new: str) -> list[str]:
    """The log with ``old`` replaced by ``new`` on the one line that holds it."""
    hits = [i for i, line in enumerate(lines) if old in line]
    assert len(hits) == 1, (old, hits)
    out = list(lines)
    out[hits[0]] = out[hits[0]].replace(old, new)
    return out


#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as pasted and laid out as the threads say
    "truncated-image-as-pasted": (TRUNCATED_IMAGE, None, None, 3, "python-exception"),
    "truncated-image-one-node-of-8": (TRUNCATED_IMAGE, 8, 8, 3, "python-exception"),
    "compile-sigsegv-as-pasted": (COMPILE_SIGSEGV, None, None, 3, "segfault"),
    "compile-sigsegv-four-gpus": (COMPILE_SIGSEGV, 4, 4, 3, "segfault"),
    "docker-sigbus-as-pasted": (DOCKER_SIGBUS, None, None, 0, "sigbus"),
    "docker-sigbus-one-node-of-4": (DOCKER_SIGBUS, 4, 4, 0, "sigbus"),
    # controls: fairseq#2387 is a miss (NOT_YET), pinned as read
    "double-launch-as-read-names-process-3": (DOUBLE_LAUNCH, None, None, 3, "python-exception"),
    "double-launch-4-per-node-as-read": (DOUBLE_LAUNCH, 4, 4, 3, "python-exception"),
    "legacy-nccl-arg-as-pasted": (LEGACY_NCCL_ARG, None, None, None, None),
    "legacy-nccl-arg-two-procs": (LEGACY_NCCL_ARG, 2, 2, None, None),
    # contrasts
    "truncated-image-no-spawn-report-names-none": (_without_spawn_report(TRUNCATED_IMAGE), None, None, None, None),
    "truncated-image-process-5-names-5": (_replaced(TRUNCATED_IMAGE, "Process 3", "Process 5"), 8, 8, 5,
                                          "python-exception"),
    "compile-sigkill-is-host-oom": (_replaced(COMPILE_SIGSEGV, "SIGSEGV", "SIGKILL"), None, None, 3, "host-oom-kill"),
    "compile-exit-code-1-is-python-exception": (_replaced(COMPILE_SIGSEGV, "signal SIGSEGV", "exit code 1"), None, None,
                                                3, "python-exception"),
    "compile-report-gone-names-none": (COMPILE_SIGSEGV[:-1], None, None, None, None),
    "docker-minus-9-is-host-oom": (_replaced(DOCKER_SIGBUS, "exitcode: -7", "exitcode: -9"), None, None, 0,
                                   "host-oom-kill"),
    "docker-local-rank-2-names-2": (_replaced(DOCKER_SIGBUS, "local_rank: 0", "local_rank: 2"), 4, 4, 2, "sigbus"),
    "double-launch-no-spawn-report-names-none": (_without_spawn_report(DOUBLE_LAUNCH), None, None, None, None),
    "legacy-nccl-arg-under-spawn-report-names-1": ([SPAWN_REPORT.format(1)] + LEGACY_NCCL_ARG, None, None, 1,
                                                   "python-exception"),
}
BATCHED = Batched("b267", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_batch267_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_spawn_report_is_what_names_the_rank(tmp_path):
    """detectron2#143 without its ``-- Process 3`` line still reads a Python exception, but holds no rank: the spawn
    report, not the relayed traceback, is what names the culprit."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(_without_spawn_report(TRUNCATED_IMAGE), tmp_path, 8, NOW, world=8))["findings"]
    failures = [(f["rule"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]
    assert failures and all(ranks == [] for _, _, ranks in failures), failures
    assert any(cause == "python-exception" for _, cause, _ in failures), failures


def test_legacy_nccl_arg_names_no_one_at_any_severity(tmp_path):
    """pytorch#25299's lone unranked NCCL ``invalid argument`` at DDP construction holds no rank in any finding."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(LEGACY_NCCL_ARG, tmp_path, 2, NOW, world=2))["findings"]
    assert all(not f.get("ranks") for f in findings), [(f["rule"], f["severity"], f["ranks"]) for f in findings]
