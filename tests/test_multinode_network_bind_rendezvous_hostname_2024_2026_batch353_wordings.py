"""Multi-node network, bind, rendezvous and hostname failures, 2024-2026 (real incidents batch 353), pinned as read.
Four controls, collected blind, all read right both ways as collected (4/4, none named): the head node's TP1..TP7
``sglang is using nccl`` lines and, 130 s later, ``[... TP7] Scheduler hit an exception: Traceback`` with no exception
body (sgl-project/sglang#3794: a firewall between the two nodes, the author's fix) are nothing; Ray workers on both
nodes warning that ``The IPv6 network addresses of ([2605:...:1540], 59699) cannot be retrieved`` and a py-spy dump idle
in ``_create_c10d_store`` (verl-project/verl#2550: the master's IPv6 literal in brackets, every worker's) are nothing;
``DistNetworkError ... bind to [::]:29500 (errno: 98 - Address already in use)`` (meta-pytorch/torchtune#392: a second
job on torchrun's fixed default port) and a CI test's ``DistNetworkError ... EADDRINUSE`` on port 33649
(vllm-project/vllm-omni#6425: a test-harness port collision) are nothing. No rule changed (measure only).
Contrasts: the sglang paste's ``TP`` tag is a rank, so TP7's traceback ending in a plain ``RuntimeError`` names rank 7
(python-exception, warning), while the same traceback ending ``RuntimeError: NCCL error: unhandled system error`` is an
NCCL failure of no rank; a bind or EADDRINUSE ``DistNetworkError`` stays nobody's even tagged ``[rank1]:`` with the
launcher's ``failed (exitcode: 1) local_rank: 1`` line, where the same frames ending ``ValueError`` name rank 1; a
rank's client-socket timeout to the bracketed IPv6 store beside the workers' warnings names no one; the other node's
warning alone (the master node's copies removed) is still nothing. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 2, 0, tzinfo=dt.timezone.utc)

FIREWALL = corpus_lines("sglang-3794-")
IPV6_BRACKETS = corpus_lines("verl-2550-")
PORT_29500 = corpus_lines("torchtune-392-")
CI_PORT = corpus_lines("vllm-omni-6425-")

#: the launcher's line for local rank 1 exiting with status 1 (torchrun's wording)
LAUNCHER_RANK1 = (
    "E1206 01:00:00.000000 123 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 1 (pid: 4242) of binary: /usr/bin/python3"
)


def _traceback(tag: str, exception: str) -> list[str]:
    """A rank's traceback out of ``init_process_group`` ending in ``exception``, every line tagged ``tag``."""
    return [
        f"{tag}Traceback (most recent call last):",
        f'{tag}  File "train.py", line 10, in <module>',
        f"{tag}    dist.init_process_group('nccl')",
        f"{tag}{exception}",
    ]


#: TP7's traceback body after its ``Scheduler hit an exception`` line: a plain RuntimeError, or NCCL's
FIREWALL_TP7_RUNTIME = FIREWALL + [
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1816, in run_scheduler_process',
    "RuntimeError: boom",
]
FIREWALL_TP7_NCCL = FIREWALL + [
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1816, in run_scheduler_process',
    "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
]
#: the bind failure as rank 1's own traceback, with the launcher's exit line for it
PORT_29500_RANK1 = _traceback("[rank1]: ", PORT_29500[0]) + [LAUNCHER_RANK1]
#: the same frames and exit line ending in a ValueError: rank 1's own failure
VALUE_ERROR_RANK1 = _traceback("[rank1]: ", "ValueError: bad batch") + [LAUNCHER_RANK1]
#: the CI's EADDRINUSE as rank 1's traceback, with the launcher's exit line
CI_PORT_RANK1 = _traceback("[rank1]: ", CI_PORT[0]) + [LAUNCHER_RANK1]
#: a rank's client-socket timeout to the bracketed IPv6 store after the workers' warnings
IPV6_RANK13_TIMEOUT = IPV6_BRACKETS + _traceback(
    "[rank13]: ",
    "torch.distributed.DistNetworkError: The client socket has timed out after 600s while trying to connect to "
    "([2605:340:cd51:4900:73e8:12cb:cfe2:1540], 59699).",
)
#: the other node's worker warning alone (the master node's two copies removed)
IPV6_OTHER_NODE_ONLY = IPV6_BRACKETS[:1] + IPV6_BRACKETS[3:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "firewall-as-pasted": (FIREWALL, None, None, None, None),
    "firewall-two-nodes-of-eight": (FIREWALL, 8, 16, None, None),
    "ipv6-brackets-as-pasted": (IPV6_BRACKETS, None, None, None, None),
    "ipv6-brackets-two-nodes-of-sixteen": (IPV6_BRACKETS, 16, 32, None, None),
    "port-29500-as-pasted": (PORT_29500, None, None, None, None),
    "port-29500-two-ranks": (PORT_29500, 2, 2, None, None),
    "ci-port-as-pasted": (CI_PORT, None, None, None, None),
    "ci-port-two-ranks": (CI_PORT, 2, 2, None, None),
    # contrasts
    "firewall-tp7-runtime-error-names-rank7": (FIREWALL_TP7_RUNTIME, 8, 16, 7, "python-exception"),
    "firewall-tp7-nccl-error-names-none": (FIREWALL_TP7_NCCL, 8, 16, None, None),
    "port-29500-rank1-launcher-names-none": (PORT_29500_RANK1, 2, 2, None, None),
    "value-error-rank1-launcher-names-rank1": (VALUE_ERROR_RANK1, 2, 2, 1, "python-exception"),
    "ci-port-rank1-launcher-names-none": (CI_PORT_RANK1, 2, 2, None, None),
    "ipv6-rank13-client-timeout-names-none": (IPV6_RANK13_TIMEOUT, 16, 32, None, None),
    "ipv6-other-node-only-names-none": (IPV6_OTHER_NODE_ONLY, None, None, None, None),
}
BATCHED = Batched("b353", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_multinode_network_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_the_four_controls_name_no_one(tmp_path):
    """As collected, none of the four pastes gave any finding (not even an info one), as pasted or laid out as the threads
    say. Since session 58 the two rendezvous ports in use are said, naming no rank (rank-failure, warning,
    ``rendezvous-port-in-use``); the unresolvable store address and the scheduler exception with no body stay nothing."""
    port = [("rank-failure", "warning", "rendezvous-port-in-use", [])]
    for i, (lines, nproc, world, want) in enumerate(
        (
            (FIREWALL, None, None, []),
            (FIREWALL, 8, 16, []),
            (IPV6_BRACKETS, None, None, []),
            (PORT_29500, None, None, port),
            (CI_PORT, 2, 2, port),
        )
    ):
        assert _gist(lines, tmp_path / str(i), nproc, world) == want, i


def test_tp7_nccl_error_body_is_an_nccl_failure_of_no_rank(tmp_path):
    """TP7's traceback ending ``RuntimeError: NCCL error: unhandled system error`` is an NCCL failure said at warning
    with no rank (the communicator's set-up, which every rank goes through), where a plain ``RuntimeError`` under the
    same tag names rank 7."""
    assert _gist(FIREWALL_TP7_NCCL, tmp_path / "a", 8, 16) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(FIREWALL_TP7_RUNTIME, tmp_path / "b", 8, 16) == [("rank-failure", "warning", "python-exception", [7])]


def test_bind_failure_with_launcher_exit_is_not_rank1s(tmp_path):
    """Rank 1's ``DistNetworkError`` (port in use) with the launcher's ``failed (exitcode: 1) local_rank: 1`` line names
    no rank (since session 58 the port in use is said at info: a rank raised); the same frames and exit line ending in a
    ``ValueError`` are rank 1's python-exception (warning)."""
    assert _gist(PORT_29500_RANK1, tmp_path / "a", 2, 2) == [("rank-failure", "info", "rendezvous-port-in-use", [])]
    assert _gist(VALUE_ERROR_RANK1, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "python-exception", [1])]
