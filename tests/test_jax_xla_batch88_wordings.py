"""JAX, TPU and PyTorch/XLA launches (issue 18, batch 88): what a spawned process's start-up failure says of the others.

* **torch_xla's mesh master unreachable is the launch's setup** (parsers/log_failures.py ``XLA_MESH_MASTER``,
  queries/_incident_common_mode.sql ``common_mode``): a process ``xmp.spawn`` started prints ``Failed to connect to client mesh
  master: <host>:<port>`` when it cannot reach the mesh service its launcher serves for XRT's rendezvous (an unset
  ``XRT_TPU_CONFIG``, the service never up). Every process connects to that one master: the failure is the launch's,
  and spawn's ``process N terminated with exit code 17`` names whichever child it reaped first, no culprit. The same
  report without that line still names its process (the shape the corpus holds). torch_xla's own progress line while
  it waits (``Waiting to connect to client mesh master (300 seconds) …``) is no failure.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_failures import py_exception
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.timezone.utc)
MESH = "Failed to connect to client mesh master: d7c1c93dfe8c:56419"
WAITING = ("2021-05-17 23:30:00.692445: I    3560 tensorflow/compiler/xla/xla_client/mesh_service.cc:312] "
           "Waiting to connect to client mesh master (300 seconds) b0f6c9bce863:53413")


# ---- parser: the mesh master's connect failure ------------------------------------------------------------------

@pytest.mark.parametrize("tagged", [True, False])
def test_a_process_unable_to_reach_the_mesh_master_is_read_as_its_setup_failure(tagged):
    ev = py_exception(MESH, tagged=tagged)
    assert (ev["kind"], ev["subkind"], ev["error_type"]) == ("python_exception", "raised", "XLA mesh master unreachable")
    assert "d7c1c93dfe8c:56419" in ev["error_message"]


def test_the_wait_for_the_mesh_master_and_other_mentions_are_no_failure():
    assert py_exception(WAITING) is None
    assert py_exception("Failed to connect to client mesh master") is None  # no address: not torch_xla's wording
    assert re.search(PREFILTER_EVENT, MESH) and not re.search(PREFILTER_EVENT, WAITING)


# ---- analysis: who is named ---------------------------------------------------------------------------------------

def _spawn_tail(process: int, code: int = 17) -> list[str]:
    return ["Traceback (most recent call last):",
            '  File "xla_spawn.py", line 69, in main',
            "    xmp.spawn(mod._mp_fn, args=(), nprocs=args.num_cores, start_method='fork')",
            '  File "/usr/lib/python3.8/site-packages/torch/multiprocessing/spawn.py", line 112, in join',
            "    (error_index, exitcode)",
            f"Exception: process {process} terminated with exit code {code}"]


#: name -> (log lines, processes per node, the rank named or None)
CASES = {
    # the mesh master unreachable, then spawn's report of process 3 (or 0): the launch's setup, no one
    "mesh-then-spawn-process3": (["*** End stack trace ***", MESH, *_spawn_tail(3)], 8, None),
    "mesh-then-spawn-process0": ([MESH, *_spawn_tail(0)], 8, None),
    # spawn's report alone (or after the mesh service's own progress line): its process, as before
    "spawn-process3-alone": (_spawn_tail(3), 8, 3),
    "waiting-then-spawn-process3": ([WAITING, *_spawn_tail(3)], 8, 3),
}
BATCHED = Batched("jax-xla-b88", sorted(CASES))


def _make(key: str, folder) -> object:
    return pasted(CASES[key][0], folder, CASES[key][1], NOW)


@pytest.mark.parametrize("key", [pytest.param(k, marks=BATCHED.mark(k)) for k in sorted(CASES)])
def test_spawns_report_names_its_process_unless_the_launch_itself_failed(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), CASES[key][2])
