"""Batch 62's committed-log shapes (tests/data/real-incidents, ``"batch": 62``: training logs committed to repositories),
each with its wording variants:

* three or more workers each printing a CUDA out-of-memory error in lines that name no process (a paste's unprefixed
  tracebacks, every worker put on one GPU) before torchrun's failure table: each allocator reports its own numbers,
  yet they ran out alike — no single culprit, the table's rank is only the first exit torchrun saw; one worker's OOM
  (printed once or twice) is still the reported rank's;
* the yearless ``[MM-DD HH:MM:SS|LEVEL|file:line:function]`` head of NVIDIA imaginaire's (Cosmos's) logger is a clock
  (parser calls only).

The as-collected miss is in docs/rules.md, "Session 23: batch 62"; these tests keep the shapes met. The analyses go
through tests/bundle_batch.py (several inputs per analysis).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched
from incident_kit import naming_findings
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_time import dated_ts, fallback_ts

NOW = dt.datetime(2026, 11, 30, 20, 0, tzinfo=dt.timezone.utc)
AGENT = "{lvl}1130 13:21:{s:02d}.{us:06d} 1 torch/distributed/elastic/multiprocessing/api.py:{n}] "
HEAD = "[11-30 13:{m:02d}:{s:02d}|INFO|examples/video2world.py:259:setup_pipeline] Initializing Video2WorldPipeline"


def _oom(i: int) -> str:
    """Worker ``i``'s allocator report: its own request and free memory, the same GPU and processes."""
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {64 * (i + 1)}.00 MiB. GPU 0 has a total "
            f"capacity of 39.49 GiB of which {57 - 10 * i}.00 MiB is free. Process 2213429 has 5.49 GiB memory in use. "
            f"Process 2213427 has 4.63 GiB memory in use. Of the allocated memory {4.98 + i:.2f} GiB is allocated by PyTorch.")


def _traceback(oom: str) -> list[str]:
    return ["Traceback (most recent call last):", '  File "/workspace/examples/video2world.py", line 417, in <module>',
            "    pipe = setup_pipeline(args)", '  File "/workspace/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py",'
            " line 1329, in convert", "    return t.to(", oom]


def _tail(first: int, workers: int) -> list[str]:
    lines = [AGENT.format(lvl="W", s=20, us=183000 + i, n=897) + f"Sending process {363 + i} closing signal SIGTERM"
             for i in range(workers) if i != first]
    return lines + [
        AGENT.format(lvl="E", s=21, us=592000, n=869) + f"failed (exitcode: 1) local_rank: {first} (pid: {363 + first}) "
        "of binary: /workspace/.venv/bin/python3",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================", "examples.video2world FAILED",
        "------------------------------------------------------------", "Failures:", "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
        "  time      : 2025-11-30_13:21:20", "  host      : 9d68ffecd72f", f"  rank      : {first} (local_rank: {first})",
        f"  exitcode  : 1 (pid: {363 + first})", "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================"]


def _text(key: tuple) -> str:
    shape, workers, first, heads = key
    lines = [HEAD.format(m=18, s=47)] * workers if heads else []
    if shape == "alike":  # every worker runs out, each with its own numbers
        ooms = [_oom(i) for i in range(workers)]
    elif shape == "one":  # one worker runs out
        ooms = [_oom(first)]
    else:  # "twice": one worker's OOM printed twice (the traceback, then its logger)
        ooms = [_oom(first), _oom(first)]
    if heads:
        lines.append(HEAD.format(m=21, s=16).replace("Initializing Video2WorldPipeline", "T5 Text encoder model instantiated"))
    for oom in ooms:
        lines += _traceback(oom)
    return "\n".join(lines + _tail(first, workers)) + "\n"


ALIKE = [("alike", 4, 3, True), ("alike", 4, 3, False), ("alike", 3, 0, False), ("alike", 3, 2, True), ("alike", 8, 5, True),
         ("alike", 8, 0, False)]
ONE = [("one", 2, 1, False), ("one", 4, 3, True), ("twice", 4, 2, False), ("twice", 2, 0, True)]
BATCHED = Batched("committed-batch62", ALIKE + ONE)


def _make(key: tuple, folder) -> object:
    workers = key[1]
    return import_logs([LogSource("log.txt", _text(key))], folder / "b", nproc_per_node=workers, world_size=workers,
                       job="train", namespace="team-a", now=NOW, derive=False)[0]


@pytest.mark.parametrize("key", [pytest.param(k, id="-".join(map(str, k)), marks=BATCHED.mark(k)) for k in ALIKE])
def test_workers_running_out_of_gpu_memory_alike_in_unprefixed_lines_name_no_one(tmp_path_factory, key):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert naming_findings(findings) == [], [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(findings)]
    assert any(f["rule"] == "oom-cascade" for f in findings)  # the OOM is still reported, with no rank


@pytest.mark.parametrize("key", [pytest.param(k, id="-".join(map(str, k)), marks=BATCHED.mark(k)) for k in ONE])
def test_one_worker_running_out_of_gpu_memory_is_the_reported_rank(tmp_path_factory, key):
    first = key[2]
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert named and all(f["ranks"] == [first] for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert any(f["cause"] == "cuda-oom" for f in named)


CAPTURED = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("line,want", [
    ("[11-30 13:21:16|INFO|imaginaire/auxiliary/text_encoder.py:345:__init__] T5 Text encoder model instantiated",
     dt.datetime(2025, 11, 30, 13, 21, 16, tzinfo=dt.timezone.utc)),
    ("[11-30 13:18:49|SUCCESS|cosmos_predict2/tokenizers/tokenizer.py:604:_video_vae] Successfully loaded tokenizer.pth",
     dt.datetime(2025, 11, 30, 13, 18, 49, tzinfo=dt.timezone.utc)),
    ("[11-30 13:18:47|WARNING|imaginaire/lazy_config/lazy.py:441:save_yaml] Config is saved using omegaconf",
     dt.datetime(2025, 11, 30, 13, 18, 47, tzinfo=dt.timezone.utc)),
    ("[01-02 03:04:05.250|ERROR|train.py:10:main] failed", dt.datetime(2026, 1, 2, 3, 4, 5, 250000, tzinfo=dt.timezone.utc)),
    ("(TaskRunner pid=12) [12-31 23:59:59|DEBUG|x.py:1:f] step", dt.datetime(2025, 12, 31, 23, 59, 59, tzinfo=dt.timezone.utc)),
])
def test_imaginaire_bracketed_yearless_head_is_a_clock(line, want):
    assert fallback_ts(line, CAPTURED) == want
    assert dated_ts(line) is None  # yearless: the paste's own dated lines place it


@pytest.mark.parametrize("line", [
    "[11-30 13:21:16] no level after the time",
    "[11-30 13:21:16|NOTICE|x.py:1:f] not a level this logger writes",
    "[rank0]: [11-30 ...] cut",
])
def test_bracketed_text_without_the_level_field_is_no_clock(line):
    assert fallback_ts(line, CAPTURED) is None
