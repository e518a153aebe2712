"""glibc's failed ``assert()`` in native code (parsers/log_failures.py ``native_assert``, session 55; blind batch 326).

``<prog>: <file>:<line>: <function>: Assertion `<cond>' failed.`` (glibc 2.35+ quotes ``'<cond>'``), printed just before
the process's ``abort()``: a C++/CUDA extension's host code (DeepEP, DeepSpeed's aio), a C program (llm.c). It read as
nothing before. It is an abort (−6) with the condition and the place, and, as the invariant of a code and config every
rank runs, common mode: the corpus' four such pastes are all of every rank alike, so no single culprit is named.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)
NEW_GLIBC = ("python3: /opt/DeepEP/csrc/hybrid_ep/extension/permute.cu:412: void permute_launcher(PermuteArgs) [with DType = "
             "short unsigned int]: Assertion 'args.output_tokens_ptr != nullptr' failed.")
OLD_GLIBC = ("train_gpt2cu: llmc/dataloader.h:186: void dataloader_init(DataLoader*, const char*, size_t, size_t, int, int, int): "
             "Assertion `shard_ntok >= (int64_t) (num_processes * B * T + 1)' failed.")


@pytest.mark.parametrize(
    ("line", "want"),
    [(NEW_GLIBC, ("args.output_tokens_ptr != nullptr", "/opt/DeepEP/csrc/hybrid_ep/extension/permute.cu:412")),
     (OLD_GLIBC, ("shard_ntok >= (int64_t) (num_processes * B * T + 1)", "llmc/dataloader.h:186")),
     ("void setup_qp_init_attr(..., int): Assertion `tx_depth > 0 && tx_depth < 65536' failed.", ("tx_depth > 0 && tx_depth < 65536", None)),
     ("AssertionError: assert x > 0 failed.", None),
     ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [7354,0,0], thread: [64,0,0] Assertion `idx_dim >= 0` "
      "failed.", None)],
    ids=["glibc-2.35", "older-glibc", "wrapped-second-half", "python-assertion", "kernel-device-assert"],
)
def test_the_assertion_is_an_abort_with_its_condition(line, want):
    events = [e for e in classify(line) if e.get("subkind") == "native_assert"]
    if want is None:
        assert events == []
    else:
        (ev,) = events
        assert (ev["kind"], ev["exit_code"]) == ("process_exit", -6)
        assert f"`{want[0]}`" in ev["error_message"] and (want[1] is None or want[1] in ev["error_message"])


def _failures(lines: list[str], tmp_path) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, tmp_path, 4, 8, NOW) if f["rule"] == "rank-failure"]


def test_a_lone_ranks_assertion_names_no_one(tmp_path):
    lines = [f"[rank3]: {NEW_GLIBC}", "[rank3]:Fatal Python error: Aborted",
             "E1202 10:00:03.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 3 "
             "(pid: 143) of binary: /usr/bin/python"]
    assert _failures(lines, tmp_path / "a") == [("warning", "abort", [])]
    # the contrast: the same abort without the assertion is rank 3's own
    assert _failures(lines[1:], tmp_path / "b") == [("warning", "abort", [3])]
