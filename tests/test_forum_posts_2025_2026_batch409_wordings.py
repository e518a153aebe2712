"""Forum posts and Q&A/blog pages, 2025-2026 (real incidents batch 409), pinned as read. Collected blind (c1332fff): one
incident, a control (the search found no other usable forum thread: docs/rules.md's section records the yield). Scored
once as collected: 1/1 both ways (the control read right, no rank named):

- blog.gitcode.com/8aa18b88 (control, read right as collected): a GitCode (CSDN) blog post on PyTorch Lightning 1.9.5 /
  torch 2.4.0 over 2 nodes x 4 A10G quotes ``NCCL WARN Invalid rank requested : 6/4`` / ``NCCL INFO init.cc:1872 -> 4`` /
  ``NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, invalid argument``, no host, pid, device or rank
  tag. The post settles it as the job's rank/world-size configuration (an 8-process job built a 4-rank world; a custom
  ClusterEnvironment with ``num_nodes=2`` fixes it): every process of the second node refuses alike. k10s finds nothing
  (as pasted, as 4 processes, or as 2 nodes of 4): ``6/4`` is the rank asked of a 4-rank world, not a failing rank 6.

Contrasts: the refusal as rank 6's own tagged NCCL line alone, as each of the second node's four processes' lines, or after
the post's lines (synthetic tags), and batch 253's real ultralytics-22878 paste of the same refusal (``2/2``) name no one
(a size mismatch is the job's); a synthetic CUDA OOM of rank 6, alone or after the post's three lines, names rank 6
(cuda-oom): a rank's own failure is still read beside the refusal. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 7, 5, 0, tzinfo=dt.timezone.utc)

INVALID_RANK = corpus_lines("gitcode-blog-8aa18b88-")
ULTRALYTICS = corpus_lines("ultralytics-22878-")  # batch 253's real paste of the same refusal (`2/2`), a control


def _refusal(rank: int) -> str:
    """Synthetic: NCCL's refusal as rank ``rank``'s own tagged line (a 4-rank world asked for a rank of an 8-process job)."""
    return f"[rank{rank}]:node1:{4100 + rank}:{4100 + rank} [{rank % 4}] init.cc:1872 NCCL WARN Invalid rank requested : {rank}/4"


def _oom(rank: int) -> str:
    """Synthetic: rank ``rank``'s own CUDA out-of-memory error (torch 2.x wording)."""
    return (f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {rank % 4} has a "
            f"total capacity of 22.07 GiB of which 1.12 GiB is free.")


SECOND_NODE = [_refusal(r) for r in range(4, 8)]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the post says (or could)
    "invalid-rank-as-pasted": (INVALID_RANK, None, None, None, None),
    "invalid-rank-four-processes": (INVALID_RANK, 4, 4, None, None),
    "invalid-rank-two-nodes-of-four": (INVALID_RANK, 4, 8, None, None),
    # variants that must not name anyone
    "refusal-tagged-rank6-alone-names-none": ([_refusal(6)], 4, 8, None, None),
    "refusal-tagged-ranks-4-to-7-names-none": (SECOND_NODE, 4, 8, None, None),
    "post-then-tagged-ranks-4-to-7-names-none": (INVALID_RANK + SECOND_NODE, 4, 8, None, None),
    "ultralytics-22878-same-refusal-names-none": (ULTRALYTICS, 2, 4, None, None),
    # contrasts that must name a rank
    "oom-rank6-names-rank6": ([_oom(6)], 4, 8, 6, "cuda-oom"),
    "post-then-oom-rank6-names-rank6": (INVALID_RANK + [_oom(6)], 4, 8, 6, "cuda-oom"),
}
BATCHED = Batched("b409", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_forum_posts_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_invalid_rank_as_collected_finds_nothing(tmp_path):
    """blog.gitcode.com/8aa18b88 (control) as collected: the untagged refusal `Invalid rank requested : 6/4` gives no
    finding at all, as pasted or laid out as the post's 2 nodes of 4: rank 6 is the rank asked of a 4-rank world."""
    assert _gist(INVALID_RANK, tmp_path / "a", None, None) == []
    assert _gist(INVALID_RANK, tmp_path / "b", 4, 8) == []


def test_a_rank_oom_beside_the_refusal_is_read(tmp_path):
    """Synthetic: rank 6's own CUDA OOM after the post's three lines is one warning oom-cascade of rank 6 (cuda-oom);
    the refusal's lines add no finding of their own."""
    assert _gist(INVALID_RANK + [_oom(6)], tmp_path, 4, 8) == [("oom-cascade", "warning", "cuda-oom", [6])]
