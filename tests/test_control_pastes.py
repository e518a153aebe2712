"""Session 16's controls (docs/rules.md, "Session 16: controls"): what a paste cannot prove names no rank.

Three families, each wording a case, beside the shapes that must keep their culprit:

* a rank absent from a paste that is visibly not whole (one waiter's watchdog report has a line another
  waiter's lacks) is no proof the rank never joined: said at info, naming no one at warning or above;
* in a log without a clock, a line of the first failing rank's that another rank printed alike (the same
  error, the first's with one line of detail more) makes them fail together: no single culprit;
* in a log without a clock, another rank's traceback cut before its exception beside a rank's failure (an
  OOM, an exception) cannot be ordered against it: no single culprit (rank-failure and oom-cascade alike);
* the same error on two ranks of which only one line has a clock cannot be ordered either.

Session 17's (docs/rules.md, "Session 17: controls"): watchdogs that timed out on different collectives (one rank
ahead) prove no absent rank never joined, nor the rank ahead at fault; a torchrun agent's local rank in a paste that
nothing places on one of the job's several nodes names no global rank.

Every paste is imported as a user would (``k10s import-logs``) and all are analysed in one merged bundle.
"""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from incident_kit import Case, incident_bundle, naming_findings

WD = ("[rank{r}]:[E ProcessGroupNCCL.cpp:523] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, "
      "OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 60{r}336 milliseconds before timing out.")
OLD_WD = ("[E ProcessGroupNCCL.cpp:457] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, "
          "OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 60{r}035 milliseconds before timing out.")
SOME = ("[rank{r}]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchronous nature "
        "of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
DETECTED = ("[rank{r}]:[E1001 16:06:04.53{r}356909 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] Exception (either an "
            "error or timeout) detected by watchdog at work: 77, last enqueued NCCL work: 77, last completed NCCL work: 76.")
NCCL_ERR = ("[rank{r}]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:133, "
            "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5")
CUDA_DETAIL = ["[rank{r}]: ncclUnhandledCudaError: Call to CUDA function failed.", "[rank{r}]: Last error:",
               "[rank{r}]: Cuda failure 'CUDA-capable device(s) is/are busy or unavailable'"]
CUT_TB = ["[rank{r}]: Traceback (most recent call last):", '[rank{r}]:   File "/app/train.py", line 942, in <module>',
          "[rank{r}]:     sys.exit(main())", '[rank{r}]:   File "/app/train.py", line 807, in train', "[rank{r}]:     logits = model(**batch)"]
OOM = ("[rank{r}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU {r} has a total capacity of "
       "23.43 GiB of which 210.06 MiB is free. Including non-PyTorch memory, this process has 23.20 GiB memory in use.")
RAISED = "[rank{r}]: KeyError: 'labels'"
# session 17: a watchdog's timeout on another collective (a rank ahead, or behind), and an agent's local rank
AHEAD = WD.replace("SeqNum=77, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024", "SeqNum=79, OpType=_ALLGATHER_BASE, NumelIn=513, NumelOut=2052")
OLD_AHEAD = OLD_WD.replace("SeqNum=77, OpType=ALLREDUCE", "SeqNum=79, OpType=_ALLGATHER_BASE")
BEHIND = WD.replace("SeqNum=77", "SeqNum=75")
SIGTERM = ("W1128 07:42:14.60{r}000 17676 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
           "1777{r} closing signal SIGTERM")
AGENT = ("E1128 07:42:15.588000 17676 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
         "local_rank: {r} (pid: 17774) of binary: /opt/conda/bin/python3.11")
OLD_AGENT = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {r} (pid: 17774) of binary: "
             "/opt/conda/bin/python3")


def _lines(*parts: tuple[object, int]) -> str:
    out: list[str] = []
    for what, r in parts:
        out += [line.format(r=r) for line in (what if isinstance(what, list) else [what])]
    return "\n".join(out) + "\n"


#: (name, paste, the ranks a warning/critical finding must name: [] for none)
PASTES = [
    # a rank absent from a paste that is not whole: one waiter lacks the follow-up line the others printed
    ("cut-some-ops-line", _lines((WD, 3), (WD, 1), (WD, 0), (SOME, 0), (SOME, 1)), []),
    ("cut-detected-line", _lines((WD, 2), (DETECTED, 2), (WD, 0), (DETECTED, 0), (WD, 1)), []),
    # ... and where every waiter's report is whole, or its follow-up names no rank, the absent rank is named
    ("whole-reports", _lines((WD, 2), (DETECTED, 2), (WD, 0), (DETECTED, 0), (WD, 1), (DETECTED, 1)), [3]),
    ("follow-up-names-no-rank", _lines((OLD_WD, 3), (OLD_WD, 2), (OLD_WD, 1), (SOME.replace("[rank{r}]:", ""), 0)), [0]),
    ("timeouts-only", _lines((WD, 3), (WD, 1), (WD, 0)), [2]),
    # the same error on two ranks, the first's with a line of detail more: together
    ("same-error-one-detailed", _lines((NCCL_ERR, 1), (CUDA_DETAIL, 1), (CUT_TB, 7), (NCCL_ERR, 7)), []),
    ("same-error-detail-after", _lines((NCCL_ERR, 7), (NCCL_ERR, 1), (CUDA_DETAIL, 1)), []),
    # ... and one rank's error alone keeps its culprit
    ("one-rank-detailed", _lines((NCCL_ERR, 1), (CUDA_DETAIL, 1)), [1]),
    # another rank's traceback cut before its exception beside a failure, no clock: unordered
    ("oom-beside-cut-traceback", _lines((OOM, 5), (CUT_TB, 2)), []),
    ("cut-traceback-then-oom", _lines((CUT_TB, 2), (OOM, 5)), []),
    ("exception-beside-cut-traceback", _lines((RAISED, 1), (CUT_TB, 3)), []),
    # ... and a failure alone, or a rank's own traceback before its exception, keeps its culprit
    ("oom-alone", _lines((OOM, 5)), [5]),
    ("own-traceback-then-oom", _lines((CUT_TB, 5), (OOM, 5)), [5]),
    # the same error on two ranks (a pod each), only one line with a clock: as unordered as with none
    ("one-clock-same-error", _lines(("2026-11-21 10:00:03 " + RAISED, 0), (RAISED, 1)), []),
    ("one-clock-same-error-after", _lines((RAISED, 1), ("2026-11-21 10:00:03 " + RAISED, 0)), []),
    # session 17: waiters on different collectives (one passed the one the others hang in): a rank absent from
    # them may be with either, and the one ahead did its part: no one is named
    ("ahead-and-absent", _lines((WD, 2), (WD, 1), (AHEAD, 0)), []),
    ("ahead-and-absent-torch1", _lines((OLD_WD, 2), (OLD_AHEAD, 1), (OLD_WD, 3)), []),
    ("ahead-all-report", _lines((WD, 0), (WD, 1), (WD, 2), (AHEAD, 3)), []),
    # ... and a rank behind the others (a SeqNum before theirs) is still named
    ("behind-all-report", _lines((WD, 0), (WD, 1), (WD, 2), (BEHIND, 3)), [3]),
    # session 17: an agent's local rank in a paste of one of several nodes that says which node is no global rank
    ("agent-local-rank-two-nodes", _lines((SIGTERM, 6), (SIGTERM, 7), (AGENT, 1)), []),
    ("agent-local-rank-two-nodes-torch1", _lines((OLD_AGENT, 3)), []),
    # ... and on one node it is, as where a rank-tagged line places the paste on its node
    ("agent-local-rank-one-node", _lines((SIGTERM, 6), (SIGTERM, 7), (AGENT, 1)), [1]),
    ("agent-local-rank-placed", _lines((CUT_TB, 9), (SIGTERM, 6), (AGENT, 1)), [9]),
]
#: (processes per node, world size) where a paste's is not the default one
LAYOUT = {"agent-local-rank-two-nodes": (8, 16), "agent-local-rank-two-nodes-torch1": (4, 8), "agent-local-rank-placed": (8, 16)}
WORLD = 8
HANG_WORLD = 4  # the hangs: three waiters of four ranks


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle

    tmp = tmp_path_factory.mktemp("controls")
    bundles = [incident_bundle(tmp / name, Case(name, "x", [], [], *LAYOUT.get(name, (nproc, world))), text, derive=False)
               for name, text, _ in PASTES for world in [HANG_WORLD if "WorkNCCL" in text else WORLD]
               for nproc in [1 if name.startswith("one-clock") else world]]
    return analyze(Bundle.open(merge(bundles, tmp / "merged").path))["findings"]


@pytest.mark.parametrize(("i", "want"), [(i, want) for i, (_, _, want) in enumerate(PASTES)], ids=[p[0] for p in PASTES])
def test_a_paste_names_a_rank_only_where_it_proves_one(findings, i, want):
    named = naming_findings(findings_of(findings, i))
    assert sorted({r for f in named for r in f["ranks"]}) == want, [(f["rule"], f["severity"], f["ranks"]) for f in named]


def test_no_culprit_says_why(findings):
    """The no-culprit findings say why: a log without a clock cannot order the failures."""
    for name in ("same-error-one-detailed", "exception-beside-cut-traceback", "oom-beside-cut-traceback"):
        said = [f["summary"] for f in findings_of(findings, [p[0] for p in PASTES].index(name)) if f["severity"] != "info"]
        assert any("without a clock" in s and "no single culprit" in s for s in said), (name, said)


def test_an_unplaced_local_rank_says_why(findings):
    """The agent's local rank of a paste on one of several nodes: the reason names the local rank and the unknown node."""
    said = [f["summary"] for f in findings_of(findings, [p[0] for p in PASTES].index("agent-local-rank-two-nodes"))]
    assert any("local rank 1, but not which of the job's nodes printed it" in s for s in said), said
