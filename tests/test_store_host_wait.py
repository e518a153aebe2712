"""Session 20's general fixes (docs/rules.md, "Session 20: general fixes"): a store host's "J/M clients joined" wait
and a gloo key wait on the store host name no rank the logs cannot identify (never the host), and a warning raised as
an error ends its traceback as the rank's own exception. Wordings as the twentieth and nineteenth recorded sets show
them (tests/data/torch-runs, ``t20-*``, ``t19-trun-2x2-warn-error-one-node``)."""

from __future__ import annotations

import re

import pytest

from k10s_forensics.parsers.log_failures import py_exception
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT
from test_rank_failure_fourth_set import findings

HOST = "torch.distributed.DistStoreError: Timed out after {s} seconds waiting for clients. {j}/{m} clients joined."
KEY0 = "torch.distributed.DistStoreError: wait timeout after 20000ms, keys: /default_pg/0//cpu//0/0"
TB = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 118, in main',
      "    torch.distributed.init_process_group(backend, rank=global_rank, world_size=world_size)"]
ELASTIC = "E1130 10:48:40.511000 3284 torch/distributed/elastic/multiprocessing/api.py:1002] "


@pytest.mark.parametrize("line, name, message", [
    ("UserWarning: the eval set has 17 samples, not a multiple of the batch size 4", "UserWarning", "the eval set has 17 samples"),
    ("DeprecationWarning: `foo` is deprecated", "DeprecationWarning", "`foo` is deprecated"),
    ("FutureWarning: You are using `torch.load` with `weights_only=False`", "FutureWarning", "You are using"),
    ("torch.jit.TracerWarning: Converting a tensor to a Python boolean", "torch.jit.TracerWarning", "Converting a tensor"),
], ids=["user", "deprecation", "future", "dotted"])
def test_a_warning_raised_as_an_error_is_the_rank_s_own_exception(line, name, message):
    ev = py_exception(line)
    assert ev is not None and (ev["kind"], ev["subkind"], ev["error_type"]) == ("python_exception", "raised", name), ev
    assert ev["error_message"].startswith(message)


@pytest.mark.parametrize("line", [
    "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:83: FutureWarning: `x` is deprecated",
    "Warning: Grad strides do not match bucket view strides",
    "UserWarning",
    "UserWarning:",
], ids=["printed-with-its-file", "bare-warning", "no-message", "empty-message"])
def test_a_warning_only_printed_is_no_exception(line):
    assert py_exception(line) is None


@pytest.mark.parametrize("line, passes", [
    ("[rank3]: UserWarning: the eval set has 17 samples", True),
    ("UserWarning: the eval set has 17 samples", True),
    ("2026-11-30T09:58:19.550185000Z DeprecationWarning: `foo` is deprecated", True),
    ("(RayTrainWorker pid=812) UserWarning: the eval set has 17 samples", True),
    ("/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:83: FutureWarning: `x` is deprecated", False),
], ids=["rank-tag", "bare", "timestamp", "ray-prefix", "printed-with-its-file"])
def test_the_prefilter_passes_a_raised_warning_not_a_printed_one(line, passes):
    assert bool(re.search(PREFILTER_EVENT, line)) is passes


def test_a_store_host_s_count_names_the_ranks_that_never_announced_never_the_host(tmp_path):
    """Lightning 2 x 2, ranks 1 and 3 late: rank 0 hosts the store and times out ("2/4 clients joined"); rank 2, a
    client, times out on rank 0's gloo address, which rank 0 never wrote (it was still waiting): 1 and 3 are named."""
    lines = ["Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4", *TB, HOST.format(s=21, j=2, m=4),
             "Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/4", *TB, KEY0]
    got = findings(tmp_path, lines)
    assert got and all(f[2] == [1, 3] and f[3] == "never-joined" for f in got), got


def test_a_gloo_key_wait_on_rank_0_outside_an_agent_names_no_one(tmp_path):
    """mp.spawn on tcp:// init, ranks 1 and 3 late: process 2 timed out on rank 0's key, but rank 0 hosts the store
    and waits for every client before it writes its key: no rank is proven absent (rank 0 least of all)."""
    lines = ["-- Process 2 terminated with the following error:", *TB, KEY0]
    assert findings(tmp_path, lines) == []


def test_a_gloo_key_wait_on_rank_0_under_an_elastic_agent_names_it(tmp_path):
    """Under torchrun the ranks share the agent's store, which rank 0 does not host: its missing key is its absence."""
    lines = [*(f"[rank1]:{t}" for t in TB), f"[rank1]: {KEY0}",
             ELASTIC + "failed (exitcode: 1) local_rank: 1 (pid: 3367) of binary: /opt/venv/bin/python3"]
    got = findings(tmp_path, lines)
    assert got and all(f[2] == [0] and f[3] == "never-joined" for f in got), got
