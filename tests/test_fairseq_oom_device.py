"""fairseq's report of a CUDA OOM it caught names its process by the device (docs/rules.md, "Session 67: fairseq's OOM
report names its local rank"): fairseq sets each worker's CUDA device to its local rank (``distributed_main(i, …)``:
``device_id = i``, ``torch.cuda.set_device(device_id)``; ``--local_rank``, ``SLURM_LOCALID``, ``OMPI_COMM_WORLD_LOCAL_RANK``
alike), so the allocator's ``GPU N`` inside its ``OOM: Ran out of memory with exception:`` (and the pre-2020
``| WARNING: ran out of memory with exception: …;`` / `` Skipping batch``) is local rank N's. The corpus's five such
pastes (fairseq#869, #1164, #2867, #4352, self-supervised-speech-recognition#34) are each that GPU's rank, and no
control has the wording.

Contrasts: PyTorch's own OOM message with the same ``GPU N`` names no rank (a device_map process names any of its
GPUs: the allocator's device is no process); another program's copy of the wording (``[Actor 2] WARNING: ran out of
memory with exception:``) names none; fairseq's ``OOM in all workers, skipping update`` (every worker ran out alike)
names none; two workers' reports on two devices ran out together (no single culprit); a rank tag on the line wins.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 7, 6, 0, tzinfo=dt.timezone.utc)
_PYTORCH_OOM = ("CUDA out of memory. Tried to allocate 210.00 MiB (GPU {dev}; 10.92 GiB total capacity; 9.16 GiB already "
                "allocated; 147.50 MiB free; 10.18 GiB reserved in total by PyTorch)")
#: fairseq >= 0.10's trainer (``_log_oom``) under its logging format, then its recovery attempt
_TRAINER = ["2021-03-03 11:40:50 | WARNING | fairseq.trainer | OOM: Ran out of memory with exception: " + _PYTORCH_OOM,
            "2021-03-03 11:40:50 | WARNING | fairseq.trainer | attempting to recover from OOM in forward/backward pass"]
#: fairseq's 2019 print (``| WARNING: ran out of memory with exception: {};\n Skipping batch``)
_LEGACY = ["| WARNING: ran out of memory with exception: " + _PYTORCH_OOM + ";", " Skipping batch"]


def _lines(template: list[str], dev: int) -> list[str]:
    return [line.replace("{dev}", str(dev)) for line in template]


def _named(lines: list[str], tmp_path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(pasted_findings(lines, tmp_path, nproc, world, NOW))]


@pytest.mark.parametrize("template, dev, layout", [(_TRAINER, 2, (None, None)), (_TRAINER, 0, (4, 4)),
                                                   (_LEGACY, 3, (None, None)), (_LEGACY, 1, (4, 4))],
                         ids=["trainer-as-pasted", "trainer-one-node-of-4", "legacy-as-pasted", "legacy-one-node-of-4"])
def test_fairseq_s_oom_report_names_the_local_rank_of_its_device(tmp_path, template, dev, layout):
    assert _named(_lines(template, dev), tmp_path, *layout) == [("oom-cascade", "cuda-oom", [dev])]


def test_pytorch_s_own_oom_message_names_no_rank(tmp_path):
    lines = [line.replace("OOM: Ran out of memory with exception: ", "") for line in _lines(_TRAINER, 2)]
    assert _named(lines, tmp_path / "a", 4, 4) == []
    assert _named([f"RuntimeError: {_PYTORCH_OOM.format(dev=3)}"], tmp_path / "b", 8, 8) == []


def test_another_program_s_copy_of_the_wording_names_no_rank(tmp_path):
    lines = ["[Actor 2] WARNING: ran out of memory with exception: " + _PYTORCH_OOM.format(dev=2) + ";", " Skipping batch"]
    assert _named(lines, tmp_path, 4, 4) == []


@pytest.mark.parametrize("where", ["after", "before"])
def test_oom_in_all_workers_names_no_rank(tmp_path, where):
    said = "2021-03-03 11:40:51 | WARNING | fairseq.trainer | OOM in all workers, skipping update"
    lines = _lines(_TRAINER, 2) + [said] if where == "after" else [said] + _lines(_TRAINER, 2)
    assert _named(lines, tmp_path, 4, 4) == []


def test_two_workers_reports_on_two_devices_ran_out_together(tmp_path):
    findings = pasted_findings(_lines(_TRAINER, 2) + _lines(_TRAINER, 3), tmp_path, 4, 4, NOW)
    assert naming_findings(findings) == []
    assert [f["ranks"] for f in findings if f["rule"] == "oom-cascade"] == [[]]


def test_a_rank_tag_on_the_line_wins(tmp_path):
    assert _named([f"[rank5]: {line}" for line in _lines(_TRAINER, 1)], tmp_path, 8, 8) == [("oom-cascade", "cuda-oom", [5])]


@pytest.mark.parametrize("prefix, nproc, rank", [
    ("fairseq-869-", None, 0),  # legacy wording, GPU 0, then spawn's `-- Process 3 terminated` cut after its header
    ("fairseq-1164-", 4, 0),  # legacy wording three times on GPU 0 (one process), NCCL's all-reduce lines after
    ("fairseq-2867-", None, 1),  # trainer wording on GPU 1, spawn's parent traceback: the layout from the device
    ("self-supervised-speech-recognition-34-", 5, 4),  # the trainer wording wrapped `(G` / `PU 4;` by the paste
])
def test_the_corpus_pastes_name_their_device_s_rank(tmp_path, prefix, nproc, rank):
    assert _named(corpus_lines(prefix), tmp_path, nproc, nproc) == [("oom-cascade", "cuda-oom", [rank])]
