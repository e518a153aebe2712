"""Real PyTorch launcher runs (tests/data/torch-runs, see its README) analyzed as a user would
bring them: through ``k10s import-logs`` with the node logs and no option, and as the pod logs
of a captured PyTorchJob (BATCH runs' jobs in one captured namespace, as a capture of a busy cluster
holds them). Either way BATCH runs share one analysis (an analysis has a fixed cost, most of a run's
reading): the imported bundles are merged into one (tests/bundle_batch.py), each run's findings picked
out. A culprit run: a critical/warning finding names exactly the culprit
rank(s) with the recorded cause, none names only other ranks. A control: no critical/warning
finding names a rank. No torch needed: the logs are fixtures."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.errors import InputError
from bundle_batch import PER_ANALYSIS, findings_of, gist, merge
from torch_runs_kit import (RUNS, import_batch, import_paste, import_run, load_runs, plain, podlog_bundle, podlog_run, score,
                            score_findings)
from torch_runs_not_yet_late import LATE, LATE_WAY

ALL = load_runs()


def _both_versions(cases: dict[str, str]) -> dict[str, str]:
    """``{run: why}`` for a run recorded under both torch versions, keyed ``<version>/<run>``."""
    return {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in cases.items()}


#: Runs not read right yet, per way of bringing them, with why (strict: a fixed run must leave).
SPAWN_HANG = ("torch.multiprocessing.spawn prints only the first failed process's error (a peer's gloo recv timeout) and "
              "SIGTERMs the rest without a line: the hung rank cannot be told from the other terminated one (nothing is named)")
LIGHTNING_SILENT = ("PyTorch Lightning's own launcher prints no exit status: the rank that died (SIGKILL, a segfault without "
                    "faulthandler) leaves no line, only its peers' gloo 'Connection closed by peer'; the cause is not in the logs "
                    "(the pod's exit code would say it where the rank is local rank 0; nothing is named)")
NOTEBOOK_VICTIM = ("accelerate's notebook_launcher (torch's elastic launch in-process) logs only the first failed process's "
                   "traceback, here the victim rank 0's gloo error; the culprit's ValueError is never printed (nothing is named)")
_T4 = {"2.13.0/t4-lightning-2node-sigkill": LIGHTNING_SILENT, "2.13.0/t4-lightning-2node-segfault-node1": LIGHTNING_SILENT,
       "2.13.0/t4-notebook-valueerror": NOTEBOOK_VICTIM}
HYDRA_SILENT = ("MPICH Hydra's BAD TERMINATION banner names a PID and an exit code, not a rank (rank 0's PID, not the culprit's), "
                "and the SIGKILLed rank printed nothing; two ranks (2.13.0) or all four (2.14.1) are silent: nothing is named")
_T7 = _both_versions({"t7-hydra-4-sigkill-rank2": HYDRA_SILENT})
ELASTIC_FIRST_ONLY = ("torch's elastic_launch with a function entrypoint (start_method forkserver) reports only the first failed "
                      "process it finds, each node's local rank 0 (a victim's gloo 'Connection reset by peer'); the culprit's "
                      "KeyError lives in its error file, never printed, and its exit is not reported: rank 1 is silent (nothing is named)")
_T11 = _both_versions({"t11-elaunch-forkserver-keyerror-rank1": ELASTIC_FIRST_ONLY})
GLOO_SIZE = ("rank 1 all-reduced a float64 gradient among float32 peers: gloo's size check aborts the RECEIVING rank 0 "
             "('Received data size doesn't match expected size') and names no sender; rank 1 only saw its peer reset the connection, "
             "as rank 3 did: nothing is named (rank 0's SIGABRT is the report's, no failure of its own)")
_T13 = _both_versions({"t13-trun-dtype-mismatch-rank1": GLOO_SIZE})
DTENSOR_SIZE = ("rank 2's DTensor shard had a row too many: full_tensor()'s gather aborted the RECEIVING rank 3 in gloo "
                "('Received data size doesn't match expected size', no sender named) while rank 2 only saw a peer reset the "
                "connection, as rank 0 did (nothing is named; as the float64 gradient's run)")
_T17 = _both_versions({"t17-trun-dtensor-shard-rows-rank2": DTENSOR_SIZE})
REDIRECTS_EXIT1 = ("under --redirects 3 the pod logs hold only the agents' reports: each node's first failed worker exits 1 "
                   "(the culprit's KeyError, two victims' gloo errors, all unseen); node 1's report of rank 3 came 0.997 s "
                   "before node 2's of rank 4 by the API's clock, and exits alike within a second are not ordered (nothing "
                   "is named; the agents' own glog clocks, 1.002 s apart, name rank 3 through import-logs)")
APART_UNSTAMPED = ("ranks 3 and 5, on two nodes, raised the same KeyError 1.5 s apart (2.14.1: each first in its log, the "
                   "victims' gloo errors below both); without timestamps nothing orders them (each borrows its agent's "
                   "report's clock): no single culprit, and the hang compare names both never-joined (with --timestamps, "
                   "and in 2.13.0 where a victim's error stands above rank 5's, rank 3 is named)")
_T18 = {"import": {"2.14.1/t18-trun-2x4-keyerror-rank3-then-rank5": APART_UNSTAMPED},
        "podlog": {"2.13.0/t18-trun-3x2-redirects3-tee0-keyerror-rank3": REDIRECTS_EXIT1}}
DS_LAST_CMD = ("DeepSpeed's launcher reports the first dead process's return code (-6) beside its LAST spawned command "
               "('--local_rank=3' here by chance: it names no failed process); the aborting rank's only line is its logging.critical "
               "record, whose 'rank 3:' is message text, and rank 1, killed by the launcher, is as silent (the abort, no rank)")
STORE_HOST_UNSEEN = ("mp.spawn on tcp:// init, ranks 1 and 3 late: rank 0, the store's host, was waiting for them (its "
                     "'2/4 clients joined' never printed: spawn SIGTERMed it), process 2 timed out on rank 0's key; no line "
                     "says which ranks never came: no one is named")
_T19 = _both_versions({"t19-ds-1x4-crit-abort-rank3": DS_LAST_CMD, "t20-spawn-1x4-late-ranks1-3": STORE_HOST_UNSEEN})
SPAWN_ONE_REPORTED = ("start_processes(join=False) whose every process raised the same ValueError: torch.multiprocessing "
                      "reports only the first failed process's error (process 3 in 2.13.0, 0 in 2.14.1) and SIGTERMs the "
                      "rest without a line; the log is one process's failure in shape (a false culprit no general rule "
                      "can tell from spawn-exception's)")
# t23-trun-2x2-filter0-hang-rank1 (rank 1 hung under --local-ranks-filter 0, the hidden rank 3's exit 1 one more wait's):
# read right since session 72 (docs/rules.md "Session 72: a waiter's quoted timeout in a failure table is a wait"):
# never-joined rank 1, both versions, both ways
_T23 = _both_versions({"t23-procs-1x4-spawn-nojoin-common-mode-valueerror": SPAWN_ONE_REPORTED})
IFACE_SIGTERMED = ("node 1's GLOO_SOCKET_IFNAME named an interface it lacks: both its ranks printed gloo's 'Unable to find "
                   "address for' untagged, but rank 2 was still exiting when its agent SIGTERMed it (its table: -15), so the "
                   "table's one failed process, rank 3, is given both tracebacks (one process may print one twice: logged, "
                   "then raised); rank 2 is named apart, never-joined by node 0's store wait on its key (2.14.1: both exit 1, "
                   "both named together)")
_T26 = {"2.13.0/t26-trun-2x2-gloo-ifname-one-node": IFACE_SIGTERMED}
EXIT_HANG = ("rank 2 hung at interpreter exit (a non-daemon thread) after every rank printed its last step: no rank failed, "
             "no failure table; the job's deadline SIGTERM makes node 1's agent stop the one worker still running, named by "
             "its pid only ('Sending process <pid> closing signal SIGTERM'), and only the program's own start-up line ties "
             "that pid to rank 2 (nothing is named)")
_T27 = _both_versions({"t27-trun-2x2-exit-hang-nondaemon-rank2": EXIT_HANG})
DS_STORE_UNTAGGED = ("DeepSpeed's runner (--hostfile, --exclude, --no_local_rank) whose rank 1 never called init_distributed: "
                     "its two peers' store errors are untagged (the store host's '2/3 clients joined', the other's 'wait "
                     "timeout … keys: /default_pg/0//cpu//0/0'), and nothing in the log says which of the three ranks is "
                     "missing; the launcher's 'exits with return code = 1' names its last command (nothing is named)")
LIGHTNING_CHILD_SILENT = ("Lightning's own launcher, the child it started for rank 1 segfaulted without a line: its peers' "
                          "[rankN]: 'Connection closed by peer' leave rank 1 the one silent rank, named never-joined (right "
                          "rank); the segfault is in no line (the fourth set's LIGHTNING_SILENT, now with the rank)")
_T30 = _both_versions({"t30-ds-hostfile-exclude-never-joins-rank1": DS_STORE_UNTAGGED,
                       "t30-lightning-own-2x2-segfault-rank1": LIGHTNING_CHILD_SILENT})
T32_SIZE_RECEIVER = ("gloo with a rank all-reducing a longer bucket: its peer rank 1 aborts on the size it received "
                     "('op.preamble.length <= op.nbytes … Is there a distributed collective mismatch'), exit -6, and no line "
                     "says which peer sent it; only rank 2's flight-recorder dump shows the other size (read with the dumps "
                     "in tests/test_t32_launcher_shapes.py; nothing is named from the logs)")
_T32 = _both_versions({"t32-fr-size-mismatch-rank2": T32_SIZE_RECEIVER})
T33_FSDP2_SIZE = ("FSDP2 (fully_shard) with rank 2's hidden layer wider: its all_gather_single's buffer is longer, and its "
                  "peer rank 3 aborts on gloo's size check ('op.preamble.length <= op.nbytes. 90 vs 72 … Is there a distributed "
                  "collective mismatch'), exit -6, naming no sender; rank 2 only saw the connection reset, as ranks 0 and 1 "
                  "did (nothing is named; the seventeenth and thirty-second sets' size mismatches). Session 33 judged it "
                  "not nameable from the log: the enforce line carries no rank tag and no peer, the three resets all name "
                  "one loopback address, and which sub-group the all_gather ran in (the sender) is only in the program's "
                  "own mesh prints; naming the -6 rank would name the receiver, an innocent")
T33_SUBMESH_HANG = ("rank 3 stuck in compute on a 2-D mesh: its dp peer rank 1 waited in the dp sub-mesh all-reduce and was "
                    "SIGTERMed by its agent before it printed its own timeout, so ranks 1 and 3 are both silent and both "
                    "-15 in their agents' tables; ranks 0 and 2 timed out in the all-reduce over every rank, which names "
                    "no peer. Only the program's own 'recomputing activations' line sets rank 3 apart (no_single_culprit, "
                    "info: naming both would name rank 1, an innocent). Session 33 judged it not nameable: the timeouts "
                    "are in the all-reduce over every rank (no group, no peer), and the dp sub-mesh wait that sets rank 1 "
                    "apart as a waiter was cut by its agent's SIGTERM before it printed")
_T33 = _both_versions({"t33-trun-2x2-fsdp2-shape-rank2": T33_FSDP2_SIZE, "t33-trun-2x2-mesh-dp-hang-rank3": T33_SUBMESH_HANG})
T34_STAGE_SHAPE = ("ScheduleInterleaved1F1B with rank 1's stage 1 built 20 wide: pipelining's shape inference runs the NEXT "
                   "stage's module on the shape it was sent, so rank 2 raises `mat1 and mat2 shapes cannot be multiplied (2x20 "
                   "and 16x16)` under _forward_metadata_inference frames; since session 34 an exception raised under that "
                   "frame names no one (info: either stage of the hand-over may be the one built wrong, no line says which), "
                   "so nothing is named (was rank 2, a wrong rank); rank 1 is in no line of its own but a recv timeout")
T34_DETAIL_SKIP = ("rank 2 left its pair's all-reduce out under DETAIL: its pair peer rank 3 waits in the pair's check "
                   "('Rank 1 successfully reached monitoredBarrier … from rank 0': group ranks 1 and 0), rank 0's world check "
                   "names rank 3 ('Ranks 3 failed to pass'), ranks 0, 1 and 2 each reached the world's check: since the "
                   "sub-group fix nothing is named (rank 3 was, a wrong rank). Session 34 judged rank 2 not placeable from "
                   "the logs: which global rank is group rank 0 of rank 3's pair no torch line says (new_group's members "
                   "are printed nowhere; only the program's own `group loss` prints hint at pairs), and ranks 0, 1 and 2 "
                   "all left the pair's check for the world's alike, so any of them could be the absent partner. Session 35's "
                   "group reading (a hang confined to one group, said at info) does not apply: gloo's barrier lines print group "
                   "ranks but no group id or description, and rank 0's world check waits beside the pair's (not one group's hang)")
T34_WRONG_PEER = ("rank 1's batch_isend_irecv sent to rank 3 instead of rank 2: ranks 1 and 3 time out in their sends, 0 and 2 "
                  "in their receives, the same gloo wording on every rank with no peer named: no single culprit (info). Session "
                  "35's group reading does not apply: all four ranks of the world wait, in p2p ops whose gloo lines name no "
                  "group and no peer, so the hang is the world's, and which send went astray no line says")
_T34 = _both_versions({"t34-trun-2x2-pipe-interleaved-shape-rank1": T34_STAGE_SHAPE,
                       "t34-trun-2x2-subgroup-skip-detail-rank2": T34_DETAIL_SKIP,
                       "t34-trun-2x2-p2p-wrong-peer-rank1": T34_WRONG_PEER})
_T44 = {**_both_versions({"t44-trun-2x2-send-wrong-peer-rank1": "rank 1's isend to rank 3, not 2: ranks 1 and 3 time out "
                          "in sends, 2 in its receive, 0 sees a peer close; no gloo line names a peer (T34_WRONG_PEER's why)"}),
        "2.13.0/t44-trun-2x2-bcast-unpicklable-rank0-redirects": (
            "--redirects 3: each console holds only its agent's table, rank 0's exit 1 and rank 2's (a victim's) 0.5 s "
            "apart, the same way within a second: which failed first only the --log-dir files say (2.14.1: rank 2 SIGTERMed)")}
NOT_YET: dict[str, dict[str, str]] = {
    "import": {**_both_versions({"spawn-hang": SPAWN_HANG, "t40-spawn-1x4-stall-rank2": SPAWN_HANG}), **_T4,
               **_T7, **_T11, **_T13, **_T17, **_T18["import"], **_T19, **_T23, **_T26, **_T27, **_T30, **_T32, **_T33, **_T34, **_T44, **LATE, **LATE_WAY["import"]},
    "podlog": {**_both_versions({"spawn-hang": SPAWN_HANG, "t40-spawn-1x4-stall-rank2": SPAWN_HANG}), **_T4,
               **_T7, **_T11, **_T13, **_T17, **_T18["podlog"], **_T19, **_T23, **_T26, **_T27, **_T30, **_T32, **_T33, **_T34, **_T44, **LATE, **LATE_WAY["podlog"]},
}


#: Runs per analysis. Each analysis has a fixed cost (~0.15 CPU s, most of a run's reading); 8 jobs in one
#: bundle cost about a fifth per run (session 15), 32 about half of that again (session 21), and every run's findings
#: are the same as in a bundle of its own (test_a_run_reads_alike_alone_and_beside_other_jobs; all runs compared,
#: both ways, at 8 against alone and at 32 against 8: benchmarks/results/test-suite.md, "Session 15", "Session 21").
BATCH = PER_ANALYSIS
_BATCHES = [ALL[i:i + BATCH] for i in range(0, len(ALL), BATCH)]
_BATCH_OF = {run.id: (b, i) for b, batch in enumerate(_BATCHES) for i, run in enumerate(batch)}
_PODLOG_FINDINGS: dict[int, list] = {}
_IMPORT_FINDINGS: dict[int, dict[str, list]] = {}


def _params(how: str):
    for run in ALL:
        why = NOT_YET[how].get(run.id)
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        marks.append(pytest.mark.xdist_group(f"torch-{how}-{_BATCH_OF[run.id][0]}"))  # a batch's runs share its analysis
        yield pytest.param(run, id=run.id, marks=marks)


def _podlog_findings(run, tmp_path_factory) -> list:
    """The run's findings in its batch's captured bundle (analysed once per process)."""
    b, i = _BATCH_OF[run.id]
    if b not in _PODLOG_FINDINGS:
        _PODLOG_FINDINGS[b] = analyze(podlog_bundle(_BATCHES[b], tmp_path_factory.mktemp(f"podlog{b}")))["findings"]
    return findings_of(_PODLOG_FINDINGS[b], i)


def _has_lines(run) -> bool:
    return any(plain(t).strip() for t in run.stamped())


def _import_findings(run, tmp_path_factory) -> list:
    """The run's findings through ``k10s import-logs`` (its own bundle), analysed merged with its batch's."""
    b, _ = _BATCH_OF[run.id]
    if b not in _IMPORT_FINDINGS:
        tmp = tmp_path_factory.mktemp(f"import{b}")
        runs, bundles, refused = import_batch([r for r in _BATCHES[b] if _has_lines(r)], tmp)
        findings = analyze(merge(bundles, tmp / "merged"))["findings"]
        _IMPORT_FINDINGS[b] = {**{r.id: findings_of(findings, i) for i, r in enumerate(runs)}, **refused}
    if isinstance(_IMPORT_FINDINGS[b][run.id], InputError):  # the run's own refusal (torch_runs_kit.import_batch)
        raise _IMPORT_FINDINGS[b][run.id]
    return _IMPORT_FINDINGS[b][run.id]


def test_runs_are_recorded_with_their_truth():
    assert len(ALL) >= 20
    for run in ALL:
        t = run.truth
        assert t["control"] == (not t["culprit_ranks"]), run.id
        assert t["commands"] and t["node_logs"], run.id
        assert all((run.folder / n).is_file() for n in t["node_logs"]), run.id
    assert set().union(*NOT_YET.values()) <= {r.id for r in ALL}
    assert len(PASTED) >= 38
    assert (RUNS / "README.md").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("run", list(_params("import")))
def test_import_logs(tmp_path, tmp_path_factory, run):
    if not _has_lines(run):  # --redirects without --tee, a clean run: nothing to import
        with pytest.raises(InputError, match="no log lines"):
            import_run(run, tmp_path)
        return
    why = score_findings(run, _import_findings(run, tmp_path_factory))
    assert why is None, why


@pytest.mark.slow
@pytest.mark.parametrize("run", list(_params("podlog")))
def test_pytorchjob_pod_logs(tmp_path_factory, run):
    why = score_findings(run, _podlog_findings(run, tmp_path_factory))
    assert why is None, why


@pytest.mark.xdist_group("torch-podlog-0")
def test_a_run_reads_alike_alone_and_beside_other_jobs(tmp_path, tmp_path_factory):
    """A run's findings in a bundle of its own are those it gets beside its batch's other jobs (other nodes and
    addresses, other times): what the batched pod-log readings rely on, and what a capture of a busy
    namespace needs (nothing of one job leaks into another's findings)."""
    for run in _BATCHES[0][:2]:
        alone = analyze(podlog_run(run, tmp_path / run.name))["findings"]
        beside = _podlog_findings(run, tmp_path_factory)
        assert gist(alone) == gist(beside), run.id


@pytest.mark.xdist_group("torch-import-0")
def test_an_imported_run_reads_alike_alone_and_merged(tmp_path, tmp_path_factory):
    """The same for the imported runs merged into one bundle (tests/bundle_batch.py)."""
    for k, run in enumerate([r for r in _BATCHES[0] if _has_lines(r)][:2]):
        (tmp_path / str(k)).mkdir()
        alone = analyze(import_run(run, tmp_path / str(k)))["findings"]
        assert gist(alone) == gist(_import_findings(run, tmp_path_factory)), run.id


PASTED = [r for r in ALL if (r.folder / "kubectl-prefix.log").is_file()]


@pytest.mark.slow
@pytest.mark.parametrize("run", PASTED, ids=[r.id for r in PASTED])
def test_kubectl_prefix_paste(tmp_path, run):
    """The run as a user pastes it from real kubectl (tests/tools/kubectl_paste.py): every pod's log in one
    file, each line ``[pod/<pod>/<container>] <time> <line>``, through ``k10s import-logs`` with no option."""
    why = score(run, import_paste(run.folder / "kubectl-prefix.log", tmp_path))
    assert why is None, why


ONE_POD = ["2.13.0/t6-mpi-4-hang-rank1-tag", "2.14.1/t9-mpi-4-sigstop-rank2", "2.13.0/t5-hf-computeloss-keyerror-rank1"]


@pytest.mark.slow
@pytest.mark.parametrize("run_id", ONE_POD)
def test_stern_output_of_a_one_node_run(tmp_path, run_id):
    """A one-node run as ``stern train-master-0 --timestamps`` prints it (``<pod> <container> <time> <line>``) reads
    as its pod log does (before, one pod was not taken for stern's output: the prefix hid every exception and a
    victim's exit status was named)."""
    run = next(r for r in ALL if r.id == run_id)
    body = "".join(f"train-master-0 pytorch {line}\n" for line in run.stamped()[0].splitlines() if line)
    path = tmp_path / "stern.log"
    path.write_text(body, encoding="utf-8")
    why = score(run, import_paste(path, tmp_path))
    assert why is None, why


def test_the_cli_reads_a_recorded_run(tmp_path):
    """One run end to end through the command line, as the README says a user would."""
    run = next(r for r in ALL if r.name == "torchrun-segfault")
    files = []
    for name, text in zip(run.truth["node_logs"], run.stamped()):
        (tmp_path / name).write_text(plain(text), encoding="utf-8")
        files.append(name)
    k10s = [sys.executable, "-m", "k10s_forensics"]
    subprocess.run([*k10s, "import-logs", *files, "-o", "b"], cwd=tmp_path, check=True, capture_output=True, timeout=300)
    out = subprocess.run([*k10s, "analyze", "b", "--format", "json"], cwd=tmp_path, check=True, capture_output=True, text=True,
                         timeout=300).stdout
    named = [(f["ranks"], f["cause"]) for f in json.loads(out)["findings"] if f["severity"] == "critical"]
    assert named == [(run.truth["culprit_ranks"], "segfault")], named
