"""Four wordings real logs carry that k10s did not read (docs/rules.md, "Session 63: a file lock's timeout, a spawn's
index on a stated node, a queue pair that would not come up, a serving engine's wait"):

* filelock's ``Timeout: The file lock '…' could not be acquired.`` ends a rank's own traceback: its python-exception,
  with what to check (who holds the lock, a stale ``.lock``); every rank failing on one lock alike names no one.
* mp.spawn's ``-- Process N terminated with the following error:`` is a local index: where the log states its node's
  rank and its processes per node, global rank node_rank x nprocs + N; a non-zero node of no stated size names no rank;
  no node stated, today's reading (Process N as rank N).
* NCCL's ``Call to ibv_modify_qp failed with 110 Connection timed out``: a rankless note of the fabric's set-up, tagged
  or not (the corpus' three such logs are controls: nccl-2013, nccl-302, nccl-tests-185).
* vLLM's ``No available shared memory broadcast block found in 60 second.``: a waiter's message, an info hang symptom
  with no rank; another rank's own error beside it stays the culprit.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)
LOCK = "/root/.cache/huggingface/datasets/_root_.cache_data.lock"
EXIT_LINE = ("E1206 10:01:02.456000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
             "local_rank: {rank} (pid: 202) of binary: /usr/bin/python")
IBV = ("host-01:1234:5678 [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev "
       "mlx5_0:1, curr state INIT, next state RTR, local GID index 3")
SHM = ("(VllmWorker TP0 pid=101) INFO 06-10 11:0{m}:38 [shm_broadcast.py:466] No available shared memory broadcast block "
       "found in 60 second. This typically happens when some processes are hanging.")


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def _lock_tail(prefix: str, name: str = "filelock._error.Timeout", path: str = LOCK) -> list[str]:
    return [f"{prefix}Traceback (most recent call last):", f'{prefix}  File "/workspace/train.py", line 40, in main',
            f"{prefix}    with FileLock(lock_path, timeout=600):",
            f'{prefix}  File "/usr/local/lib/python3.11/site-packages/filelock/_api.py", line 295, in acquire',
            f"{prefix}    raise Timeout(lock_filename)  # noqa: TRY301",
            f"{prefix}{name}: The file lock '{path}' could not be acquired."]


@pytest.mark.parametrize("name", ["filelock._error.Timeout", "filelock.Timeout", "Timeout"])
@pytest.mark.parametrize("prefix", ["[rank1]: ", "[default1]:"])
@pytest.mark.parametrize("exit_line", [True, False], ids=["exitcode", "no-exitcode"])
def test_a_lock_timeout_is_the_rank_s_own_exception(tmp_path, name, prefix, exit_line):
    lines = _lock_tail(prefix, name) + ([EXIT_LINE.format(rank=1)] if exit_line else [])
    findings = pasted_findings(lines, tmp_path, None, None, NOW)
    named = naming_findings(findings)
    assert [(f["cause"], f["ranks"]) for f in named] == [("python-exception", [1])], _gist(findings)
    assert "could not be acquired" in named[0]["summary"]
    assert "holds it" in named[0]["recommendation"] and "stale" in named[0]["recommendation"]


@pytest.mark.parametrize("exit_line", [True, False], ids=["exitcode", "no-exitcode"])
def test_an_untagged_lock_timeout_is_read_as_an_exception(tmp_path, exit_line):
    """No rank tag: the launcher's exit line names local rank 1 (as any untagged exception's); without it, a rankless note."""
    lines = _lock_tail("") + ([EXIT_LINE.format(rank=1)] if exit_line else [])
    findings = pasted_findings(lines, tmp_path, None, None, NOW)
    failures = [(f["severity"], f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"]
    assert failures == ([("warning", "python-exception", [1])] if exit_line else [("warning", "python-exception", [])]), _gist(findings)


def test_every_rank_failing_on_one_lock_names_no_one(tmp_path):
    """The same lock timeout on ranks 0-3 (one shared cache directory): no culprit (session 62's shared_dir_alike)."""
    lines = [line for r in range(4) for line in _lock_tail(f"[rank{r}]: ")]
    findings = pasted_findings(lines, tmp_path, 4, 4, NOW)
    assert naming_findings(findings) == [], _gist(findings)


def test_a_timeout_that_is_no_lock_s_stays_unread(tmp_path):
    """Near-miss: a class named ``Timeout`` whose words are not filelock's (a client library's own) is not read here."""
    findings = pasted_findings(["[rank1]: Traceback (most recent call last):", "[rank1]: Timeout: request took too long"],
                               tmp_path, None, None, NOW)
    assert not [f for f in naming_findings(findings) if f["cause"] == "python-exception" and "lock" in (f.get("summary") or "")]


def _spawn(process: int, *head: str) -> list[str]:
    return [*head, "Traceback (most recent call last):", '  File "train.py", line 30, in <module>',
            "    mp.spawn(main, args=(cfg,))", "Exception: ", "", f"-- Process {process} terminated with the following error:",
            "Traceback (most recent call last):",
            '  File "/usr/lib/python3/site-packages/torch/multiprocessing/spawn.py", line 69, in _wrap', "    fn(i, *args)",
            '  File "train.py", line 10, in main', "    raise ValueError('bad batch')", "ValueError: bad batch"]


@pytest.mark.parametrize("head,process,want", [
    (["Namespace(node_rank=1, nprocs=4, lr=0.1)"], 0, 4),
    (["+ python train.py --node_rank 1 --nproc_per_node 4"], 2, 6),
    (["NODE_RANK=1", "LOCAL_WORLD_SIZE=4"], 3, 7),
    (["Namespace(node_rank=0, nprocs=4, lr=0.1)"], 2, 2),
], ids=["node_rank-nprocs", "flags", "environment", "node-zero"])
def test_process_n_on_a_stated_node_is_its_global_rank(tmp_path, head, process, want):
    findings = pasted_findings(_spawn(process, *head), tmp_path, None, None, NOW)
    assert [(f["cause"], f["ranks"]) for f in naming_findings(findings)] == [("python-exception", [want])], _gist(findings)


def test_process_n_on_a_non_zero_node_of_no_stated_size_names_no_rank(tmp_path):
    findings = pasted_findings(_spawn(0, "Namespace(node_rank=1, lr=0.1)"), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert [(f["cause"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"] == [("python-exception", [])]


@pytest.mark.parametrize("process", [0, 2])
def test_process_n_with_no_node_stated_reads_as_today(tmp_path, process):
    findings = pasted_findings(_spawn(process), tmp_path, None, None, NOW)
    assert [f["ranks"] for f in naming_findings(findings)] == [[process]], _gist(findings)


@pytest.mark.parametrize("line", [IBV, "NCCL WARN Call to ibv_modify_qp failed with error Connection timed out",
                                  f"[rank3]:{IBV}", f"[default3]:{IBV}", f"[2026-03-13 22:26:02] {IBV}"],
                         ids=["host-prefix", "bare-errno-words", "rank-tag", "default-tag", "timestamped"])
def test_a_queue_pair_that_would_not_come_up_is_a_rankless_note(tmp_path, line):
    findings = pasted_findings([line], tmp_path, None, None, NOW)
    notes = [f for f in findings if f["rule"] == "rank-failure" and f["cause"] == "nccl-error"]
    assert [(f["severity"], f["ranks"]) for f in notes] == [("warning", [])], _gist(findings)
    assert "ibstat" in notes[0]["recommendation"] and "NCCL_IB_HCA" in notes[0]["recommendation"]
    assert naming_findings(findings) == [], _gist(findings)


@pytest.mark.parametrize("line", [IBV, f"[rank3]:{IBV}"], ids=["host-prefix", "rank-tag"])
def test_with_the_launcher_s_exit_line_its_exit_status_reads_as_before(tmp_path, line):
    """The launcher's ``failed (exitcode: 1) local_rank: 3``: rank 3's exit status, read as it was before (the queue
    pair's line names no rank and takes nothing from it; no NCCL error is charged to rank 3)."""
    findings = pasted_findings([line, EXIT_LINE.format(rank=3)], tmp_path, None, None, NOW)
    assert [(f["cause"], f["ranks"]) for f in naming_findings(findings)] == [("python-exception", [3])], _gist(findings)


def test_a_queue_pair_beside_another_rank_s_own_error_keeps_that_rank(tmp_path):
    lines = [IBV, "[rank2]: Traceback (most recent call last):", '[rank2]:   File "/workspace/train.py", line 88, in step',
             "[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered"]
    findings = pasted_findings(lines, tmp_path, None, None, NOW)
    assert [(f["cause"], f["ranks"]) for f in naming_findings(findings)] == [("cuda-error", [2])], _gist(findings)


@pytest.mark.parametrize("prefix", ["", "[rank0]:", "[default0]:"])
def test_a_serving_engine_s_shm_wait_is_an_info_hang_symptom(tmp_path, prefix):
    findings = pasted_findings([prefix + SHM.format(m=m) for m in range(4, 8)], tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    waits = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings if f["cause"] == "serving-wait"]
    assert waits == [("nccl-hang", "info", "serving-wait", [])], _gist(findings)


def test_the_shm_wait_beside_another_rank_s_cuda_error_keeps_that_rank(tmp_path):
    lines = [SHM.format(m=4), "[rank1]: Traceback (most recent call last):",
             '[rank1]:   File "/usr/lib/python3/site-packages/vllm/worker/worker.py", line 88, in execute_model',
             "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered"]
    findings = pasted_findings(lines, tmp_path, None, None, NOW)
    assert [(f["cause"], f["ranks"]) for f in naming_findings(findings)] == [("cuda-error", [1])], _gist(findings)
    assert not [f for f in findings if f["cause"] == "serving-wait"], _gist(findings)
