"""Real incidents batch 46 (docs/rules.md, "Real incidents batch 46"), each wording a case.

* torch's own NCCL check (torch/csrc/cuda/nccl.cpp: ``NCCL Error 2: unhandled system error``, the error's number
  before NCCL's string) is an NCCL library error like ``NCCL error: unhandled system error``
  (parsers/log_comm_lines.py): ``ncclSystemError``, ``ncclUnhandledCudaError``, ... by its words.
* One rank's NCCL library error (no clock of its own, or within a second) beside another rank's exit its launcher
  reports (a status only): the launcher's order and the paste's disagree, and the error is of the setup every rank
  shares: no rank is named (queries/_incident.sql, ``together``). A rank's own raised exception beside another
  rank's launcher-reported exit names no rank either since session 25 (batch 72: the launcher saw the other rank end
  first, that rank's own error unseen); a rank's own CUDA OOM (its device), an NCCL error the launcher's report names
  the same rank for, or one a clock proves earlier, still names its rank.

The inputs that must be analysed are read in one analysis (``_findings``: their bundles merged, tests/bundle_batch.py).
"""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_comm_lines import nccl_other
from torch_runs_kit import CAPTURED, named


@pytest.mark.parametrize(("line", "name"), [
    ("[rank0]: RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)", "ncclSystemError"),
    ("RuntimeError: NCCL Error 2: unhandled system error", "ncclSystemError"),
    ("RuntimeError: NCCL Error 1: unhandled cuda error", "ncclUnhandledCudaError"),
    ("[rank3]: RuntimeError: NCCL Error 3: internal error - please report this issue to the NCCL developers", "ncclInternalError"),
    ("RuntimeError: NCCL Error 5: invalid usage (run with NCCL_DEBUG=WARN for details)", "ncclInvalidUsage"),
    ("RuntimeError: NCCL Error 4: invalid argument", "ncclInvalidArgument"),
])
def test_torch_nccl_check_words_name_the_error(line, name):
    assert nccl_other(line) == {"kind": "nccl_error_other", "subkind": name}


@pytest.mark.parametrize("line", [
    "NCCL Error handling was improved in this release",  # no number, no NCCL string
    "RuntimeError: NCCL Error 2: the store timed out",  # not one of NCCL's strings
    "RuntimeError: CUDA Error 2: out of memory",
])
def test_other_error_numbers_are_no_nccl_error(line):
    assert nccl_other(line) is None


_AGENT = "torch/distributed/elastic/multiprocessing/api.py"


def _tail(rank: int, error: str, stamp: str = "") -> str:
    """Rank ``rank``'s traceback tail inside an all-to-all, ending in ``error``."""
    lines = ["    dist.all_to_all_single(output, input_t, group=group)",
             '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 3770, in all_to_all_single',
             "    work = group.alltoall_base(", error]
    return "".join(f"{stamp}[rank{rank}]: {ln}\n" for ln in lines)


def _agent(failed: int, other_pid: int, at: str = "08:26:06") -> str:
    return (f"W1211 {at}.780000 139773546530624 {_AGENT}:858] Sending process {other_pid} closing signal SIGTERM\n"
            f"E1211 {at}.844000 139773546530624 {_AGENT}:833] failed (exitcode: 1) local_rank: {failed} (pid: {6832 + failed}) "
            "of binary: /opt/conda/bin/python\n")


_SYS = "RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)"
_CUDA = "RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
_OWN = "ValueError: attention mask shape (4, 128) does not match (4, 256)"
_OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB"


def _inputs() -> list[str]:
    return [_tail(0, _SYS) + _agent(1, 6832),  # HunyuanVideo#114's shape: rank 0's error, the agent's local rank 1
            _tail(1, _SYS) + _agent(0, 6833),  # the same, ranks swapped
            _tail(0, _CUDA) + _agent(1, 6832),  # another NCCL string
            _tail(0, _SYS) + _agent(0, 6833),  # the agent reports the same rank: it is named
            _tail(0, _OWN) + _agent(1, 6832),  # a rank's own raised exception beside the other's first exit: no one
            # a clock of its own, ten seconds before the agent's report: the NCCL error was first
            _tail(0, _SYS, "2024-12-11T08:25:56.100000Z ") + "".join(
                "2024-12-11T08:26:06.900000Z " + ln + "\n" for ln in _agent(1, 6832).splitlines()),
            _tail(0, _OOM) + _agent(1, 6832)]  # a rank's own CUDA OOM (its device) outranks the other's exit status: named


@pytest.fixture(scope="module")
def _findings(tmp_path_factory) -> list[list[dict]]:
    tmp = tmp_path_factory.mktemp("nccl_error_code")
    bundles = [import_logs([LogSource("log.txt", text)], tmp / str(i), job="train", namespace="team-a", now=CAPTURED,
                           nproc_per_node=2, world_size=2, derive=False)[0]
               for i, text in enumerate(_inputs())]
    from k10s_forensics.analyze.runner import analyze

    found = analyze(merge(bundles, tmp / "merged"))["findings"]
    return [findings_of(found, i) for i in range(len(bundles))]


def test_an_nccl_error_beside_another_ranks_launcher_exit_names_no_rank(_findings):
    """Rank 0's (or 1's) NCCL error without a clock, the agent's first failure the other rank's exit 1: no rank named."""
    for i in (0, 1, 2):
        assert named(_findings[i]) == [], i


def test_a_raised_exception_beside_another_ranks_launcher_exit_names_no_rank(_findings):
    """Rank 0's own ValueError, the agent's first failure rank 1's exit 1: the other rank ended first, unseen (batch 72)."""
    assert named(_findings[4]) == []


def test_the_same_rank_an_own_exception_or_a_clock_still_names_a_rank(_findings):
    assert named(_findings[3]) == [("nccl-error", [0])]
    assert named(_findings[5]) == [("nccl-error", [0])]
    assert named(_findings[6]) == [("cuda-oom", [0])]
