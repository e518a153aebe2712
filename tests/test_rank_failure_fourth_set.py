"""Wordings the fourth set of real recordings showed (tests/data/torch-runs, ``t4-*``: the wrappers
users put around torchrun: HF accelerate, PyTorch Lightning, DeepSpeed; docs/rules.md
"rank-failure, fourth set"): one small node log per wording, imported as ``k10s import-logs``
would and analyzed."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import import_logs, infer_layout, read_source
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
GLOO = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:56531. This is typically caused by a remote worker crashing.")
ELASTIC = "E1128 18:49:28.796000 12152 torch/distributed/elastic/multiprocessing/api.py:836] "
DS = "[2026-11-28 18:53:46,956] [INFO] [launch.py:{n}:main] "


def findings(tmp_path, lines: list[str], name: str = "node0.log") -> list[tuple]:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bundle, _ = import_logs([read_source(str(path))], tmp_path / "b", job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["severity"], f["ranks"], f["cause"]) for f in analyze(bundle)["findings"]
            if f["severity"] in ("critical", "warning") and f["ranks"]]


def test_c10_glog_prefix_is_stripped():
    norm = normalize(ELASTIC + GLOO)
    assert norm.text == GLOO


def test_elastic_start_processes_traceback_of_a_victim_names_no_one(tmp_path):
    """accelerate's notebook_launcher (torch's elastic launch in-process) logs the first failed
    process's traceback through c10's logger: process 0's gloo "Connection closed by peer" is a
    teardown, so its exit 1 in the failure table is a victim's (it was named before)."""
    lines = ["process 0/2 on cpu:0", "step 0 loss 0.0979",
             ELASTIC + "failed (exitcode: 1) local_rank: 0 (pid: 12156) of fn: accelerate_train (start_method: fork)",
             ELASTIC + "-- Process 0 terminated with the following error:", ELASTIC + "Traceback (most recent call last):",
             ELASTIC + '  File "/workspace/train.py", line 66, in accelerate_train', ELASTIC + GLOO,
             "Root Cause (first observed failure):", "[0]:", "  time      : 2026-11-28_18:49:28", "  host      : localhost",
             "  rank      : 0 (local_rank: 0)", "  exitcode  : 1 (pid: 12156) ", "  error_file: /tmp/torchelastic_x/error.json"]
    assert findings(tmp_path, lines) == []


def _deepspeed(code: int, silent: int) -> list[str]:
    spawned = [DS.format(n=245) + f"process {1700 + i} spawned with command: ['/usr/bin/python3', '-u', 'train.py', '--local_rank={i}']"
               for i in range(2)]
    other = 1 - silent
    return [DS.format(n=158) + "nnodes=1, num_local_procs=2, node_rank=0", DS.format(n=170) + "dist_world_size=2",
            DS.format(n=174) + "Setting CUDA_VISIBLE_DEVICES=0,1", *spawned, "step 0 loss 0.31",
            f"[rank{other}]: Traceback (most recent call last):", f"[rank{other}]: {GLOO}",
            DS.format(n=253).replace("main", "sigkill_handler") + "Killing subprocess 1700",
            DS.format(n=253).replace("main", "sigkill_handler") + "Killing subprocess 1701",
            DS.format(n=259).replace("INFO", "ERROR").replace("main", "sigkill_handler")
            + f"['/usr/bin/python3', '-u', 'train.py', '--local_rank=1'] exits with return code = {code}"]


def test_deepspeed_report_names_the_one_rank_without_a_word(tmp_path):
    """DeepSpeed's launcher reports the failed process's status with the command it spawned LAST;
    where every other rank of the node raised a teardown, the silent one is the failed process."""
    got = findings(tmp_path, _deepspeed(-11, silent=0))
    assert [f for f in got if f[0] == "rank-failure"] == [("rank-failure", "warning", [0], "segfault")]


def test_deepspeed_report_with_two_silent_ranks_names_no_one(tmp_path):
    lines = [line for line in _deepspeed(-9, silent=1) if "[rank0]" not in line]
    assert [f for f in findings(tmp_path, lines) if f[0] == "rank-failure"] == []


def test_store_timeout_names_the_rank_that_never_said_it_was_joining(tmp_path):
    """Lightning prints each process's "Initializing distributed: GLOBAL_RANK" as it enters the
    rendezvous; TCPStore's "1/2 clients joined" then names the one that never did."""
    lines = ["GPU available: False, used: False", "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2",
             "Traceback (most recent call last):", '  File "/workspace/train.py", line 118, in main',
             "torch.distributed.DistStoreError: Timed out after 7 seconds waiting for clients. 1/2 clients joined."]
    got = findings(tmp_path, lines)
    assert got and all(f[2] == [1] and f[3] == "never-joined" for f in got), got


def test_store_timeout_without_joining_lines_names_no_one(tmp_path):
    lines = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 118, in main',
             "torch.distributed.DistStoreError: Timed out after 7 seconds waiting for clients. 1/2 clients joined."]
    assert findings(tmp_path, lines) == []


def test_layout_hints_of_deepspeed_and_lightning(tmp_path):
    ds = tmp_path / "ds.log"
    ds.write_text(DS.format(n=158) + "nnodes=2, num_local_procs=2, node_rank=0\n" + DS.format(n=170) + "dist_world_size=4\n")
    layout = infer_layout([read_source(str(ds))])
    assert (layout.nproc_per_node, layout.world_size) == (2, 4)
    pl = tmp_path / "pl.log"
    pl.write_text("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\nInitializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4\n")
    assert infer_layout([read_source(str(pl))]).world_size == 4
