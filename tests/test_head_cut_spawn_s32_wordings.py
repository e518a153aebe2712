"""A log that begins at a victim's error line, its traceback cut above, is cut at its head mid-incident too (session 32
leftovers; real incidents Cooperitive-Students/2PCNet#3: detectron2's mp.spawn, the paste's first line gloo's
``RuntimeError: [...pair.cc:598] Connection closed by peer [127.0.1.1]:13204``, then the parent's
``ProcessRaisedException`` with ``-- Process 1 terminated with the following error:`` whose record is cut before its
error text). Process 1 is known only by spawn's report, and the lines above the cut may have held its error or an
earlier failure: no rank is named (parsers/log_head.py ``error``; queries/_incident.sql ``head_cut``; docs/rules.md,
"Session 22: head-cut logs" and "Session 32: leftovers"). Contrasts keep naming process 1: its record holds its own
error; the log begins with the spawn parent's exception (no victim's error first); the log begins with the run's
own lines; the first line is an error that is no teardown. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_head import head_kind

NOW = dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.timezone.utc)
CLOSED = ("RuntimeError: [/opt/conda/conda-bld/pytorch_1639180544224/work/third_party/gloo/gloo/transport/tcp/pair.cc:598] "
          "Connection closed by peer [127.0.1.1]:13204")
RESET = ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:136] Connection reset by peer "
         "[10.1.2.3]:27421")
SPAWN = "/opt/conda/lib/python3.8/site-packages/torch/multiprocessing/spawn.py"
PARENT = ["Traceback (most recent call last):", '  File "train_net.py", line 82, in <module>', "    launch(",
          '  File "/src/detectron2/engine/launch.py", line 69, in launch', "    mp.start_processes(",
          f'  File "{SPAWN}", line 188, in start_processes', "    while not context.join():",
          f'  File "{SPAWN}", line 150, in join', "    raise ProcessRaisedException(msg, error_index, failed_process.pid)",
          "torch.multiprocessing.spawn.ProcessRaisedException: ", ""]


def _record(n: int = 1, error: str | None = None) -> list[str]:
    """spawn's report of process ``n``: its traceback, cut before its error text unless ``error`` is given."""
    return [f"-- Process {n} terminated with the following error:", "Traceback (most recent call last):",
            f'  File "{SPAWN}", line 59, in _wrap', "    fn(i, *args)",
            '  File "/src/detectron2/engine/launch.py", line 123, in _distributed_worker', "    main_func(*args)",
            *([error] if error else [])]


def _torchrun(local: int = 2) -> list[str]:
    agent = "torch/distributed/elastic/multiprocessing/api.py"
    return [f"W1201 16:59:58.650000 6004 {agent}:897] Sending process 6180 closing signal SIGTERM",
            f"E1201 16:59:58.779000 6004 {agent}:869] failed (exitcode: 1) local_rank: {local} (pid: 6182) of binary: "
            "/opt/venv/bin/python3"]


START = ["[12/01 16:58:01 d2.engine.train_loop]: Starting training from iteration 0",
         "Traceback (most recent call last):", '  File "/src/detectron2/engine/train_loop.py", line 149, in train',
         "    self.run_step()"]

#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # Cooperitive-Students-3's wording: a victim's gloo error first, spawn's record cut before its error
    "closed-spawn-cut": ([CLOSED, *PARENT, *_record(1)], None),
    "reset-spawn-cut": ([RESET, *PARENT, *_record(3)], None),
    # torch >= 2's tagged teardown line and the record of process 0 (rank 1 not seen: it may have failed first)
    "tagged-closed-spawn-cut": (["[rank2]: " + CLOSED, *PARENT, *_record(0)], None),
    # torchrun's report in a log that begins at a victim's error line alike
    "closed-torchrun-report": ([CLOSED, *_torchrun(2)], None),
    # contrasts: the record holds the process's own error ...
    "closed-spawn-own-error": ([CLOSED, *PARENT, *_record(1, "ValueError: image 17 has no annotations")], 1),
    # ... the log begins with the spawn parent's exception, no victim's error first ...
    "parent-first-spawn-cut": ([*PARENT, *_record(1)], 1),
    # ... the same error and report below the run's own lines ...
    "startup-closed-spawn-cut": ([*START, CLOSED, *PARENT, *_record(1)], 1),
    # ... every other rank of the job seen torn down (the one rank left failed first, whatever the cut hid) ...
    "tagged-closed-one-rank-left": (["[rank1]: " + CLOSED, *PARENT, *_record(0)], 0),
    # ... the log's first line an error that is no teardown (its process is the one reported)
    "own-error-first-spawn-cut": (["KeyError: 'annotations'", *PARENT, *_record(1)], 1),
}
BATCHED = Batched("s32spawn", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_spawn_report_in_a_log_that_begins_at_a_victims_error_names_no_one(key, tmp_path_factory):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), CASES[key][1])


@pytest.mark.parametrize("lines,kind", [
    ([CLOSED], "error"),
    (["[rank1]: " + CLOSED], "error"),
    (["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275"], "error"),
    (["ray.exceptions.RayTaskError(TypeError): ray::run() (pid=4153477, ip=10.0.0.1)"], "error"),
    # the launcher's own report, not a cut inside the incident
    (["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "], None),
    (["RuntimeError"], None),
    (["Error: see the log above"], None),
])
def test_head_kind_reads_an_exception_line_first(lines, kind):
    assert head_kind(lines) == kind
