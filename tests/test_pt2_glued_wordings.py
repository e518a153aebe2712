"""Batch 58's PyTorch 2.5+ paste shapes (tests/data/real-incidents, ``"batch": 58``), each with its wording
variants, as one pasted log through ``k10s import-logs``:

* a rank's ``Traceback`` glued to the end of a tqdm bar (``… 264.19s/it][rank1]: Traceback …``) or after a
  framework's own ``[INFO:swift]`` tag: the rank's exception names it, with the exception's cause;
* the torchrun agent's ``Received N death signal`` with a code fence glued to its start, forwarded to every
  worker alike: no culprit;
* ProcessGroupNCCL's Flight Recorder ``Received a dump signal due to a collective timeout from this local``
  hard-wrapped by the terminal (the flag ``Include stack trace:`` / `` 1`` split too): every reporter a waiter,
  no culprit;
* a node-local agent's ``failed (exitcode: -6) local_rank: N`` in a known multi-node world: the local rank is
  no global rank, nothing is named.

These shapes were met as collected (docs/rules.md, "Real incidents batch 58"); the tests keep them met.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste

NOW = dt.datetime(2026, 11, 21, 10, 5, tzinfo=dt.timezone.utc)
OOM = ("[rank{r}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {r} has a total capacity of "
       "79.19 GiB of which 405.00 MiB is free. Including non-PyTorch memory, this process has 78.79 GiB memory in use.")
VALUE = "[rank{r}]: ValueError: Model architectures ['Qwen2ForCausalLM'] failed to be inspected."
FRONTS = {
    "tqdm": "  3%|▎         | 9/352 [40:55<25:10:16, 264.19s/it]",
    "tqdm-wide": "  4%|█████▌" + " " * 40 + "| 128/2985 [1:32:42<33:59:01, 42.82s/it]",
}


def _traceback(front: str, r: int, last: str) -> str:
    return (f"{front}[rank{r}]: Traceback (most recent call last):\n"
            f"[rank{r}]:   File \"/x/llamafactory/launcher.py\", line 23, in <module>\n[rank{r}]:     launch()\n"
            + last.format(r=r) + "\n")


@pytest.mark.parametrize("front", sorted(FRONTS))
@pytest.mark.parametrize("r,n", [(1, 2), (0, 4), (3, 4), (5, 8)])
def test_a_traceback_glued_to_a_progress_bar_names_its_rank_and_cause(tmp_path, front, r, n):
    assert named_in_paste(tmp_path, _traceback(FRONTS[front], r, OOM), n, n, NOW) == [("oom-cascade", "cuda-oom", [r])]


@pytest.mark.parametrize("r,n", [(1, 2), (6, 8)])
def test_a_traceback_after_a_framework_info_tag_names_its_rank(tmp_path, r, n):
    text = ("Train:   0%|          | 0/175 [00:00<?, ?it/s][INFO:swift] use_logits_to_keep: False\n"
            + _traceback("", r, VALUE))
    got = named_in_paste(tmp_path, text, n, n, NOW)
    assert [ranks for _, _, ranks in got] == [[r]] and got[0][1] == "python-exception"


@pytest.mark.parametrize("sig,name,workers", [(1, "SIGHUP", 2), (15, "SIGTERM", 4), (2, "SIGINT", 8)])
def test_a_fence_glued_agent_death_signal_names_no_one(tmp_path, sig, name, workers):
    lines = [f"```W0920 09:10:41.194000 84933 site-packages/torch/distributed/elastic/agent/server/api.py:719] "
             f"Received {sig} death signal, shutting down workers"]
    lines += [f"W0920 09:10:41.195000 84933 site-packages/torch/distributed/elastic/multiprocessing/api.py:900] "
              f"Sending process {85005 + i} closing signal {name}" for i in range(workers)]
    lines += ["Traceback (most recent call last):", '  File "<frozen runpy>", line 198, in _run_module_as_main',
              f"torch.distributed.elastic.multiprocessing.api.SignalException: Process 84933 got signal: {sig}"]
    assert named_in_paste(tmp_path, "\n".join(lines) + "\n", workers, workers, NOW) == []


def _wrapped_dump(r: int, ts: str) -> str:
    return (f"[rank{r}]:[E430 05:09:{ts} ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Received a dump "
            "signal due to a collective timeout from this local \n"
            "rank and we will try our best to dump the debug info. Last enqueued NCCL work: 9387, last completed NCCL work: "
            "9386.This is most likely caused by incorrect usages of \n"
            "collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the "
            "scheduled collective, for some reason, didn't run. Additio\n"
            "nally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications "
            "library (e.g. NCCL), etc. \n"
            f"[rank{r}]:[E430 05:09:{ts} ProcessGroupNCCL.cpp:1533] [PG ID 0 PG GUID 0(default_pg) Rank {r}] ProcessGroupNCCL "
            "preparing to dump debug info. Include stack trace:\n 1\n")


@pytest.mark.parametrize("ranks", [(7, 6), (3, 5), (1, 2, 4)])
def test_wrapped_local_timeout_dumps_name_no_one(tmp_path, ranks):
    text = "".join(_wrapped_dump(r, f"{48 + i}.0{i}3703086") for i, r in enumerate(ranks))
    assert named_in_paste(tmp_path, text, 8, 8, NOW) == []


@pytest.mark.parametrize("local_rank", [0, 2])
def test_a_node_local_sigabrt_in_a_multi_node_world_names_no_global_rank(tmp_path, local_rank):
    text = (f"E1026 04:09:30.101000 2904014 site-packages/torch/distributed/elastic/multiprocessing/api.py:882] failed "
            f"(exitcode: -6) local_rank: {local_rank} (pid: 2904068) of binary:  /.conda/envs/swift/bin/python\n"
            "Traceback (most recent call last):\n"
            '  File " /.conda/envs/swift/lib/python3.10/runpy.py", line 196, in _run_module_as_main\n')
    assert named_in_paste(tmp_path, text, 4, 16, NOW) == []
