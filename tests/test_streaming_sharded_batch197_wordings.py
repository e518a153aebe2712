"""Multi-process training over sharded or streamed data (real incidents batch 197, `streaming-sharded-datasets`): the
readings the batch holds, pinned with their variants, and the miss as it reads (docs/rules.md, "Session 36: batch 197").

Held: Horovod's stall warning listing the ranks whose data ran out first (`[missing ranks: 3, 6]`, horovod/horovod#498:
`estimator.train()` returned on those ranks) names them never-joined, wrapped mid-word with a backslash or not, one or
two missing, bare or under mpirun's `[1,0]<stderr>:` tag; and four shapes every rank shares name no one: litdata's
`StreamingDataset` failing on rank 0 with rank 3's identical traceback after it (Lightning-AI/litData#562: every DDP
process indexes the dataset), mosaicml streaming's `get_shm_prefix` traceback of rank 6 cut before its raise
(mosaicml/streaming#824: stale shared memory on the node), two Lightning ranks that register and finish their first
AllReduce then stick (tmbdev-archive/webdataset-lightning#1), a Ray Datasets pipeline's Horovod workers at ordinary
epoch skew (ray-project/ray#18797). The contrast: rank 0's `FileNotFoundError` alone still names rank 0.

The miss as it reads (NOT_YET, tests/corpus_not_yet_s36.py): each rank's bare printed integer after its tqdm line and
Horovod's rank-less shutdown (horovod/horovod#1407) name no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)
REAL = Path(__file__).parent / "data" / "real-incidents"


def _log(folder: str) -> str:
    return (REAL / folder / "log.txt").read_text()


HVD498 = _log("horovod-498-estimator-train-returned-missing-ranks-3-6")
HVD1407 = _log("horovod-1407-four-gpus-rank3-25-batches-others-26-shutdown")
LIT562 = _log("litData-562-every-rank-indexes-hf-dataset-cache-path-missing-control")
RANK0 = "".join(
    line + "\n" for line in LIT562.splitlines() if line.startswith("[rank0]")
)


def _tagged(text: str, tag: str) -> str:
    return "".join(tag + line + "\n" for line in text.splitlines())


#: key: (the pasted text, the ranks warning/critical findings must name: [] for none, the cause one of them gives)
CASES = {
    "hvd-missing-3-6-wrapped": (HVD498, [3, 6], "never-joined"),
    "hvd-missing-3-6-unwrapped": (
        HVD498.replace("di\\\nfferent", "different"),
        [3, 6],
        "never-joined",
    ),
    "hvd-missing-3-alone": (HVD498.replace("3, 6]", "3]"), [3], "never-joined"),
    "hvd-missing-3-6-mpirun-tagged": (
        _tagged(HVD498, "[1,0]<stderr>:"),
        [3, 6],
        "never-joined",
    ),
    # the miss as it reads: bare per-rank integers and a rank-less shutdown
    "hvd-counts-shutdown": (HVD1407, [], None),
    "hvd-counts-shutdown-no-blank": (HVD1407.replace("\n\n", "\n"), [], None),
    "litdata-rank0-rank3-head": (LIT562, [], None),
    "litdata-rank0-rank3-both-errors": (
        RANK0 + RANK0.replace("[rank0]", "[rank3]"),
        [],
        None,
    ),
    "streaming-shm-prefix-rank6-cut": (
        _log("streaming-824-several-ranks-shm-prefix-internal-error-control"),
        [],
        None,
    ),
    "lightning-two-ranks-registered": (
        _log("webdataset-lightning-1-ddp-two-ranks-stuck-after-registration-control"),
        [],
        None,
    ),
    "ray-workers-epoch-skew": (
        _log("ray-18797-dataset-pipeline-workers-epoch-skew-hang-control"),
        [],
        None,
    ),
    # contrast: rank 0's exception alone is the corpus's lone-failure culprit
    "litdata-rank0-alone": (RANK0, [0], "python-exception"),
}
BATCHED = Batched("b197", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_sharded_data_readings(key, tmp_path_factory):
    _, want, cause = CASES[key]
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    if not want:
        assert named == [], got
    else:
        assert named and all(f["ranks"] == want for f in named), got
        assert any(f["cause"] == cause for f in named), got
