"""One rank's ``CUDA error: invalid device ordinal`` shown alone (issue 18, batch 66: the lone-rank family).

A process selecting a GPU index past those it sees (``torch.cuda.set_device(local_rank)`` with more processes than
GPUs) fails the same way in every local rank at or above the node's GPU count. One rank's copy of the error is that
rank's own failure only where it is its node's last local rank of a known process count (two processes, one GPU: rank
1 fails, rank 0 carries on); a lower local rank (the ranks above it failing alike, unseen), or a node whose process
count import-logs built from the highest rank the log names (pod label ``k10s.io/imported-nproc: guessed``,
parsers/log_nproc_guess.py) is every such process alike: no single culprit (queries/_incident_common_mode.sql, ``ordinal_alike``).
Another CUDA error shown alone keeps naming its rank.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.logimport import LogSource
from k10s_forensics.parsers.log_layout import infer_layout
from k10s_forensics.parsers.log_nproc_guess import nproc_guessed

NOW = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.timezone.utc)
ADVICE = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
          "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
          "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."]
AGENT = "torch/distributed/elastic/multiprocessing/api.py"


def _ranked(rank: int, error: str) -> list[str]:
    """A ``[rankN]:`` traceback ending in ``RuntimeError: CUDA error: <error>`` (torch 2.x's prefixed output)."""
    lines = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 21, in <module>',
             "    torch.cuda.set_device(local_rank)", '  File "/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", '
             "line 478, in set_device", "    torch._C._cuda_setDevice(device)", f"RuntimeError: CUDA error: {error}", *ADVICE]
    return [f"[rank{rank}]:{ln}" if ln.startswith(" ") else f"[rank{rank}]: {ln}" for ln in lines]


def _agent(rank: int, alive: tuple[int, ...]) -> list[str]:
    """torchrun's agent: SIGTERM to the processes still alive, then the failed one's exit status."""
    return ([f"W1130 07:00:20.650000 6004 {AGENT}:897] Sending process {6180 + a} closing signal SIGTERM" for a in alive]
            + [f"E1130 07:00:20.779000 6004 {AGENT}:869] failed (exitcode: 1) local_rank: {rank} (pid: {6180 + rank}) "
               "of binary: /opt/venv/bin/python3"])


#: (name, log lines, nproc per node given as the thread gives it (None: the importer's own guess), rank named or None)
CASES = {
    # two processes, one GPU: rank 1 alone cannot select device 1, rank 0 is SIGTERMed alive
    "two-procs-last-rank": (_ranked(1, "invalid device ordinal") + _agent(1, (0,)), 2, 1),
    # eight model-parallel workers on a host short of GPUs: rank 1 is the first the agent saw, ranks 2-7 fail alike
    "eight-procs-rank1": (_ranked(1, "invalid device ordinal") + _agent(1, (0,)), 8, None),
    # the node's last local rank of eight (seven GPUs visible): its own
    "eight-procs-last-rank": (_ranked(7, "invalid device ordinal") + _agent(7, (0, 1, 2, 3, 4, 5, 6)), 8, 7),
    # one rank's copy, nothing saying how many processes the node ran: the importer's guessed count ends at that rank
    "unstated-rank5": (_ranked(5, "invalid device ordinal"), None, None),
    "unstated-rank1-agent": (_ranked(1, "invalid device ordinal") + _agent(1, (0,)), None, None),
    # the runtime's error name for the same failure (cupy, a C++ extension)
    "error-name-rank3-of-eight": (["[rank3]: cupy.cuda.runtime.CUDARuntimeError: cudaErrorInvalidDevice: invalid device ordinal"]
                                  + _agent(3, (0, 1, 2, 4, 5, 6, 7)), 8, None),
    # another CUDA error shown alone is still its rank's own
    "unstated-illegal-address": (_ranked(5, "an illegal memory access was encountered"), None, 5),
    "eight-procs-illegal-address-rank1": (_ranked(1, "an illegal memory access was encountered") + _agent(1, (0, 2, 3, 4, 5, 6, 7)), 8, 1),
}
BATCHED = Batched("lone-ordinal", sorted(CASES))


def _make(key: str, folder) -> object:
    return pasted(CASES[key][0], folder, CASES[key][1], NOW)


@pytest.mark.parametrize("key", [pytest.param(k, marks=BATCHED.mark(k)) for k in sorted(CASES)])
def test_a_lone_rank_cuda_error_names_its_rank_only_where_no_other_rank_fails_alike(tmp_path_factory, key):
    want = CASES[key][2]
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, want)
    if want is not None:
        assert any(f["cause"] == "cuda-error" for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]


def _hints(text: str, nproc: int | None = None, world: int | None = None) -> dict[str, str]:
    return infer_layout([LogSource("log.txt", text)], nproc, world).hints


@pytest.mark.parametrize("text, nproc, world, guessed", [
    ("[rank5]: RuntimeError: CUDA error: invalid device ordinal\n", None, None, True),  # one node holding ranks 0-5: a guess
    ("[rank5]: RuntimeError: CUDA error: invalid device ordinal\n", 8, None, False),  # --nproc-per-node
    ("[rank5]: RuntimeError: CUDA error: invalid device ordinal\n", None, 8, False),  # --world-size, one log: one node of 8
    ("torchrun --nproc_per_node=8 train.py\n[rank5]: RuntimeError: boom\n", None, None, False),  # the command line in the log
    ("[2024] [INFO] [launch.py:87:main] nnodes=1, num_local_procs=2, node_rank=0\n[rank1]: RuntimeError: boom\n", None, None, False),
    ("NCCL INFO comm 0x1 rank 3 nRanks 8 localRanks 8 - Init COMPLETE\n[rank3]: RuntimeError: boom\n", None, None, False),  # world stated
    ("RuntimeError: CUDA error: invalid device ordinal\n", None, None, True),  # no rank at all: one process assumed
])
def test_the_importer_says_when_the_processes_per_node_are_its_guess(text, nproc, world, guessed):
    assert nproc_guessed(_hints(text, nproc, world)) is guessed
