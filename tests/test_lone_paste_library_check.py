"""An installed library's own assertion in a paste of one rank's lines only (docs/rules.md, "Session 62: a lone copy of a
library's own check"): an ``AssertionError`` or ``NotImplementedError`` whose innermost frame is site-/dist-packages
code (parsers/log_library_frame.py), its message naming no device, rank, file or shape, names no culprit; the rank is a
suspect, said at info (batch 384's ms-swift#6670 named rank 1 at warning: vLLM's LoRA kernel wrapper asserts alike in
every rank's rollout engine). Contrasts: the same assertion with a rank-, device- or file-specific message, raised from
the program's own script, or on two ranks with a different failure each, and a library's ``ValueError`` (a data item
refused) stay as before; a CUDA error in a library frame is the device's reading (not this class).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import gist, pasted_findings
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)
VLLM = "/usr/local/lib/python3.10/dist-packages/vllm/lora/ops/triton_ops/lora_shrink_op.py"
MEGATRON = "/opt/venv/lib/python3.12/site-packages/megatron/core/transformer/transformer_block.py"


def _tail(rank: int, error: str, path: str = VLLM, code: str = "assert token_lora_mapping.size(0) == M") -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):",
            f'[rank{rank}]:   File "/workspace/train.py", line 41, in <module>',
            f"[rank{rank}]:     main()",
            f'[rank{rank}]:   File "{path}", line 149, in _lora_shrink',
            f"[rank{rank}]:     {code}",
            f"[rank{rank}]: {error}"]


def _failures(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]


@pytest.mark.parametrize(("error", "path"), [
    ("AssertionError", VLLM),
    ("AssertionError: num_layers should be divisible by pipeline_model_parallel_size", MEGATRON),
    ("NotImplementedError: Cannot copy the LoRA weights of this layer type yet", VLLM),
])
@pytest.mark.parametrize("nproc", [None, 8])
def test_a_lone_rank_s_library_assertion_is_a_suspect_only(tmp_path, error, path, nproc):
    findings = pasted_findings(_tail(1, error, path), tmp_path, nproc, nproc, NOW)
    assert naming_findings(findings) == [], gist(findings)
    assert _failures(findings) == [("info", "python-exception", [1])]
    assert "installed library's own assertion" in next(f["summary"] for f in findings if f["rule"] == "rank-failure")


def test_a_paste_whose_frame_lost_its_tag_reads_the_same(tmp_path):
    # ms-swift#6670's shape: the frame copied without the collector's prefix, the exception with it
    lines = [f'File "{VLLM}", line 149, in _lora_shrink |', "-- | --",
             "  |   | 2025-11-19 18:38:40.880773 master-0 >> [rank1]:     assert token_lora_mapping.size(0) == M |",
             "  |   | 2025-11-19 18:38:40.880777 master-0 >> [rank1]: AssertionError"]
    findings = pasted_findings(lines, tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], gist(findings)
    assert _failures(findings) == [("info", "python-exception", [1])]


@pytest.mark.parametrize("error", [
    "AssertionError: expected the batch on cuda:3, got cpu",  # a device
    "AssertionError: rank 3 received 0 samples",  # a rank
    "AssertionError: /data/shards/train-00017.tar holds no members",  # a data file
    "AssertionError: shape mismatch: (2, 4096) vs (4, 4096)",  # a tensor's shape (one rank's batch)
    "ValueError: expected 3 channels, got 4",  # a library's refusal of one rank's data item
])
def test_a_rank_specific_or_data_check_in_a_library_still_names_the_rank(tmp_path, error):
    named = naming_findings(pasted_findings(_tail(3, error), tmp_path, 8, 8, NOW))
    assert [(f["severity"], f["ranks"]) for f in named] == [("warning", [3])], gist(named)


def test_an_assertion_in_the_program_s_own_script_still_names_the_rank(tmp_path):
    lines = _tail(2, "AssertionError", path="/home/user/project/train.py", code="assert loss.isfinite()")
    named = naming_findings(pasted_findings(lines, tmp_path, 8, 8, NOW))
    assert [(f["severity"], f["ranks"]) for f in named] == [("warning", [2])], gist(named)


def test_a_library_assertion_with_other_ranks_failing_is_not_a_lone_paste(tmp_path):
    lines = [f"[rank{r}]: step 10 loss 0.5" for r in range(4)] + _tail(1, "AssertionError")
    lines += [f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by "
              f"peer [10.0.0.2]:45678" for r in (0, 2, 3)]
    findings = pasted_findings(lines, tmp_path, 4, 4, NOW)
    assert all("installed library" not in (f.get("summary") or "") for f in findings), gist(findings)
    assert {r for f in naming_findings(findings) for r in f["ranks"]} == {1}, gist(findings)


def test_a_cuda_error_in_a_library_frame_is_not_this_class(tmp_path):
    lines = _tail(1, "RuntimeError: CUDA error: an illegal memory access was encountered")
    findings = pasted_findings(lines, tmp_path, 8, 8, NOW)
    assert all("installed library" not in (f.get("summary") or "") for f in findings), gist(findings)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in naming_findings(findings)] == [("warning", "cuda-error", [1])]
