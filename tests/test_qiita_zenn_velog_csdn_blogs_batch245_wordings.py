"""Non-English (Chinese-language) multi-GPU fine-tuning threads (real incidents batch 245, family
``qiita-zenn-velog-csdn-blogs``), pinned as read. The ``pages`` corpus held no console paste of the family, so the batch
is Chinese Q&A on GitHub. Three culprits, each a lone SIGKILL the torch elastic agent did not send: Qwen LoRA under
torchrun, three ``Sending process ... closing signal SIGTERM`` and ``failed (exitcode: -9) local_rank: 1`` (QwenLM/Qwen#423:
64G of host RAM fails with 3+ cards, 256G works); ChatGLM2-6B on 4x 3090 whose first SIGTERM is glued to the
``Loading checkpoint shards`` bar before ``local_rank: 2`` is SIGKILLed (hiyouga/ChatGLM-Efficient-Tuning#371); MiniCPM-V's
``ChildFailedError`` summary, ``<NO_OTHER_FAILURES>`` and root cause ``rank : 2`` with ``Signal 9 (SIGKILL)``
(OpenBMB/MiniCPM-V#145) -- all host-oom-kill. Two controls that name no one: one interleaved
``OutOfMemoryError    : self.optimizer.step()CUDA out of memory ... GPU 6`` of a full fine-tune that fits none of 7x40G
(OpenBMB/MiniCPM-V#299: GPU 0 fails the same way on the next line); one unranked ``CUBLAS_STATUS_NOT_INITIALIZED``
of 2x 3090 filling up (hiyouga/ChatGLM-Efficient-Tuning#270). Scored 5/5 both ways as collected, no control named; no
rule changed (measure only). Contrasts: the agent line without the -9 names no one, with exit 1 it is a python
exception of the same rank; the summary's root cause moved to rank 0 names rank 0, a SIGTERM root cause names no one;
the OOM or the cuBLAS line tagged ``[rankN]:`` names that rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 10, 0, tzinfo=dt.timezone.utc)

QWEN_SIGKILL = corpus_lines("Qwen-423-")
SHARDS_SIGKILL = corpus_lines("ChatGLM-Efficient-Tuning-371-")
SUMMARY_SIGKILL = corpus_lines("MiniCPM-V-145-")
OPTIMIZER_OOM = corpus_lines("MiniCPM-V-299-")
CUBLAS_INIT = corpus_lines("ChatGLM-Efficient-Tuning-270-")

#: the agent's lines without the one that reports the -9: only SIGTERMs to the survivors
QWEN_NO_FAILURE = QWEN_SIGKILL[:-1]
#: the same local rank ending with exit code 1 (an exception of its own) instead of SIGKILL
QWEN_EXIT1 = QWEN_SIGKILL[:-1] + [QWEN_SIGKILL[-1].replace("exitcode: -9", "exitcode: 1")]
#: the shard-loading paste without its ``exitcode: -9`` line
SHARDS_NO_FAILURE = [line for line in SHARDS_SIGKILL if "exitcode: -9" not in line]
#: the summary's root cause on rank 0 instead of rank 2
SUMMARY_RANK0 = [line.replace("rank      : 2 (local_rank: 2)", "rank      : 0 (local_rank: 0)") for line in SUMMARY_SIGKILL]
#: the root cause terminated by SIGTERM (what the agent itself sends), not killed
SUMMARY_SIGTERM = [line.replace("-9 (pid", "-15 (pid").replace("Signal 9 (SIGKILL)", "Signal 15 (SIGTERM)")
                   for line in SUMMARY_SIGKILL]
#: the OOM on a line rank 6 tags itself, as torch prints a rank's exception
OOM_RANK6_TAGGED = ["[rank6]: " + OPTIMIZER_OOM[0]]
#: the thread's next line too: GPU 0 failing with the same 4.54 GiB request
OOM_GPU0_TOO = OPTIMIZER_OOM + [OPTIMIZER_OOM[0].replace("GPU 6", "GPU 0").replace("590.06", "596.06")]
#: the cuBLAS error on a ``[rank1]:``-tagged line
CUBLAS_RANK1_TAGGED = ["[rank1]: " + CUBLAS_INIT[0]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as pasted and laid out as the threads say
    "qwen-sigkill-as-pasted": (QWEN_SIGKILL, None, None, 1, "host-oom-kill"),
    "qwen-sigkill-one-node-of-4": (QWEN_SIGKILL, 4, 4, 1, "host-oom-kill"),
    "shards-sigkill-as-pasted": (SHARDS_SIGKILL, None, None, 2, "host-oom-kill"),
    "shards-sigkill-one-node-of-4": (SHARDS_SIGKILL, 4, 4, 2, "host-oom-kill"),
    "summary-sigkill-as-pasted": (SUMMARY_SIGKILL, None, None, 2, "host-oom-kill"),
    "summary-sigkill-one-node-of-4": (SUMMARY_SIGKILL, 4, 4, 2, "host-oom-kill"),
    # controls
    "optimizer-oom-as-pasted": (OPTIMIZER_OOM, None, None, None, None),
    "optimizer-oom-one-node-of-7": (OPTIMIZER_OOM, 7, 7, None, None),
    "cublas-init-as-pasted": (CUBLAS_INIT, None, None, None, None),
    "cublas-init-one-node-of-2": (CUBLAS_INIT, 2, 2, None, None),
    # contrasts
    "qwen-no-failure-names-none": (QWEN_NO_FAILURE, None, None, None, None),
    "qwen-exit1-names-rank1-exception": (QWEN_EXIT1, None, None, 1, "python-exception"),
    "shards-no-failure-names-none": (SHARDS_NO_FAILURE, 4, 4, None, None),
    "summary-rank0-names-rank0": (SUMMARY_RANK0, 4, 4, 0, "host-oom-kill"),
    "summary-sigterm-names-none": (SUMMARY_SIGTERM, 4, 4, None, None),
    "oom-rank6-tagged-names-rank6": (OOM_RANK6_TAGGED, 7, 7, 6, "cuda-oom"),
    "oom-gpu0-too-names-none": (OOM_GPU0_TOO, 7, 7, None, None),
    "cublas-rank1-tagged-names-rank1": (CUBLAS_RANK1_TAGGED, 2, 2, 1, "cuda-error"),
}
BATCHED = Batched("b245", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_zh_blog_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_sigkill_is_critical_exit1_a_warning(tmp_path):
    """The same agent line reads critical for a SIGKILL from outside the launcher and only a warning for exit code 1."""
    from k10s_forensics.analyze.runner import analyze

    def severities(lines, sub):
        named = naming_findings(analyze(pasted(lines, tmp_path / sub, None, NOW, world=None))["findings"])
        return sorted({(f["severity"], f["cause"]) for f in named})

    assert severities(QWEN_SIGKILL, "kill") == [("critical", "host-oom-kill")]
    assert severities(QWEN_EXIT1, "exit1") == [("warning", "python-exception")]


def test_glued_sigterm_pids_are_not_ranks(tmp_path):
    """The SIGTERM glued to the tqdm bar and its two siblings are pids of victims: only local rank 2 is named."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(SHARDS_SIGKILL, tmp_path, 4, NOW, world=4))["findings"]
    assert {r for f in findings for r in (f.get("ranks") or [])} == {2}, [(f["rule"], f["ranks"]) for f in findings]
