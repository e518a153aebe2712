"""Session 30, batch 124 (JIT builds, kernel caches and file locks): DeepSpeed's launcher counts a node's processes.

``deepspeed``'s launch.py tears its node down with one ``[launch.py:NNN:sigkill_handler] Killing subprocess <pid>`` line per
local process, then names the command it noticed failing (``['…', '--local_rank=1', …] exits with return code = 1``). A
paste that shows only that teardown and an untagged traceback (a fused_adam build failing in a toolchain every process
shares, the waiter's ``ImportError: …fused_adam.so: cannot open shared object file``) ran as many processes as the
teardown names; imported without options it was one process, whose exception was then rank 0's, a false culprit. The
distinct pids of one teardown now count the node's processes, as torchrun's ``Sending process N closing signal`` lines
do (docs/parsers-logs.md, "Session 30: batch 124"); parser level. And a compile temporary gone stays common mode
when an editor turned the path's quotes into ‘ ’ (docs/rules.md, "Session 30: batch 124"; two small analyses).
"""

from __future__ import annotations

import pytest

from k10s_forensics.logimport import LogSource
from k10s_forensics.parsers.log_layout import infer_layout

KILL = "[2023-12-31 16:34:44,{ms:03d}] [INFO] [launch.py:315:sigkill_handler] Killing subprocess {pid}"
EXIT = ("[2023-12-31 16:34:44,517] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
        "'--local_rank=1', '--deepspeed_config', 'ds_config.json'] exits with return code = 1")
TAIL = "ImportError: /root/.cache/torch_extensions/py39_cu121/fused_adam/fused_adam.so: cannot open shared object file"


def _layout(*lines: str):
    layout = infer_layout([LogSource("log.txt", "\n".join(lines) + "\n")])
    return layout.nproc_per_node, layout.world_size, layout.hints["nproc_per_node"]


@pytest.mark.parametrize(("pids", "nproc"), [
    ((1589354, 1589355), 2),
    ((4101, 4102, 4103, 4104, 4105, 4106, 4107, 4108), 8),
    ((4101, 4101), 1),  # one process named twice is one process
])
def test_a_teardown_s_distinct_pids_count_the_node_s_processes(pids, nproc):
    lines = [TAIL] + [KILL.format(ms=479 + i, pid=p) for i, p in enumerate(pids)] + [EXIT]
    got = _layout(*lines)
    assert got[:2] == (nproc, nproc)
    assert (got[2] == "processes the launcher names") == (nproc > 1)


def test_masked_pids_are_still_processes():
    """A user who masked the pids (``xxxxxx``) still shows two processes torn down."""
    assert _layout(TAIL, KILL.format(ms=479, pid="xxxxxx"), KILL.format(ms=480, pid="xxxxxx"), EXIT)[:2] == (2, 2)


def test_two_teardowns_apart_are_counted_each_on_its_own():
    """A rerun's teardown further down names new pids: the node ran two processes, not four."""
    first = [KILL.format(ms=479, pid=101), KILL.format(ms=480, pid=102), EXIT]
    rerun = [KILL.format(ms=481, pid=201), KILL.format(ms=482, pid=202), EXIT]
    assert _layout(*first, "Traceback (most recent call last):", '  File "train.py", line 1, in <module>',
                   "    main()", TAIL, *rerun)[:2] == (2, 2)


def test_a_stated_count_still_wins():
    """``num_local_procs=4`` (DeepSpeed's own WORLD INFO line) is the node's count, whatever the teardown shows."""
    stated = "[2023-12-31 16:34:02,409] [INFO] [launch.py:151:main] nnodes=1, num_local_procs=4, node_rank=0"
    assert _layout(stated, TAIL, KILL.format(ms=479, pid=11), KILL.format(ms=480, pid=12), EXIT)[:2] == (4, 4)


RACE = ("[rank60]: FileNotFoundError: [Errno 2] No such file or directory: {q0}/tmp/torchinductor_u/triton/4/5eba8/"
        "triton_.cubin.tmp.pid_93828_100098{q1}")


@pytest.mark.parametrize(("q0", "q1"), [("'", "'"), ("\u2018", "\u2019")])
def test_a_compile_temporary_gone_is_common_mode_in_an_editor_s_quotes_too(tmp_path, q0, q1):
    """A lone rank's compile temporary (`….tmp.pid_N_…`) gone is a race every process runs (staging_race), also when the
    paste went through a rich-text editor that turned the quotes into ‘ ’ (queries/_incident.sql)."""
    import datetime as dt

    from incident_kit import named_in_paste

    now = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    assert named_in_paste(tmp_path, RACE.format(q0=q0, q1=q1) + "\n", 8, 64, now) == []
