"""What the twelfth set of real launcher runs (tests/data/torch-runs, ``t12-*``) brought: a c10d store wait that
timed out on a key of the program's own (a user ``TCPStore``'s ``store.wait([...])``) is the rank's own failure,
not a peer's teardown; a wait on a key a peer, the process group or the elastic agent sets stays a teardown (the
waiter is a victim of whoever never set it) (k10s_forensics/parsers/log_failures.py)."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_failures import py_exception


@pytest.mark.parametrize("line", [
    "torch.distributed.DistStoreError: wait timeout after 2000ms, keys: /user/ready-103",  # the recording's
    "torch.distributed.DistStoreError: wait timeout after 30000 ms, keys: /ckpt/step-400/done",
    "torch.distributed.DistStoreError: wait timeout after 600000ms, keys: /eval/rank0_done, /eval/rank1_done",
    "DistStoreError: wait timeout after 5000ms, keys: data_ready_epoch_3",
], ids=["user-prefix", "spaced-ms", "two-keys", "bare-key"])
def test_a_wait_on_the_program_s_own_store_key_is_the_rank_s_failure(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "raised", ev


@pytest.mark.parametrize("line", [
    "torch.distributed.DistStoreError: wait timeout after 3000ms, keys: /default_pg/0//cpu//0/2",  # gloo's full mesh
    "torch.distributed.DistStoreError: wait timeout after 1800000ms, keys: /default_pg/0//cuda//0/7",
    "torch.distributed.DistStoreError: wait timeout after 6000ms, keys: /1/0//cpu//0/3",  # a numbered sub-group
    "torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /torch.rendezvous.job-1.1/torchelastic/role_info/0,",
    "torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /torch.rendezvous.job-1.1/MASTER_ADDR",
    "torch.distributed.DistStoreError: wait timeout after 1800000ms, keys: store_based_barrier_key:1",
    "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
], ids=["gloo-mesh", "cuda-mesh", "subgroup", "agent-role-info", "agent-master-addr", "store-barrier", "clients-joined"])
def test_a_wait_on_a_peer_s_group_or_agent_key_stays_a_teardown(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "teardown", ev
