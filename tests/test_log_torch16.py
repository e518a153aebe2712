"""What the sixteenth set of real launcher runs (tests/data/torch-runs, ``t16-*``) brought: a ``TimeoutError`` with no
message is the program's own bounded wait (``concurrent.futures``' ``result(timeout=…)``, ``asyncio.wait_for``, a pool's
``get(timeout=…)``), the rank's own failure, not a peer's teardown (k10s_forensics/parsers/log_failures.py
``_own_bare_timeout``): the rank that raised it is named, and a caught, printed one is no teardown in a clean run."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_failures import py_exception


@pytest.mark.parametrize("line", [
    "TimeoutError",  # Python 3.11+: concurrent.futures / asyncio raise the builtin, as recorded (t16-trun-user-timeout-error-rank3)
    "TimeoutError:",
    "concurrent.futures._base.TimeoutError",  # Python <= 3.10's concurrent.futures
    "asyncio.exceptions.TimeoutError",  # Python <= 3.10's asyncio.wait_for
    "multiprocessing.context.TimeoutError",  # a multiprocessing pool's AsyncResult.get(timeout=…)
], ids=["builtin", "builtin-colon", "futures", "asyncio", "multiprocessing"])
def test_a_bare_timeout_error_is_the_rank_s_own(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "raised" and ev["error_type"] == line.rstrip(":"), ev


@pytest.mark.parametrize("line", [
    # timeouts that say what they waited for: a peer's, the group's or the launcher's
    "TimeoutError: Timed out waiting for etcd server to be ready!",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 3000ms for send operation to complete",
    "torch.distributed.DistStoreError: wait timeout after 6000ms, keys: /default_pg/0//cpu//0/3",
    "TimeoutError: Socket Timeout",
], ids=["etcd", "gloo", "store-key", "socket"])
def test_a_timeout_that_names_its_wait_stays_a_teardown(line):
    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == "teardown", ev
