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

Session 18's (docs/rules.md, "Session 18: controls"): two or more processes whose NCCL call failed alike (NCCL's error
returns at the same site, `host:pid:tid [dev] NCCL INFO init.cc:1929 -> 2`) beside a rank known only by a cut traceback or
an exit status: that rank may be any of them; a library's check that rejects the run's settings (`ValueError: … is not
compatible with …`) fails every process alike.

Session 20's (docs/rules.md, "Session 20: controls"): a failure Ray's log monitor relays from another process (behind its
`(RayWorkerVllm pid=7046)` prefix) beside a failure in the driver's own lines: nothing orders the two.

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

# session 19: a desync report of a two-rank world (the other rank "didn't join" the next collective), torch 1.x and 2.x
DESYNC_OLD = ["[E ProcessGroupNCCL.cpp:568] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
              "OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=5000) ran for 5061 milliseconds before timing out.",
              " - [{r}] Timeout at collective: ALLREDUCE, #13",
              " - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:",
              "     [{o}] finished collective #12, but didn't join collective #13 (count from 1)"]
DESYNC_NEW = ["[rank{r}]:[E1129 09:14:02.118020341 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation timeout: "
              "WorkNCCL(SeqNum=40, OpType=BROADCAST, NumelIn=16, NumelOut=16, Timeout(ms)=60000) ran for 60043 milliseconds before timing out.",
              "[rank{r}]:[E1129 09:14:02.119020341 ProcessGroupNCCL.cpp:1937] Rank {r}",
              "         - [{r}] Timeout at collective: BROADCAST, #40",
              "         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:",
              "             [{o}] finished collective #39, but didn't join collective #40 (count from 1)"]


def _desync(lines: list[str], other: int) -> list[str]:
    """The report, naming ``other`` as the rank that did not join (``{r}``, the reporter, is filled by ``_lines``)."""
    return [line.replace("{o}", str(other)) for line in lines]


# session 18: NCCL's error returns of a process (host:pid:tid [dev]), and a configuration check's ValueError
RETURNS = ["gpu-a:690{r}:690{r} [{r}] NCCL INFO group.cc:418 -> 2", "gpu-a:690{r}:690{r} [{r}] NCCL INFO init.cc:1929 -> 2"]
RETURNS_ASYNC = ["gpu-a:690{r}:71{r}2 [{r}] NCCL INFO init.cc:1548 -> 3", "gpu-a:690{r}:71{r}2 [{r}] NCCL INFO group.cc:64 -> 3 [Async thread]"]
MASKED = [line.replace("gpu-a:690{r}:690{r}", "[REDACTED]:***:***") for line in RETURNS]
REMOTE_RETURNS = ["gpu-a:690{r}:71{r}2 [{r}] NCCL INFO misc/socket.cc:789 -> 6", "gpu-a:690{r}:71{r}2 [{r}] NCCL INFO transport/net_socket.cc:464 -> 6"]
CONFIG = "[rank{r}]: ValueError: DeepSpeed Zero-3 is not compatible with passing a `device_map`."
CONFIG_ARE = "[rank{r}]: ValueError: `load_in_4bit` and `load_in_8bit` are incompatible: choose one"
DATA_VALUE = "[rank{r}]: ValueError: too many values to unpack (expected 2)"


# session 20: a failure Ray relays from another process (its prefix) beside one in the driver's own lines
RAY_ABORT = "({actor} pid=7046{ip}) Fatal Python error: Aborted"
DRIVER_IMA = ("[E ProcessGroupNCCL.cpp:916] [Rank {r}] NCCL watchdog thread terminated with exception: CUDA error: an illegal "
              "memory access was encountered")
RAY_IMA = ("(RayWorkerWrapper pid=20430, ip=29.45.33.204) [rank{r}]:[E321 19:23:35.450197169 ProcessGroupNCCL.cpp:1895] [PG ID 2 "
           "PG GUID 3 Rank {r}] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered")


def _ray(actor: str = "RayWorkerVllm", ip: str = "") -> str:
    return RAY_ABORT.replace("{actor}", actor).replace("{ip}", ip)


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
    # session 18: two processes' NCCL calls failed alike (their error returns at one site) beside a rank known only by a
    # cut traceback or an exit status: it may be either process
    ("nccl-returns-two-cut-traceback", _lines((RETURNS, 2), (RETURNS, 3), (CUT_TB, 1)), []),
    ("nccl-returns-two-async", _lines((RETURNS_ASYNC, 2), (RETURNS_ASYNC, 3), (CUT_TB, 1)), []),
    ("nccl-returns-two-agent-exit", _lines((RETURNS, 2), (RETURNS, 3), (AGENT, 1)), []),
    ("nccl-returns-two-masked-pids", _lines((MASKED, 2), (MASKED, 3), (CUT_TB, 1)), []),
    # ... and one process's returns, peers that saw a peer go (remote errors), returns at different sites, or a rank's
    # own exception keep the culprit — where the culprit said more than a cut traceback: since session 27 a traceback
    # cut before its exception, alone, is a suspect at info only (docs/rules.md, "Session 27: a cut traceback alone")
    ("nccl-returns-one-process", _lines((RETURNS, 2), (CUT_TB, 1)), []),
    ("nccl-returns-remote", _lines((REMOTE_RETURNS, 2), (REMOTE_RETURNS, 3), (CUT_TB, 1)), []),
    ("nccl-returns-other-sites", _lines((RETURNS, 2), (RETURNS_ASYNC, 3), (CUT_TB, 1)), []),
    ("nccl-returns-own-exception", _lines((RETURNS, 2), (RETURNS, 3), (RAISED, 1)), [1]),
    # session 18: a library's check rejecting the run's settings fails every process alike; a data error stays the rank's
    ("config-not-compatible", _lines((CONFIG, 5)), []),
    ("config-are-incompatible", _lines((CONFIG_ARE, 5), (AGENT, 5)), []),
    ("data-value-error", _lines((DATA_VALUE, 5)), [5]),
    # session 19: with two ranks, "rank 1 didn't join #13" is as much rank 0 calling one collective more: no one is named
    ("desync-two-ranks-torch1", _lines((_desync(DESYNC_OLD, 1), 0)), []),
    ("desync-two-ranks-torch2", _lines((_desync(DESYNC_NEW, 1), 0)), []),
    ("desync-two-ranks-rank1-reports", _lines((_desync(DESYNC_NEW, 0), 1)), []),
    # ... and with more ranks the report names the one that did not join (the others are in the collective)
    ("desync-four-ranks", _lines((_desync(DESYNC_NEW, 3), 0)), [3]),
    ("desync-eight-ranks-torch1", _lines((_desync(DESYNC_OLD, 5), 0)), [5]),
    # session 20: a process Ray relays failed, and so did the driver (rank 0): Ray forwards late, nothing orders them
    ("ray-relayed-abort-driver-ima", _lines((_ray(), 0), (DRIVER_IMA, 0)), []),
    ("ray-driver-ima-relayed-abort", _lines((DRIVER_IMA, 0), (_ray(), 0)), []),
    ("ray-nameless-abort-with-ip", _lines(("(pid=7046, ip=10.0.0.3) Fatal Python error: Aborted", 0), (DRIVER_IMA, 0)), []),
    ("ray-actor-abort-with-ip", _lines((_ray("Actor", ", ip=10.0.0.3"), 0), (DRIVER_IMA, 0)), []),
    ("ray-masked-pid-abort", _lines((_ray().replace("7046", "xxxxxx"), 0), (DRIVER_IMA, 0)), []),
    ("ray-relayed-rank1-ima-driver-rank0", _lines((RAY_IMA, 1), (DRIVER_IMA, 0)), []),
    # ... and a relayed failure alone, the driver's own alone, or vLLM's own worker (its terminal, no relay) keep the culprit
    ("ray-relayed-ima-alone", _lines((RAY_IMA, 1)), [1]),
    ("ray-driver-ima-alone", _lines((DRIVER_IMA, 0)), [0]),
    ("vllm-own-worker-abort-driver-ima", _lines((_ray("VllmWorkerProcess"), 0), (DRIVER_IMA, 0)), [0]),
]
#: (processes per node, world size) where a paste's is not the default one
LAYOUT = {"agent-local-rank-two-nodes": (8, 16), "agent-local-rank-two-nodes-torch1": (4, 8), "agent-local-rank-placed": (8, 16),
          "desync-two-ranks-torch1": (2, 2), "desync-two-ranks-torch2": (2, 2), "desync-two-ranks-rank1-reports": (2, 2),
          "desync-eight-ranks-torch1": (8, 8)}
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


def test_processes_failing_nccl_alike_say_why(findings):
    """Two processes' NCCL calls failed alike: the reason names the site and the rank's cut traceback or exit status."""
    for name, what in (("nccl-returns-two-cut-traceback", "rank 1's traceback, cut before its exception,"),
                       ("nccl-returns-two-agent-exit", "rank 1's exit status")):
        said = [f["summary"] for f in findings_of(findings, [p[0] for p in PASTES].index(name))]
        assert any("2 processes report the same NCCL failure (init.cc:1929 -> 2)" in s and what in s
                   and "no single culprit" in s for s in said), (name, said)


def test_an_unplaced_local_rank_says_why(findings):
    """The agent's local rank of a paste on one of several nodes: the reason names the local rank and the unknown node."""
    said = [f["summary"] for f in findings_of(findings, [p[0] for p in PASTES].index("agent-local-rank-two-nodes"))]
    assert any("local rank 1, but not which of the job's nodes printed it" in s for s in said), said


def test_a_relayed_failure_beside_the_drivers_says_why(findings):
    """A process Ray relays failed beside the driver's own failure: the reason names its pid and the relay's late order."""
    said = [f["summary"] for f in findings_of(findings, [p[0] for p in PASTES].index("ray-relayed-abort-driver-ima"))]
    assert any("a process Ray relays to the driver (pid 7046) failed beside a failure in the driver's own lines" in s
               and "no single culprit" in s for s in said), said


def test_a_two_rank_desync_report_says_why(findings):
    """The two-rank desync report is said at info, and its detail says why it names no culprit."""
    for name in ("desync-two-ranks-torch1", "desync-two-ranks-torch2"):
        hang = [f for f in findings_of(findings, [p[0] for p in PASTES].index(name)) if f["rule"] == "nccl-hang"]
        assert [(f["severity"], f["evidence"][0]["decided_by"], f["evidence"][0]["confidence"]) for f in hang] == [
            ("info", "desync-report", "low")], (name, hang)
        assert "with two ranks" in hang[0]["evidence"][0]["decision_detail"] and "no majority" in hang[0]["evidence"][0]["decision_detail"]


@pytest.mark.parametrize(("line", "want"), [
    ("gpu-a:6897:6897 [2] NCCL INFO init.cc:1929 -> 2", ("ncclSystemError", "init.cc:1929 -> 2", 6897, 2)),
    ("gpu-a:6897:7102 [2] NCCL INFO group.cc:64 -> 3 [Async thread]", ("ncclInternalError", "group.cc:64 -> 3", 6897, 2)),
    ("ng30903:3063028:3066152 [3] NCCL INFO include/alloc.h:185 -> 1", ("ncclUnhandledCudaError", "include/alloc.h:185 -> 1", 3063028, 3)),
    ("ng30903:3063025:3066048 [0] NCCL INFO misc/socket.cc:749 -> 6", ("ncclRemoteError", "misc/socket.cc:749 -> 6", 3063025, 0)),
    # a masked pid (a redacted paste): the process is still its CUDA device
    ("[REDACTED]:***:*** [3] NCCL INFO init.cc:1929 -> 2", ("ncclSystemError", "init.cc:1929 -> 2", None, 3)),
    ("gpu-a:11:12 [0] NCCL INFO [Service thread] proxy.cc:1143 -> 12", ("code_12", "proxy.cc:1143 -> 12", 11, 0)),
    # NCCL's topology lines print arrows too: no error return
    ("gpu-a:11:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", None),
    ("gpu-a:11:12 [0] NCCL INFO Ring 00 : 3 -> 0 -> 1", None),
    ("gpu-a:11:12 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1", None),
])
def test_nccl_error_returns_are_read_with_their_process(line, want):
    from k10s_forensics.parsers.log_classify import classify

    got = [(e["subkind"], e["error_message"], e.get("pid"), e.get("cuda_dev")) for e in classify(line) if e["kind"] == "nccl_return"]
    assert got == ([want] if want else [])
