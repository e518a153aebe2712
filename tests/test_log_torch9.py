"""Wordings the ninth set of real launcher runs (tests/data/torch-runs, ``t9-*``) brought: a prefix of the
user's own before torch's ``[rankN]:`` tag (torchrun's ``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``), Python's
report of an exception it ignored (``Exception ignored in …``: a ``__del__``, an ``atexit`` callback) after a
clean finish, and a thread's exception printed without a rank tag in a pod whose other rank printed its own."""

from __future__ import annotations

import datetime as dt

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 11, 29, 5, 30, tzinfo=dt.timezone.utc)
GLOO_CLOSED = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
               "[127.0.0.1]:13195. This is typically caused by a remote worker crashing.")


@pytest.mark.parametrize("line, text, rank", [
    ("[trainer2|0]:[rank2]: KeyError: 'labels'", "KeyError: 'labels'", 2),  # [${role_name}${rank}|${local_rank}]:
    ("default-1> [rank3]: KeyError: 'labels'", "KeyError: 'labels'", 3),  # ${role_name}-${local_rank}>
    ("2026-11-29T05:23:38Z trainer-1> [rank3]: ValueError: x", "ValueError: x", 3),
    ("[rank1]: ValueError: y", "ValueError: y", 1),
    # a sentence that mentions a rank tag is no prefix
    ("Sending to [rank3]: hello", "Sending to [rank3]: hello", None),
    ("error in step 4 [rank3]: x", "error in step 4 [rank3]: x", None),
    ("trainer-1> step 3 loss 0.1", "trainer-1> step 3 loss 0.1", None),
])
def test_a_custom_prefix_before_the_rank_tag(line, text, rank):
    norm = normalize(line)
    assert (norm.text, norm.rank) == (text, rank)


def _findings(tmp_path, logs: list[str]) -> list[tuple]:
    sources = [LogSource(f"node{i}.log", "\n".join(lines) + "\n") for i, lines in enumerate(logs)]
    bundle, _ = import_logs(sources, tmp_path / "b", now=NOW)
    return [(f["rule"], f["severity"], f["ranks"], f["cause"]) for f in analyze(bundle)["findings"]
            if f["severity"] in ("critical", "warning") and f["ranks"]]


def _ignored(prefix: str) -> list[str]:
    """Python's reports of exceptions it ignored at exit (a ``__del__``, an ``atexit`` callback)."""
    return [f"{prefix}Exception ignored in: <function _Handle.__del__ at 0x7f02fe974a40>",
            f"{prefix}Traceback (most recent call last):",
            f'{prefix}  File "/workspace/train.py", line 63, in __del__',
            f'{prefix}    raise RuntimeError("metrics handle already closed")',
            f"{prefix}RuntimeError: metrics handle already closed",
            f"{prefix}Exception ignored in atexit callback: <function _flush_metrics at 0x7f031d554860>",
            f"{prefix}Traceback (most recent call last):",
            f'{prefix}  File "/workspace/train.py", line 67, in _flush_metrics',
            f'{prefix}    raise ConnectionError("metrics sink at 127.0.0.1:9125 unreachable")',
            f"{prefix}ConnectionError: metrics sink at 127.0.0.1:9125 unreachable"]


@pytest.mark.parametrize("prefix", ["[default1]:", "[rank1]:", ""])
def test_exceptions_python_ignored_name_no_one(tmp_path, prefix):
    """A clean run (every rank done, exit status 0) whose rank 1 printed ignored exceptions at exit."""
    node = ["[default0]:step 5 loss 0.0002", "[default0]:rank 0 done", "[default1]:rank 1 done", *_ignored(prefix)]
    assert _findings(tmp_path, [node]) == []


def test_a_failure_after_an_ignored_exception_is_still_named(tmp_path):
    node = ["[default1]:rank 1 done", *_ignored("[default1]:"),
            "[default0]:[rank0]: Traceback (most recent call last):",
            '[default0]:[rank0]:   File "/workspace/train.py", line 115, in _fault',
            "[default0]:[rank0]: KeyError: 'labels'"]
    named = _findings(tmp_path, [node])
    assert named and all(r == [0] for _, _, r, _ in named), named
    # warning: rank 1's lines here are no events (its exceptions ignored at exit, a plain print), so the analysis sees
    # a paste of rank 0's lines only, where an exception may be every rank's (docs/rules.md, "What a paste cannot prove")
    assert ("rank-failure", "warning", [0], "python-exception") in named


def _table(entries: list[tuple[int, int, int, int]]) -> list[str]:
    """torchrun's failure table: (rank, local rank, exit code, pid); the last entry is the root cause."""
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60, "Failures:"]
    for i, (rank, local, code, pid) in enumerate(entries):
        if i == len(entries) - 1:
            out += ["-" * 60, "Root Cause (first observed failure):"]
        sig = "  (SIGTERM)" if code == -15 else ""
        out += [f"[{i if i < len(entries) - 1 else 0}]:", "  time      : 2026-11-29_05:33:19", "  host      : localhost",
                f"  rank      : {rank} (local_rank: {local})", f"  exitcode  : {code} (pid: {pid}){sig}", "  error_file: <N/A>"]
    return [*out, "=" * 60]


def _timeout(rank: int) -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):", f'[rank{rank}]:   File "/workspace/train.py", line 190, in train',
            f"[rank{rank}]:     dist.all_reduce(p.grad)",
            f"[rank{rank}]: RuntimeError: [../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete"]


NODE0 = [*_timeout(0), *_timeout(1),
         "E1129 05:33:19.578000 7095 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
         "local_rank: 0 (pid: 7246) of binary: /opt/venv/bin/python3", *_table([(1, 1, 1, 7247), (0, 0, 1, 7246)])]


def test_a_threads_untagged_exception_is_the_pod_mate_without_its_own(tmp_path):
    """Rank 2's prefetch thread raised (threading's excepthook prints no [rank2]: tag) and its main thread waited
    forever; rank 3 timed out with its own tagged error and exited first (status 1), so torchrun's report points at
    rank 3 right after the untagged KeyError: rank 2 is named, not rank 3."""
    node1 = ["Exception in thread prefetch:", "Traceback (most recent call last):",
             '  File "/workspace/train.py", line 96, in prefetch', '    batches.put(shard["train-00007"])', "KeyError: 'train-00007'",
             *_timeout(3),
             "W1129 05:33:19.445000 7096 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 7248 closing signal SIGTERM",
             "E1129 05:33:19.578000 7096 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
             "local_rank: 1 (pid: 7249) of binary: /opt/venv/bin/python3", *_table([(2, 0, -15, 7248), (3, 1, 1, 7249)])]
    named = _findings(tmp_path, [NODE0, node1])
    assert ("rank-failure", "critical", [2], "python-exception") in named, named
    assert all(r == [2] for _, _, r, _ in named), named


def test_an_untagged_exception_of_the_reported_process_stays_its(tmp_path):
    """The untagged exception of a rank that raised before torch tagged its lines (before init_process_group):
    torchrun's report right after it names that rank, which printed nothing tagged."""
    node1 = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 12, in <module>',
             "ValueError: malformed device list '0,1,gpu2'",
             "E1129 05:33:19.578000 7096 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
             "local_rank: 1 (pid: 7249) of binary: /opt/venv/bin/python3", *_timeout(2), *_table([(2, 0, 1, 7248), (3, 1, 1, 7249)])]
    named = _findings(tmp_path, [NODE0, node1])
    assert named and all(r == [3] for _, _, r, _ in named), named
    assert any(rule == "rank-failure" and cause == "python-exception" for rule, _, _, cause in named), named
