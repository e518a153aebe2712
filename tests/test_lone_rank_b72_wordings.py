"""One rank's raised exception shown alone, beside what the log says of the others (issue 18, batch 72: lone-rank
errors, second take).

* **The launcher saw another rank end first** (queries/_incident.sql, ``together``): one rank's own raised exception
  (a ValueError, a KeyError: code every process runs) and another rank's exit its launcher reports first (a status
  only: that rank raised too, unseen), within a second of when the launcher saw it (its first SIGTERM to the others),
  or the exception without a clock of its own: neither is first, no single culprit. A CUDA OOM or CUDA error (the
  rank's own device), or the launcher reporting the exception's own rank, keeps naming that rank.
* **A staging file raced** (``staging_race``, a ``common_mode`` source): the first failure is an exception on a file
  a process writes and then moves — a rename between two paths whose source vanished or whose target already exists
  (``[Errno 2|17|39]: 'a' -> 'b'``), or a temporary file gone (``….tmp…``, ``….incomplete``, ``….partial``): another
  process did the same step first, processes racing on shared storage, no single culprit. A missing data file, a
  directory that exists, a path under ``/tmp/`` keep naming the rank.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.timezone.utc)
AGENT = "torch/distributed/elastic/multiprocessing/api.py"


def _raised(rank: int, error: str, *, stamp: str | None = None) -> list[str]:
    """A ``[rankN]:`` traceback ending in ``error`` (torch 2.x's prefixed output); ``stamp``: kubectl's timestamp."""
    lines = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 88, in <module>',
             "    main()", '  File "/workspace/train.py", line 61, in main', "    run(cfg)", error]
    out = [f"[rank{rank}]:{ln}" if ln.startswith(" ") else f"[rank{rank}]: {ln}" for ln in lines]
    return [f"{stamp} {ln}" for ln in out] if stamp else out


def _agent(rank: int, alive: tuple[int, ...], *, stamp: str | None = None) -> list[str]:
    """torchrun's agent: SIGTERM to the processes still alive, then the exit status of the one it saw end first."""
    lines = ([f"W1130 07:00:20.650000 6004 {AGENT}:897] Sending process {6180 + a} closing signal SIGTERM" for a in alive]
             + [f"E1130 07:00:23.779000 6004 {AGENT}:869] failed (exitcode: 1) local_rank: {rank} (pid: {6180 + rank}) "
                "of binary: /opt/venv/bin/python3"])
    return [f"{stamp} {ln}" for ln in lines] if stamp else lines


VALUE = "ValueError: Template qwen3 does not exist."
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 14.06 GiB. GPU 2 has a total capacity of 79.25 GiB "
       "of which 6.96 GiB is free.")
ENOTEMPTY = "OSError: [Errno 39] Directory not empty: '/out/tmp-checkpoint-x1y2' -> '/out/checkpoint-100'"
ENOENT_RENAME = "FileNotFoundError: [Errno 2] No such file or directory: 'model/tmp-checkpoint-49' -> 'model/checkpoint-49'"
EEXIST_RENAME = "FileExistsError: [Errno 17] File exists: '/out/run.json.tmp' -> '/out/run.json'"
TMP_GONE = ("FileNotFoundError: [Errno 2] No such file or directory: "
            "'/root/.triton/cache/76c5/_kernel.json.tmp.pid_450752_42384ec9'")
INCOMPLETE = ("FileNotFoundError: [Errno 2] Failed to open local file '/cache/json/default/0.0.0/ab57.incomplete/"
              "json-train-00000.arrow'. Detail: [errno 2] No such file or directory")
DATA_GONE = "FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/shard-00002.parquet'"
TMP_DIR = "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/data/train.json'"
MKDIR = "FileExistsError: [Errno 17] File exists: '/scratch/eeg/files/1.0.0/S043'"

#: name -> (log lines, processes per node, the rank named or None)
CASES = {
    # the launcher's first exit is another rank's: neither is first
    "value-rank2-agent-rank0": (_raised(2, VALUE) + _agent(0, (1, 2, 3)), 4, None),
    "value-rank2-agent-rank0-stamped": (_raised(2, VALUE, stamp="2026-11-30T07:00:20.600000000Z")
                                        + _agent(0, (1, 2, 3), stamp="2026-11-30T07:00:20.650000000Z"), 4, None),
    "keyerror-rank3-agent-rank1": (_raised(3, "KeyError: 'labels'") + _agent(1, (0, 2, 3)), 4, None),
    # ... unless the rank's own device failed, or the launcher reports the same rank, or the exception came well before
    "oom-rank2-agent-rank1": (_raised(2, OOM) + _agent(1, (0, 2, 3)), 4, 2),
    "value-rank2-agent-rank2": (_raised(2, VALUE) + _agent(2, (0, 1, 3)), 4, 2),
    "value-rank2-agent-rank0-30s-later": (_raised(2, VALUE, stamp="2026-11-30T06:59:50.100000000Z")
                                          + _agent(0, (1, 2, 3), stamp="2026-11-30T07:00:20.650000000Z"), 4, 2),
    # a staging file raced: no one
    "rename-enotempty-rank3": (_raised(3, ENOTEMPTY), 4, None),
    "rename-enoent-rank1-agent": (_raised(1, ENOENT_RENAME) + _agent(1, (0, 2, 3)), 4, None),
    "rename-eexist-rank2": (_raised(2, EEXIST_RENAME), 4, None),
    "tmp-file-gone-rank0": (_raised(0, TMP_GONE), 4, None),
    "incomplete-gone-rank1": (_raised(1, INCOMPLETE), 4, None),
    # a rank's own missing file, a directory that exists, a path under /tmp/: its rank
    "data-gone-rank2": (_raised(2, DATA_GONE) + _agent(2, (0, 1, 3)), 4, 2),
    "tmp-dir-path-rank1": (_raised(1, TMP_DIR), 4, 1),
    "mkdir-exists-rank3": (_raised(3, MKDIR) + _agent(3, (0, 1, 2)), 4, 3),
}
BATCHED = Batched("lone-rank-b72", sorted(CASES))


def _make(key: str, folder) -> object:
    return pasted(CASES[key][0], folder, CASES[key][1], NOW)


@pytest.mark.parametrize("key", [pytest.param(k, marks=BATCHED.mark(k)) for k in sorted(CASES)])
def test_a_lone_raised_exception_names_its_rank_only_where_nothing_shows_another_first_or_a_race(tmp_path_factory, key):
    want = CASES[key][2]
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, want)
