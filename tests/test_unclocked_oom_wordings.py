"""An untagged failure in a paste without any clock (real incidents batch 22, sssegmentation-47):
the CUDA out-of-memory (or raised exception) a worker printed without a ``[rankN]:`` tag, then the
elastic agent's ``failed (exitcode: 1) local_rank: N`` below it in the same log. With times, the
agent's report within 90 s names the process (queries/_views.sql, ``oom_hint``); with neither line
timed, the first such report below it in the same log body (within 300 lines) does the same, so the
rank is named with the failure's own cause, not only with the agent's exit status.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import named_in_paste

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
AGENT = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: {code}) local_rank: {local} (pid: 1484168) of binary: /usr/bin/python"
SIGTERM = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process {pid} closing signal SIGTERM"
OOM_LEGACY = ("RuntimeError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0; 10.76 GiB total capacity; 2.12 GiB already "
              "allocated; 38.44 MiB free; 2.17 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try "
              "setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
OOM_NEW = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.33 GiB of "
           "which 49.81 MiB is free. Including non-PyTorch memory, this process has 79.27 GiB memory in use.")
OOM_CUDA = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 23.65 GiB total capacity; 22.80 GiB already allocated; 3.06 MiB free; 23.02 GiB reserved in total by PyTorch)"
TRACE = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "    main()"]


def _paste(failure: list[str], local: int, others: list[int], code: int = 1) -> str:
    teardown = [SIGTERM.format(pid=1484200 + r) for r in others]
    return "\n".join([*failure, *teardown, AGENT.format(code=code, local=local)]) + "\n"


def _named(tmp_path, text: str, nproc: int = 2):
    return named_in_paste(tmp_path, text, nproc, nproc, NOW)


@pytest.mark.parametrize(("failure", "local", "nproc"), [
    ([*TRACE, OOM_LEGACY], 0, 2),
    ([OOM_LEGACY], 0, 2),
    ([*TRACE, OOM_NEW], 1, 2),  # the allocator's GPU index is no rank: the agent's local rank is
    ([*TRACE, OOM_CUDA], 3, 4),
    ([*TRACE, OOM_LEGACY, "", "During handling of the above exception, another exception occurred:"], 2, 4),
])
def test_the_agents_local_rank_below_names_the_oom(tmp_path, failure, local, nproc):
    others = [r for r in range(nproc) if r != local]
    assert _named(tmp_path, _paste(failure, local, others), nproc) == [("oom-cascade", "cuda-oom", [local])]


def test_an_untagged_exception_is_the_reported_process_s(tmp_path):
    text = _paste([*TRACE, "ValueError: num_classes must be 21, got 19"], 1, [0])
    assert _named(tmp_path, text) == [("rank-failure", "python-exception", [1])]


def test_a_report_above_the_oom_is_not_its(tmp_path):
    """The agent's report printed before the OOM is another failure's: the OOM stays unplaced."""
    text = "\n".join([AGENT.format(code=1, local=1), *TRACE, OOM_LEGACY]) + "\n"
    assert ("oom-cascade", "cuda-oom", [1]) not in _named(tmp_path, text)


def test_a_report_far_below_is_not_its(tmp_path):
    """More than 300 lines below the OOM: another body of the paste, not this failure's report."""
    text = "\n".join([*TRACE, OOM_LEGACY, *(f"step {i}" for i in range(400)), AGENT.format(code=1, local=1)]) + "\n"
    assert ("oom-cascade", "cuda-oom", [1]) not in _named(tmp_path, text)


def test_a_torn_down_report_names_no_oom(tmp_path):
    """The agent's SIGTERM victims (exit -15) are not the OOM's process."""
    text = "\n".join([*TRACE, OOM_LEGACY, AGENT.format(code=-15, local=1)]) + "\n"
    assert ("oom-cascade", "cuda-oom", [1]) not in _named(tmp_path, text)
