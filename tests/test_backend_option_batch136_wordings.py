"""Batch 136's shape (tests/data/real-incidents, ``"batch": 136``, family ``gloo-cpu-windows-ddp``), with its wording
variants, as pasted logs through ``k10s import-logs`` (docs/rules.md, "Session 31: batch 136").

DDP or the c10d store refusing an option the chosen backend or the installed torch build lacks is common mode, like a
backend refusing a collective: ``RuntimeError: Function argument device_ids not supported for the selected backend
gloo`` (DDP built with ``device_ids`` on gloo: torch's Windows builds have no NCCL), and a Windows build's
``use_libuv was requested but PyTorch was build without libuv support`` (torch 2.4's TCPStore default; ``built`` in
later wordings, raised as a ``DistStoreError``). Every process of the launch runs the same code on the same build, so
the rank the launcher reports first (``failed (exitcode: 1) local_rank: 0``) names no one. As for the backend's refusal,
a rank whose peers saw its connection close is that rank's own path, and another RuntimeError on one rank still names it.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 20, 0, tzinfo=dt.timezone.utc)

GOLD = corpus_log(
    "Efficient-Computing-90-windows-torchrun-gloo-device-ids-local-rank0-exit1-control"
)
DEVICE_IDS = "RuntimeError: Function argument device_ids not supported for the selected backend gloo"
AGENT = (
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {r} (pid: 2381{r}) of "
    "binary: C:\\envs\\train\\python.exe"
)
NEW_AGENT = (
    "E1201 20:01:02.000000 4242 torch\\distributed\\elastic\\multiprocessing\\api.py:869] failed (exitcode: 1) "
    "local_rank: {r} (pid: 2381{r}) of binary: C:\\envs\\train\\python.exe"
)
LIBUV_24 = (
    "RuntimeError: use_libuv was requested but PyTorch was build without libuv support"
)
LIBUV_25 = (
    "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was built without libuv support, run "
    "with USE_LIBUV=0 to disable it."
)
CLOSED = (
    "[rank{r}]: RuntimeError: [C:\\actions-runner\\_work\\pytorch\\pytorch\\third_party\\gloo\\gloo\\transport\\"
    "uv\\pair.cc:534] Connection closed by peer [127.0.0.1]:24967"
)


def _traceback(message: str, rank: int | None = None) -> str:
    tag = f"[rank{rank}]: " if rank is not None else ""
    return "".join(
        f"{tag}{line}\n"
        for line in (
            "Traceback (most recent call last):",
            '  File "C:\\work\\tools\\train.py", line 120, in <module>',
            "    model = DDP(model, device_ids=[local_rank], output_device=local_rank)",
            '  File "C:\\envs\\train\\lib\\site-packages\\torch\\nn\\parallel\\distributed.py", line 650, in __init__',
            "    self._ddp_init_helper(",
            message,
        )
    )


def _launcher(message: str, rank: int, agent: str = AGENT) -> str:
    return _traceback(message) + agent.format(r=rank) + "\n"


def _peers_closed(rank: int, message: str) -> str:
    """``rank`` raises ``message``; every other rank of four saw its peer's connection close (it waited on it)."""
    return "".join(
        (f"[rank{r}]: {message}" if r == rank else CLOSED.format(r=r)) + "\n"
        for r in range(4)
    )


#: key: (the log, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "gold-yolo-as-pasted": (GOLD, None),
    "device-ids-local-rank1": (_launcher(DEVICE_IDS, 1), None),
    "device-ids-new-agent-line": (_launcher(DEVICE_IDS, 0, NEW_AGENT), None),
    "device-ids-nccl-wording": (_launcher(DEVICE_IDS.replace("gloo", "mpi"), 0), None),
    "libuv-torch-2.4": (_launcher(LIBUV_24, 0), None),
    "libuv-torch-2.5": (_launcher(LIBUV_25, 1), None),
    "every-rank-tagged": (
        "".join(f"[rank{r}]: {DEVICE_IDS}\n" for r in range(4)),
        None,
    ),
    # contrasts: peers that waited on the rank; another RuntimeError on one rank under the launcher
    "peers-closed-rank2": (_peers_closed(2, DEVICE_IDS), 2),
    "other-runtime-error-local-rank0": (
        _launcher("RuntimeError: expected a batch of 8 images, got 0", 0),
        0,
    ),
}
BATCHED = Batched("b136", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 4, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_backend_or_build_option_refused_is_every_ranks(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
